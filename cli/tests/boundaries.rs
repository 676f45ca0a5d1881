//! `dynashard boundaries` end to end: balance on skewed data, boundary minimality, input
//! formats, oversized keys and every bad input.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a test unwraps what it sets up

use assert_cmd::cargo::cargo_bin_cmd;
use dynashard::shard::{Boundaries, Normalization};
use predicates::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn write(dir: &tempfile::TempDir, name: &str, contents: &[u8]) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, contents).expect("write a test file");
    path
}

/// Runs `dynashard boundaries` on `stdin` and returns the parsed boundaries and the report.
fn cut(args: &[&str], stdin: Vec<u8>) -> (Boundaries, String) {
    let output =
        cargo_bin_cmd!("dynashard").arg("boundaries").args(args).write_stdin(stdin).output().expect("runs");
    let report = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{report}");
    let json = String::from_utf8(output.stdout).expect("UTF-8 JSON");
    (Boundaries::from_json(&json).expect("valid boundaries"), report)
}

/// A deterministic pseudo-random sequence.
fn lcg(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        state >> 33
    }
}

/// About 82,000 titles over 40,000 distinct ones with Zipf-like counts, in random order and
/// random case, with accents and other scripts. As in the seed's MusicBrainz titles (5.5 million
/// over 3.3 million distinct, "Greatest Hits" 4,638 times: 1.8% of a shard), about half are
/// duplicates and the most frequent title holds about 1.3% of a shard.
fn skewed_titles() -> Vec<String> {
    let words = ["the", "live", "demo", "greatest", "hits", "café", "über", "голос", "學", "blue", "night"];
    let mut next = lcg(42);
    let mut titles = Vec::new();
    for rank in 0..40_000u64 {
        let mut title = String::new();
        let mut seed = lcg(rank * 7 + 1);
        for _ in 0..1 + seed() % 3 {
            title.push_str(words[(seed() % words.len() as u64) as usize]);
            title.push(' ');
        }
        title.push_str(&(seed() % 100_000).to_string());
        let copies = (200 / (rank + 4)).max(1) + rank % 3;
        for _ in 0..copies {
            titles.push(if next().is_multiple_of(2) { title.to_uppercase() } else { title.clone() });
        }
    }
    for i in (1..titles.len()).rev() {
        titles.swap(i, (next() % (i as u64 + 1)) as usize);
    }
    titles
}

#[test]
fn skewed_duplicates_balance_within_one_percent_with_shortest_boundaries() {
    let titles = skewed_titles();
    let stdin = titles.join("\n").into_bytes();
    let (boundaries, report) = cut(&["--shards", "21"], stdin);
    assert_eq!(boundaries.shards(), 21);

    // Route every title through the library: no empty shard, none above 1.01 x ideal.
    let mut sizes = vec![0u64; 21];
    for title in &titles {
        sizes[boundaries.shard(title, Normalization::NfkdLower) as usize] += 1;
    }
    let ideal = titles.len() as f64 / 21.0;
    let largest = *sizes.iter().max().expect("shards") as f64;
    assert!(sizes.iter().all(|&size| size > 0), "{sizes:?}");
    assert!(largest / ideal <= 1.01, "max/ideal {} for {sizes:?}", largest / ideal);
    assert!(report.contains(&format!("keys read:       {}", titles.len() / 1000)), "{report}");
    assert!(report.contains("hottest keys:"), "{report}");

    // Each boundary is the shortest prefix of the next key that exceeds the previous key.
    let distinct: Vec<String> = titles
        .iter()
        .map(|title| Normalization::NfkdLower.apply(title))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    for boundary in &boundaries.values()[1..] {
        let next_index = distinct.partition_point(|key| key < boundary);
        let (previous, next) = (&distinct[next_index - 1], &distinct[next_index]);
        assert!(next.starts_with(boundary.as_str()), "{boundary:?} is a prefix of {next:?}");
        assert!(previous < boundary, "{previous:?} < {boundary:?}");
        let shorter = boundary.char_indices().last().map_or(0, |(index, _)| index);
        assert!(&next[..shorter] <= previous.as_str(), "{boundary:?} could be shorter");
    }
}

#[test]
fn an_oversized_key_is_reported_with_its_overflow() {
    let mut keys: Vec<String> = vec!["Demo".into(); 500];
    keys.extend((0..500).map(|i| format!("title {i:03}")));
    let (boundaries, report) = cut(&["--shards", "4"], keys.join("\n").into_bytes());
    // ideal 250: "demo" (500) needs 2 sub-shards and stands alone.
    assert!(
        report.contains("oversized key:   \"demo\" holds 500 keys (2.0000x of an ideal shard)"),
        "{report}"
    );
    assert!(report.contains("give it 2 overflow sub-shards"), "{report}");
    let demo = boundaries.shard("Demo", Normalization::NfkdLower);
    assert_eq!(boundaries.shard("title 000", Normalization::NfkdLower), demo + 1, "demo is alone");
}

#[test]
fn the_input_formats_agree() {
    let dir = tempfile::tempdir().expect("temp dir");
    let titles =
        ["Leaving Home", "Heavy Migration", "Space Cadet", "2 Pie Island", "Agartha", "Notice", "Skylten"];
    let lines = write(&dir, "titles.txt", titles.join("\n").as_bytes());
    let csv: String = std::iter::once("artist,title\n".to_owned())
        .chain(titles.iter().map(|title| format!("someone,\"{title}\"\n")))
        .collect();
    let csv = write(&dir, "titles.csv", csv.as_bytes());
    let jsonl: String = titles
        .iter()
        .map(|title| format!("{{\"year\": 2005, \"title\": \"{title}\"}}\n"))
        .collect::<String>()
        + "{\"year\": 1999}\n";
    let jsonl = write(&dir, "titles.jsonl", jsonl.as_bytes());

    let run = |args: Vec<&std::ffi::OsStr>| {
        let output = cargo_bin_cmd!("dynashard")
            .arg("boundaries")
            .args(["-n", "3"])
            .args(args)
            .output()
            .expect("runs");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        output.stdout
    };
    let expected = run(vec![lines.as_os_str()]);
    // Sorted: 2 pie island, agartha | heavy migration, leaving home | notice, skylten, space cadet.
    assert_eq!(String::from_utf8_lossy(&expected), "[\n  \"\",\n  \"h\",\n  \"n\"\n]\n");
    assert_eq!(run(vec!["--csv-column".as_ref(), "title".as_ref(), csv.as_os_str()]), expected);
    assert_eq!(run(vec!["--jsonl-field".as_ref(), "title".as_ref(), jsonl.as_os_str()]), expected);

    // Several files are one input.
    let first = write(&dir, "first.txt", titles[..3].join("\n").as_bytes());
    let second = write(&dir, "second.txt", titles[3..].join("\n").as_bytes());
    assert_eq!(run(vec![first.as_os_str(), second.as_os_str()]), expected);
}

#[test]
fn normalization_is_part_of_the_cut() {
    // Unnormalized, uppercase sorts first: B C | a d. Lowercased: a B | C d.
    let keys = b"B\na\nC\nd\n".to_vec();
    assert_eq!(cut(&["-n", "2", "--normalize", "none"], keys.clone()).0.values(), ["", "a"]);
    assert_eq!(cut(&["-n", "2", "--normalize", "lower"], keys.clone()).0.values(), ["", "c"]);
    assert_eq!(cut(&["-n", "2"], keys).0.values(), ["", "c"]);
}

#[test]
fn verbose_reports_every_shard() {
    let (_, report) = cut(&["-n", "2", "-v"], b"a\nb\nc\nd\n".to_vec());
    let shard_lines: BTreeMap<&str, &str> = report
        .lines()
        .filter_map(|line| line.trim().split_once("  ").filter(|(shard, _)| shard.parse::<u32>().is_ok()))
        .collect();
    assert_eq!(shard_lines.len(), 2, "{report}");
    assert!(report.contains("min 2 (1.0000x), max 2 (1.0000x)"), "{report}");
}

fn bad_usage(args: &[&str], stdin: &[u8], message: &str) {
    cargo_bin_cmd!("dynashard")
        .arg("boundaries")
        .args(args)
        .write_stdin(stdin.to_vec())
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(message));
}

#[test]
fn bad_inputs_exit_with_2() {
    bad_usage(&["-n", "2"], b"", "the input has no keys");
    bad_usage(&["-n", "2"], b"\n\r\n\n", "the input has no keys (3 empty or missing keys skipped)");
    bad_usage(
        &["-n", "2"],
        b"ok\nfine\nbad \xc3\x28\n",
        "<stdin>:3: not valid UTF-8 (at byte 4 of the line)",
    );
    bad_usage(&["-n", "0"], b"a\nb\n", "0 is not in 1..");
    bad_usage(&["-n", "3"], b"a\nb\nA\nb\n", "3 shards need at least 3 distinct keys, and the input has 2");
    bad_usage(&["-n", "2", "/nonexistent/keys.txt"], b"", "cannot open /nonexistent/keys.txt");
    bad_usage(
        &["-n", "2", "--csv-column", "name"],
        b"title\nx\n",
        "no column \"name\" in the CSV header (columns: title)",
    );
    bad_usage(
        &["-n", "2", "--jsonl-field", "title"],
        b"{\"title\": \"a\"}\n[1]\n",
        "<stdin>:2: not a JSON object",
    );
    bad_usage(
        &["-n", "2", "--jsonl-field", "title"],
        b"{\"title\": 5}\n",
        "<stdin>:1: field \"title\" is a number, not a string",
    );
    bad_usage(&["-n", "2", "--normalize", "nfc"], b"a\nb\n", "invalid value 'nfc'");
    bad_usage(&["-n", "2", "--csv-column", "a", "--jsonl-field", "b"], b"", "cannot be used with");
    bad_usage(&["-n", "2", "--attribute", "title"], b"", "--from-table");
}

#[test]
fn lossy_accepts_invalid_utf8() {
    let (boundaries, report) = cut(&["-n", "2", "--lossy"], b"a\nb \xff\n".to_vec());
    assert_eq!(boundaries.values(), ["", "b"]);
    assert!(report.contains("distinct keys:   2"), "{report}");
}

/// The derive test `macros/tests/accepted/cli_boundaries.rs` compiles this command's
/// output on the skewed titles; this test keeps that file equal to what the command prints
/// (`DYNASHARD_BLESS=1` rewrites it).
#[test]
fn the_macro_compiles_this_output() {
    let stdin = skewed_titles().join("\n").into_bytes();
    let output =
        cargo_bin_cmd!("dynashard").args(["boundaries", "--shards", "21"]).write_stdin(stdin).output();
    let output = output.expect("runs");
    assert!(output.status.success());
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../macros/tests/ui/data/cli_skewed_21.json");
    if std::env::var_os("DYNASHARD_BLESS").is_some() {
        std::fs::write(&path, &output.stdout).expect("write the pass case's boundaries");
    }
    let committed = std::fs::read(&path).expect("the pass case's boundaries exist");
    assert_eq!(String::from_utf8_lossy(&committed), String::from_utf8_lossy(&output.stdout));
}

#[test]
fn shard_counts_beyond_the_maximum_are_bad_usage() {
    let keys: Vec<String> = (0..10_001).map(|n| format!("key {n:05}")).collect();
    let stdin = keys.join("\n").into_bytes();
    bad_usage(&["--shards", "10001"], &stdin, "1..=10000");
    bad_usage(&["--shards", "4294967295"], &stdin, "1..=10000");
    let (boundaries, _) = cut(&["--shards", "10000"], stdin);
    assert_eq!(boundaries.shards(), 10_000);
}

#[test]
fn reports_cut_long_keys_short() {
    // A 10 MB key, four times: the hottest key and an oversized one.
    let huge = "x".repeat(10 << 20);
    let mut keys = vec![huge.as_str(); 4];
    keys.extend(["a", "b", "c"]);
    let (boundaries, report) = cut(&["--shards", "2", "--verbose"], keys.join("\n").into_bytes());
    assert_eq!(boundaries.shards(), 2);
    assert!(report.len() < 4_000, "the report has {} bytes", report.len());
    let shown = format!("\"{}\"… (10,485,760 bytes)", "x".repeat(80));
    assert!(report.contains(&format!("shard 1     {shown}\n")), "{report}");
    assert!(report.contains(&format!("oversized key:   {shown} holds 4 keys")), "{report}");
    // Short keys stay whole; multi-byte characters are never cut.
    let accented = "é".repeat(81);
    let (_, report) = cut(&["--shards", "2"], format!("{accented}\n{accented}\nb\n").into_bytes());
    let shown = format!("\"{}\"… (243 bytes)", "e\u{301}".repeat(40));
    assert!(report.contains(&shown), "{report}");
    assert!(report.contains("shard 0     \"b\"\n"), "{report}");
}

#[test]
fn a_huge_top_lists_every_key() {
    let top = usize::MAX.to_string();
    let (_, report) = cut(&["-n", "1", "--top", &top], b"a\nb\na\n".to_vec());
    let expected = "hottest keys:\n             2  shard 0     \"a\"\n             1  shard 0     \"b\"\n";
    assert!(report.contains(expected), "{report}");
}
