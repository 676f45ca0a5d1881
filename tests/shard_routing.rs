//! Routing agrees with the seeds' formulas: their test vectors, and the same shard ids as Python
//! for 10,000 generated strings full of the Unicode that case mapping and normalization touch.

use dynashard::shard::{hash_shard, Boundaries, Normalization, TimeBucket};
use std::io::Write;
use std::process::{Command, Stdio};

fn album_boundaries() -> Boundaries {
    Boundaries::from_json(include_str!("data/album_boundaries_21.json")).expect("valid boundaries")
}

#[test]
fn the_seed_test_vectors() {
    assert_eq!(hash_shard("Leaving Home", 21), 6);
    assert_eq!(hash_shard("Heavy Migration", 21), 8);
    let boundaries = album_boundaries();
    assert_eq!(boundaries.shards(), 21);
    for (title, shard) in
        [("2 Pie Island", 0), ("Heavy Migration", 7), ("Leaving Home", 9), ("Space Cadet", 15)]
    {
        assert_eq!(boundaries.shard(title, Normalization::NfkdLower), shard, "{title}");
    }
}

/// Deterministic strings drawn from pools of characters that case mapping and normalization
/// treat specially, plus plain ASCII.
fn generated_strings(count: usize) -> Vec<String> {
    const POOLS: &[&[&str]] = &[
        &["a", "Z", "t", "S", "the ", "Live", "0", "9", " ", "/", "(", "#", "$", "'", "~"],
        &["é", "É", "ñ", "Ü", "ö", "å", "ø", "Æ", "œ"],
        &["İ", "ı", "ß", "ẞ", "ﬁ", "ǅ", "Ω", "K", "Å"],
        &["Σ", "ΣΑΣ", "ΟΔΟΣ ", "σ", "ς", "Ά"],
        &["學", "舒", "进", "潮", "向", "妳", "陳", "風吹けば", "魔法少女", "한국어"],
        &["🍅", "🫀", "🫂", "🫧", "👍🏽", "🇸🇪", "❤️"],
        &["e\u{301}", "\u{308}", "a\u{30a}", "\u{327}c"],
        &["Ｃａｆé", "①", "ｶ", "㎏", "½", "ℌ"],
        &["голос", "Ёж", "Ѐ", "ἀ"],
    ];
    let mut state: u64 = 0x5eed;
    let mut next = move |bound: usize| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 33) % bound as u64) as usize
    };
    let mut strings = vec![String::new()];
    while strings.len() < count {
        let pieces = 1 + next(6);
        let mut text = String::new();
        for _ in 0..pieces {
            let pool = POOLS[next(POOLS.len())];
            text.push_str(pool[next(pool.len())]);
        }
        strings.push(text);
    }
    strings
}

/// The seeds' formulas, run by the machine's Python on one string per line of JSON.
const PYTHON: &str = r#"
import bisect, hashlib, json, sys, unicodedata
boundaries = json.loads(sys.argv[1])
for line in sys.stdin:
    s = json.loads(line)
    digest = int.from_bytes(hashlib.sha256(s.encode("utf-8")).digest(), "big")
    normalized = unicodedata.normalize("NFKD", s.lower())
    range_shard = bisect.bisect_right(boundaries, normalized) - 1
    print(json.dumps([digest % 21, digest % 16, digest % 7, range_shard, s.lower(), normalized]))
"#;

#[test]
fn python_computes_the_same_shard_ids() {
    let boundaries = album_boundaries();
    let strings = generated_strings(10_000);
    let boundaries_json = serde_json::to_string(boundaries.values()).expect("json");
    let mut python = Command::new("python3")
        .arg("-c")
        .arg(PYTHON)
        .arg(&boundaries_json)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs (it is on every machine this project targets)");
    let mut input = python.stdin.take().expect("stdin");
    let lines: String = strings.iter().map(|s| serde_json::to_string(s).expect("json") + "\n").collect();
    let writer = std::thread::spawn(move || input.write_all(lines.as_bytes()));
    let output = python.wait_with_output().expect("python output");
    writer.join().expect("writer").expect("write to python");
    assert!(output.status.success(), "python failed");
    let results: Vec<serde_json::Value> = String::from_utf8(output.stdout)
        .expect("utf-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("json line"))
        .collect();
    assert_eq!(results.len(), strings.len());
    let mut mismatches = Vec::new();
    for (text, expected) in strings.iter().zip(&results) {
        let ours = serde_json::json!([
            hash_shard(text, 21),
            hash_shard(text, 16),
            hash_shard(text, 7),
            boundaries.shard(text, Normalization::NfkdLower),
            Normalization::Lower.apply(text),
            Normalization::NfkdLower.apply(text),
        ]);
        if &ours != expected {
            mismatches.push((text.clone(), ours, expected.clone()));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} differ, e.g. {:?}",
        mismatches.len(),
        strings.len(),
        mismatches.first()
    );
    let distinct_shards: std::collections::HashSet<u64> =
        results.iter().filter_map(|r| r[3].as_u64()).collect();
    assert!(distinct_shards.len() > 10, "the strings cover many range shards");
}

#[test]
fn time_buckets_match_python_strftime() {
    let times: Vec<i64> = (0..2_000).map(|n| -86_400 * 400 + n * 1_234_567).collect();
    let script = "import sys, time\nfor t in sys.stdin.read().split():\n    print(time.strftime('%Y-%m-%dT%H:%M', time.gmtime(int(t))))";
    let mut python = Command::new("python3")
        .arg("-c")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3");
    let input: String = times.iter().map(|t| format!("{t}\n")).collect();
    python.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write");
    let output = python.wait_with_output().expect("output");
    let expected: Vec<String> =
        String::from_utf8(output.stdout).expect("utf-8").lines().map(str::to_owned).collect();
    let ours: Vec<String> = times.iter().map(|t| TimeBucket::Minute.label(*t)).collect();
    assert_eq!(ours, expected);
}
