//! `dynashard plan`: the seed's worked example and bad inputs.

use assert_cmd::cargo::cargo_bin_cmd;
use predicates::prelude::*;

/// The seed's index: 500-byte items, 10,000 queries/s of 100 items, 10,000 writes/s.
const SEED: [&str; 9] = [
    "plan",
    "--item-bytes",
    "500",
    "--reads-per-s",
    "10000",
    "--items-per-read",
    "100",
    "--writes-per-s",
    "10000",
];

#[test]
fn the_seed_needs_21x_for_reads_and_5x_for_writes() {
    cargo_bin_cmd!("dynashard")
        .args(SEED)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "  reads:  500 B x 100 items x 10,000/s = 500.00 MB/s / 24.58 MB/s = 20.35 -> 21 partitions (21x one partition)\n",
        ))
        .stdout(predicate::str::contains(
            "  writes: 500 B x 10,000/s = 5.00 MB/s / 1.02 MB/s = 4.88 -> 5 partitions (5x one partition)\n",
        ))
        .stdout(predicate::str::contains("+ 20% headroom = 26 shards"))
        .stdout(predicate::str::contains("Which sharding strategy suits which access pattern"));
}

#[test]
fn strongly_consistent_reads_cost_twice() {
    cargo_bin_cmd!("dynashard")
        .args(SEED)
        .args(["--consistent-reads", "--headroom", "0"])
        .assert()
        .success()
        .stdout(predicate::str::contains("/ 12.29 MB/s = 40.69 -> 41 partitions (41x one partition)"))
        .stdout(predicate::str::contains("(reads, by capacity units) + 0% headroom = 44 shards"));
}

#[test]
fn bad_numbers_are_bad_usage() {
    for (flag, value) in [
        ("--item-bytes", "0"),
        ("--item-bytes", "409601"),
        ("--items-per-read", "0"),
        ("--reads-per-s", "-5"),
        ("--writes-per-s", "lots"),
        ("--headroom", "1.5"),
    ] {
        let mut args = SEED.to_vec();
        match args.iter().position(|arg| *arg == flag) {
            Some(index) => args[index + 1] = value,
            None => args.extend([flag, value]),
        }
        cargo_bin_cmd!("dynashard").args(&args).assert().code(2).stdout("");
    }
    cargo_bin_cmd!("dynashard")
        .args(&SEED[..7])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--writes-per-s"));
}
