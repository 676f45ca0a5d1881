//! Routing throughput on one core: the shard of each of 10,000 album titles (skewed like a real
//! catalogue, about a tenth in other scripts or with accents and compatibility forms), by range
//! (`Boundaries::shard` with `Normalization::NfkdLower`, over the seed's 21 boundaries) and by
//! hash (`hash_shard(title, 21)`). Targets: range routing at least 1,000,000 keys/s, hash routing
//! at least 5,000,000 keys/s. Criterion prints the throughput in elements (keys) per second; the
//! keys/s of criterion's median is printed again at the end, with the target.
//!
//! ```text
//! cargo bench --bench routing
//! ```

use criterion::{criterion_group, Criterion, Throughput};
use dynashard::shard::{hash_shard, Boundaries, Normalization};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

#[path = "../examples/support/titles.rs"]
#[allow(dead_code)] // only the titles are used here
mod titles;

const KEYS: usize = 10_000;
const SHARDS: u32 = 21;
const GROUP: &str = "routing";
const RANGE: (&str, f64) = ("range_nfkd_lower_21", 1_000_000.0);
const HASH: (&str, f64) = ("hash_21", 5_000_000.0);

fn boundaries() -> Boundaries {
    Boundaries::from_json(include_str!("../examples/data/album_boundaries_21.json")).expect("seed boundaries")
}

fn criterion_benches(c: &mut Criterion) {
    let keys = titles(KEYS);
    let boundaries = boundaries();
    let mut group = c.benchmark_group(GROUP);
    group.throughput(Throughput::Elements(keys.len() as u64));
    // About 5,000 passes over the keys per benchmark: enough for criterion's 100 samples.
    group.measurement_time(Duration::from_secs(10));
    group.bench_function(RANGE.0, |b| {
        b.iter(|| {
            for key in &keys {
                black_box(boundaries.shard(black_box(key), Normalization::NfkdLower));
            }
        })
    });
    group.bench_function(HASH.0, |b| {
        b.iter(|| {
            for key in &keys {
                black_box(hash_shard(black_box(key), SHARDS));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, criterion_benches);

fn main() {
    let started = SystemTime::now();
    let keys = titles(KEYS);
    let boundaries = boundaries();
    let non_ascii = keys.iter().filter(|key| !key.is_ascii()).count();
    let mut spread = [0usize; SHARDS as usize];
    for key in &keys {
        spread[boundaries.shard(key, Normalization::NfkdLower) as usize] += 1;
    }
    eprintln!("{KEYS} titles, {non_ascii} not ASCII; range shards hold {spread:?}");

    benches();
    Criterion::default().configure_from_args().final_summary();
    for (name, target) in [RANGE, HASH] {
        report(name, target, started);
    }
}

/// Prints the keys/s of criterion's median for `name`, if this run measured it.
fn report(name: &str, target: f64, started: SystemTime) {
    let path = criterion_home().join(GROUP).join(name).join("new").join("estimates.json");
    let fresh = std::fs::metadata(&path).and_then(|meta| meta.modified()).is_ok_and(|at| at >= started);
    if !fresh {
        eprintln!("{GROUP}/{name}: not measured in this run ({} missing or older)", path.display());
        return;
    }
    let estimates: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("criterion estimates")).expect("JSON");
    let Some(nanos) = estimates["median"]["point_estimate"].as_f64() else {
        eprintln!("{GROUP}/{name}: no median in {}", path.display());
        return;
    };
    let rate = KEYS as f64 / (nanos * 1e-9);
    let verdict = if rate >= target { "meets" } else { "BELOW" };
    eprintln!(
        "{GROUP}/{name}: median {:.1} µs per {KEYS} keys, {rate:.0} keys/s, {:.0} ns/key ({verdict} the {target:.0} keys/s target)",
        nanos / 1e3,
        nanos / KEYS as f64
    );
}

/// Where criterion writes its results: `CRITERION_HOME`, else `$CARGO_TARGET_DIR/criterion`, else
/// `target/criterion` (cargo runs benchmarks in the package's directory).
fn criterion_home() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(target) => PathBuf::from(target).join("criterion"),
        None => PathBuf::from("target").join("criterion"),
    }
}

/// `count` album titles, skewed like a real catalogue (as in `examples/music.rs`).
fn titles(count: usize) -> Vec<String> {
    let mut random = titles::Lcg(2005);
    (0..count).map(|_| titles::title(&mut random)).collect()
}
