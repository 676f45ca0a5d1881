//! `dynashard route`: the seed's test vectors, stdin input and every bad input.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a test unwraps what it sets up

use assert_cmd::cargo::cargo_bin_cmd;
use predicates::prelude::*;
use std::path::PathBuf;

/// The seed's 21 album-title boundaries, shared with the library's tests.
fn album_boundaries() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data/album_boundaries_21.json")
}

fn write(dir: &tempfile::TempDir, name: &str, contents: &[u8]) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, contents).expect("write a test file");
    path
}

#[test]
fn range_routes_the_seed_titles() {
    cargo_bin_cmd!("dynashard")
        .arg("route")
        .arg("--boundaries")
        .arg(album_boundaries())
        .args(["2 Pie Island", "Heavy Migration", "Leaving Home", "Space Cadet"])
        .assert()
        .success()
        .stdout("0\n7\n9\n15\n");
}

#[test]
fn hash_routes_the_seed_titles() {
    cargo_bin_cmd!("dynashard")
        .args(["route", "--hash", "21", "Leaving Home", "Heavy Migration"])
        .assert()
        .success()
        .stdout("6\n8\n");
}

#[test]
fn normalization_changes_range_shards() {
    // Unnormalized, "Leaving Home" starts with 'L' (0x4C), below every boundary but "".
    cargo_bin_cmd!("dynashard")
        .arg("route")
        .arg("--boundaries")
        .arg(album_boundaries())
        .args(["--normalize", "none", "Leaving Home", "leaving home"])
        .assert()
        .success()
        .stdout("0\n9\n");
}

#[test]
fn reads_keys_from_stdin_one_line_each() {
    cargo_bin_cmd!("dynashard")
        .arg("route")
        .arg("--boundaries")
        .arg(album_boundaries())
        .write_stdin("Leaving Home\r\n\nSpace Cadet\n2 Pie Island")
        .assert()
        .success()
        .stdout("9\n0\n15\n0\n");
}

#[test]
fn invalid_utf8_on_stdin_names_the_line_unless_lossy() {
    cargo_bin_cmd!("dynashard")
        .args(["route", "--hash", "21"])
        .write_stdin(&b"Leaving Home\nbad \xff\n"[..])
        .assert()
        .code(2)
        .stdout("6\n")
        .stderr(
            predicate::str::contains("<stdin>:2: not valid UTF-8").and(predicate::str::contains("--lossy")),
        );
    cargo_bin_cmd!("dynashard")
        .args(["route", "--hash", "21", "--lossy"])
        .write_stdin(&b"Leaving Home\nbad \xff\n"[..])
        .assert()
        .success()
        .stdout(predicate::str::is_match("^6\n[0-9]+\n$").expect("regex"));
}

#[test]
fn malformed_boundaries_files_are_bad_usage() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cases: [(&str, &[u8], &str); 5] = [
        ("not-json.json", b"[\"\", \"m\"", "must be a JSON array of strings"),
        ("numbers.json", b"[\"\", 3]", "must be a JSON array of strings"),
        (
            "unsorted.json",
            b"[\"\", \"m\", \"c\"]",
            "boundary 2 (\"c\") is not greater than the one before it (\"m\")",
        ),
        ("duplicate.json", b"[\"\", \"m\", \"m\"]", "is not greater than the one before it"),
        ("first.json", b"[\"a\", \"m\"]", "the first boundary must be \"\""),
    ];
    for (name, contents, message) in cases {
        let path = write(&dir, name, contents);
        cargo_bin_cmd!("dynashard")
            .arg("route")
            .arg("--boundaries")
            .arg(&path)
            .arg("x")
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(name).and(predicate::str::contains(message)));
    }
    let empty = write(&dir, "empty.json", b"[]");
    cargo_bin_cmd!("dynashard")
        .arg("route")
        .arg("--boundaries")
        .arg(&empty)
        .arg("x")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("at least the first boundary"));
}

#[test]
fn a_missing_boundaries_file_is_bad_usage() {
    cargo_bin_cmd!("dynashard")
        .args(["route", "--boundaries", "/nonexistent/boundaries.json", "x"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read the boundaries file /nonexistent/boundaries.json"));
}

#[test]
fn routing_options_must_be_exactly_one() {
    for args in [
        &["route", "x"][..],
        &["route", "--hash", "3", "--boundaries", "b.json", "x"],
        &["route", "--hash", "0", "x"],
        &["route", "--hash", "3", "--normalize", "lower", "x"],
        &["route", "--hash", "3", "--normalize", "nfc", "x"],
    ] {
        cargo_bin_cmd!("dynashard").args(args).assert().code(2).stdout("");
    }
}

#[test]
fn shard_counts_beyond_the_maximum_are_bad_usage() {
    for shards in ["10001", "4294967295"] {
        cargo_bin_cmd!("dynashard")
            .args(["route", "--hash", shards, "x"])
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains("1..=10000"));
    }
    cargo_bin_cmd!("dynashard").args(["route", "--hash", "10000", "x"]).assert().success();

    // A boundaries file with more than 10,000 boundaries is rejected like the derive rejects it.
    let dir = tempfile::tempdir().expect("temp dir");
    let boundaries = |count: usize| {
        let values: Vec<String> =
            std::iter::once(String::new()).chain((1..count).map(|n| format!("k{n:05}"))).collect();
        serde_json::to_vec(&values).expect("JSON")
    };
    let too_many = write(&dir, "too_many.json", &boundaries(10_001));
    cargo_bin_cmd!("dynashard")
        .arg("route")
        .arg("--boundaries")
        .arg(&too_many)
        .arg("x")
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("10,001 boundaries; at most 10,000 range shards"));
    let most = write(&dir, "most.json", &boundaries(10_000));
    cargo_bin_cmd!("dynashard")
        .arg("route")
        .arg("--boundaries")
        .arg(&most)
        .arg("k09999")
        .assert()
        .stdout("9999\n");
}

#[test]
fn errors_cut_long_boundaries_short() {
    let dir = tempfile::tempdir().expect("temp dir");
    let huge = "z".repeat(1 << 20);
    let path = write(&dir, "unsorted.json", &serde_json::to_vec(&["", &huge, "a"]).expect("JSON"));
    let output = cargo_bin_cmd!("dynashard")
        .arg("route")
        .arg("--boundaries")
        .arg(&path)
        .arg("x")
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.len() < 1_000, "{} bytes on stderr", stderr.len());
    let shown = format!("\"{}\"… (1,048,576 bytes)", "z".repeat(80));
    assert!(
        stderr.contains(&format!("boundary 2 (\"a\") is not greater than the one before it ({shown})")),
        "{stderr}"
    );
}
