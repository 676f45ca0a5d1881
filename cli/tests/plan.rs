//! `dynashard plan`: the seed's worked example and bad inputs.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a test unwraps what it sets up

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

/// `plan` with the given flag values in place of the seed's (`--headroom` is added when given).
fn plan_with(values: &[(&str, &str)]) -> assert_cmd::Command {
    let mut args: Vec<&str> = SEED.to_vec();
    for (flag, value) in values {
        match args.iter().position(|arg| arg == flag) {
            Some(index) => args[index + 1] = value,
            None => args.extend([*flag, *value]),
        }
    }
    let mut command = cargo_bin_cmd!("dynashard");
    command.args(args);
    command
}

#[test]
fn numbers_too_large_to_compute_are_bad_input_not_a_panic() {
    let max = u64::MAX.to_string();
    for values in [
        // 409,600 B x 2^64 items x 2^64 reads/s is beyond 2^128 bytes per second.
        vec![("--item-bytes", "409600"), ("--items-per-read", max.as_str()), ("--reads-per-s", max.as_str())],
        vec![("--items-per-read", max.as_str()), ("--reads-per-s", max.as_str())],
    ] {
        plan_with(&values)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains("too large").and(predicate::str::contains("panicked").not()));
    }
}

#[test]
fn large_numbers_that_fit_are_computed_exactly() {
    let max = u64::MAX.to_string();
    // 2^64 - 1 writes/s of 409,600 B: 400 WCU each, 7,378,697,629,483,820,646,000 partitions.
    plan_with(&[("--writes-per-s", max.as_str()), ("--item-bytes", "409600"), ("--headroom", "4294967295")])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "  writes: 409,600 B per item = 400 WCU x 18,446,744,073,709,551,615/s = 7,378,697,629,483,820,646,000 WCU/s / 1,000 = ",
        ))
        .stdout(predicate::str::contains("-> 7,378,697,629,483,820,646 partitions"))
        .stdout(predicate::str::contains("panicked").not());
}

#[test]
fn workloads_beyond_the_maximum_shard_count_say_so() {
    // 100 times the seed's reads: 2,166.67 partitions of reads, 2,600 shards with headroom.
    plan_with(&[("--reads-per-s", "1000000")])
        .assert()
        .success()
        .stdout(predicate::str::contains("+ 20% headroom = 2,600 shards\n"))
        .stdout(predicate::str::contains("maximum").not());
    // 10,000 times the seed's reads: 216,666.67 partitions, beyond 10,000 shards.
    plan_with(&[("--reads-per-s", "100000000")])
        .assert()
        .success()
        .stdout(predicate::str::contains("+ 20% headroom = 260,000 shards"))
        .stdout(predicate::str::contains("more than the maximum of 10,000 shards"))
        .stdout(predicate::str::contains("cannot serve this workload"))
        .stdout(predicate::str::contains("10,000 shards serve 4.62% of the peak load"))
        .stdout(predicate::str::contains("shortfall: 206,666.67 partitions"))
        .stdout(predicate::str::contains("at least 26 partition key values"));
    // 9,000 partitions of writes fit, but not with 20% headroom: the maximum, with what it leaves.
    plan_with(&[("--writes-per-s", "9000000"), ("--reads-per-s", "0")])
        .assert()
        .success()
        .stdout(predicate::str::contains("+ 20% headroom = 10,800 shards"))
        .stdout(predicate::str::contains("use the maximum of 10,000 shards"))
        .stdout(predicate::str::contains("11.1% headroom instead of 20%"));
}
