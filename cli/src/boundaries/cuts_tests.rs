//! Tests of the cut placement, including a brute-force comparison over every possible cut.

use super::*;
use proptest::prelude::*;

fn cumulative(counts: &[u64]) -> Vec<u64> {
    let mut sums = vec![0];
    for count in counts {
        sums.push(sums.last().copied().unwrap_or(0) + count);
    }
    sums
}

fn shard_sizes(cumulative: &[u64], starts: &[usize]) -> Vec<u64> {
    let runs = cumulative.len() - 1;
    (0..starts.len())
        .map(|shard| {
            let end = starts.get(shard + 1).copied().unwrap_or(runs);
            cumulative[end] - cumulative[starts[shard]]
        })
        .collect()
}

/// The largest shard that is not one isolated run.
fn largest_free_shard(cumulative: &[u64], starts: &[usize], isolated: &[usize]) -> u64 {
    let runs = cumulative.len() - 1;
    starts
        .iter()
        .enumerate()
        .filter(|(shard, &start)| {
            let end = starts.get(shard + 1).copied().unwrap_or(runs);
            !(end == start + 1 && isolated.contains(&start))
        })
        .map(|(shard, _)| shard_sizes(cumulative, starts)[shard])
        .max()
        .unwrap_or(0)
}

fn isolates(starts: &[usize], runs: usize, isolated: &[usize]) -> bool {
    isolated.iter().all(|&run| starts.contains(&run) && (run + 1 == runs || starts.contains(&(run + 1))))
}

/// Every choice of `shards - 1` cuts among `1..runs`, as shard starts.
fn every_layout(runs: usize, shards: usize) -> Vec<Vec<usize>> {
    fn extend(next: usize, runs: usize, left: usize, starts: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if left == 0 {
            out.push(starts.clone());
            return;
        }
        for cut in next..runs {
            starts.push(cut);
            extend(cut + 1, runs, left - 1, starts, out);
            starts.pop();
        }
    }
    let mut out = Vec::new();
    extend(1, runs, shards - 1, &mut vec![0], &mut out);
    out
}

#[test]
fn even_runs_split_evenly() {
    let sums = cumulative(&[1; 100]);
    let cuts = choose_cuts(&sums, 4).expect("enough keys");
    assert_eq!(cuts.starts, [0, 25, 50, 75]);
    assert_eq!(cuts.capacity, 25);
    assert!(cuts.isolated.is_empty());
}

#[test]
fn a_run_is_never_split() {
    // 10 keys, 2 shards: the run of 4 in the middle goes wholly to one side, 7 | 3.
    let sums = cumulative(&[1, 1, 1, 4, 1, 1, 1]);
    let cuts = choose_cuts(&sums, 2).expect("enough keys");
    assert_eq!(cuts.capacity, 7);
    assert_eq!(shard_sizes(&sums, &cuts.starts), [3, 7]);
}

#[test]
fn an_oversized_run_stands_alone_and_the_rest_spreads() {
    // 100 keys, 5 shards (ideal 20): the run of 50 gets a shard; 50 keys over 4 shards.
    let mut counts = vec![1; 25];
    counts.push(50);
    counts.extend([1; 25]);
    let sums = cumulative(&counts);
    let cuts = choose_cuts(&sums, 5).expect("enough keys");
    assert_eq!(cuts.isolated, [25]);
    let sizes = shard_sizes(&sums, &cuts.starts);
    assert!(sizes.contains(&50), "{sizes:?}");
    assert_eq!(cuts.capacity, 13, "50 free keys over 4 shards, split 25 | 25 around the big run");
    assert!(sizes.iter().filter(|&&size| size != 50).all(|&size| (12..=13).contains(&size)), "{sizes:?}");
}

#[test]
fn isolation_is_dropped_when_shards_are_too_few() {
    // 2 shards cannot isolate the middle run and keep both sides.
    let sums = cumulative(&[1, 5, 1]);
    let cuts = choose_cuts(&sums, 2).expect("enough keys");
    assert!(cuts.isolated.is_empty());
    assert_eq!(cuts.capacity, 6);
}

#[test]
fn errors() {
    assert_eq!(choose_cuts(&cumulative(&[1, 2]), 0), Err(CutError::NoShards));
    assert_eq!(
        choose_cuts(&cumulative(&[1, 2]), 3),
        Err(CutError::TooFewDistinctKeys { shards: 3, distinct: 2 })
    );
    assert!(choose_cuts(&cumulative(&[1, 2]), 2).is_ok());
}

#[test]
fn one_shard_per_run() {
    let sums = cumulative(&[3, 1, 7]);
    assert_eq!(choose_cuts(&sums, 3).expect("enough keys").starts, [0, 1, 2]);
}

#[test]
fn many_small_runs_balance_within_one_percent() {
    // 1,000,000 keys in runs of 1 to 40 keys, 21 shards: every shard within 1% of ideal.
    let counts: Vec<u64> = (0..50_000u64).map(|i| 1 + (i * 7_919) % 40).collect();
    let sums = cumulative(&counts);
    let total = *sums.last().expect("total");
    let cuts = choose_cuts(&sums, 21).expect("enough keys");
    let ideal = total as f64 / 21.0;
    for size in shard_sizes(&sums, &cuts.starts) {
        assert!((size as f64 - ideal).abs() / ideal < 0.01, "{size} vs {ideal}");
    }
}

fn counts() -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(prop_oneof![4 => 1..12u64, 1 => 1..120u64], 1..10)
}

proptest! {
    #[test]
    fn matches_the_best_of_every_layout(counts in counts(), shards_seed in 0usize..100) {
        let sums = cumulative(&counts);
        let runs = counts.len();
        let shards = 1 + shards_seed % runs;
        let cuts = choose_cuts(&sums, shards).expect("enough keys");

        // A valid layout: one start per shard, strictly increasing from 0.
        prop_assert_eq!(cuts.starts.len(), shards);
        prop_assert_eq!(cuts.starts[0], 0);
        prop_assert!(cuts.starts.windows(2).all(|pair| pair[0] < pair[1]));
        prop_assert!(*cuts.starts.last().expect("a shard") < runs);

        // Oversized runs are isolated exactly when some layout can isolate them all.
        let oversized = oversized_runs(&sums, shards);
        let layouts = every_layout(runs, shards);
        let can_isolate = layouts.iter().any(|starts| isolates(starts, runs, &oversized));
        let expected_isolated = if can_isolate { oversized.clone() } else { Vec::new() };
        prop_assert_eq!(&cuts.isolated, &expected_isolated);
        prop_assert!(isolates(&cuts.starts, runs, &cuts.isolated));

        // The largest other shard is the smallest any such layout achieves.
        let best = layouts
            .iter()
            .filter(|starts| isolates(starts, runs, &cuts.isolated))
            .map(|starts| largest_free_shard(&sums, starts, &cuts.isolated))
            .min()
            .expect("some layout");
        prop_assert_eq!(largest_free_shard(&sums, &cuts.starts, &cuts.isolated), best);
        prop_assert_eq!(cuts.capacity, best);
    }

    #[test]
    fn shards_stay_within_ideal_plus_largest_run(counts in prop::collection::vec(1..30u64, 1..400), shards in 1usize..40) {
        let sums = cumulative(&counts);
        prop_assume!(shards <= counts.len());
        let cuts = choose_cuts(&sums, shards).expect("enough keys");
        let total = *sums.last().expect("total");
        let largest = counts.iter().copied().max().unwrap_or(0);
        if cuts.isolated.is_empty() {
            for size in shard_sizes(&sums, &cuts.starts) {
                prop_assert!(size < total.div_ceil(shards as u64) + largest, "{} {}", size, total);
            }
        }
    }
}
