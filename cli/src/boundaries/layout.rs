//! A range-shard layout cut from sorted keys: the boundaries the `range` shard attribute reads,
//! and the keys each shard receives.

use super::cuts::choose_cuts;
use super::key_set::KeyRuns;
use super::prefix::separating_prefix;
use crate::error::CutError;

/// The boundaries and the resulting shards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// One boundary per shard: `""`, then strictly increasing separating prefixes.
    pub boundaries: Vec<String>,
    /// The first run of each shard.
    pub starts: Vec<usize>,
    /// The number of keys in each shard.
    pub sizes: Vec<u64>,
    /// The largest shard that is not one oversized key: the smallest any cut could achieve.
    pub capacity: u64,
    /// Oversized runs that got a shard of their own.
    pub isolated: Vec<usize>,
}

impl Layout {
    /// Cuts `shards` balanced shards from `runs`.
    pub fn cut(runs: &KeyRuns, shards: usize) -> Result<Self, CutError> {
        let cuts = choose_cuts(runs.cumulative(), shards)?;
        let boundaries = cuts
            .starts
            .iter()
            .map(|&start| match start.checked_sub(1) {
                None => String::new(),
                Some(previous) => separating_prefix(runs.key(previous), runs.key(start)).to_owned(),
            })
            .collect();
        let cumulative = runs.cumulative();
        let ends = cuts.starts.iter().skip(1).copied().chain([runs.distinct()]);
        let sizes =
            cuts.starts.iter().zip(ends).map(|(&start, end)| cumulative[end] - cumulative[start]).collect();
        Ok(Self { boundaries, starts: cuts.starts, sizes, capacity: cuts.capacity, isolated: cuts.isolated })
    }

    /// The shard that holds run `run`.
    pub fn shard_of_run(&self, run: usize) -> usize {
        self.starts.partition_point(|&start| start <= run) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boundaries::key_set::KeySet;
    use dynashard::shard::{Boundaries, Normalization};
    use proptest::prelude::*;

    fn runs(keys: &[String], normalization: Normalization) -> KeyRuns {
        let mut set = KeySet::new(normalization, 0);
        for key in keys {
            set.push(key).expect("small input");
        }
        set.into_runs()
    }

    #[test]
    fn boundaries_are_shortest_prefixes() {
        let keys: Vec<String> =
            ["Abba", "Agartha", "Barstow", "Can You Feel It", "Cyan", "Demo"].map(String::from).to_vec();
        let layout = Layout::cut(&runs(&keys, Normalization::NfkdLower), 3).expect("enough keys");
        assert_eq!(layout.boundaries, ["", "b", "cy"]);
        assert_eq!(layout.sizes, [2, 2, 2]);
    }

    fn key() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => "[a-d]{1,4}",
            1 => "[AaÉé\u{130}\u{FB01}ｶ\u{1F345} #]{1,5}",
        ]
    }

    proptest! {
        /// The library routes every key to the shard the layout put it in, and the library
        /// accepts the boundaries.
        #[test]
        fn the_library_routes_like_the_layout(
            keys in prop::collection::vec(key(), 1..80),
            shards_seed in 0usize..50,
            normalization in prop::sample::select(vec![Normalization::NfkdLower, Normalization::Lower, Normalization::None]),
        ) {
            let runs = runs(&keys, normalization);
            let shards = 1 + shards_seed % runs.distinct();
            let layout = Layout::cut(&runs, shards).expect("enough keys");
            let boundaries = Boundaries::new(layout.boundaries.clone()).expect("valid boundaries");
            prop_assert_eq!(boundaries.shards() as usize, shards);
            let mut routed = vec![0u64; shards];
            for key in &keys {
                routed[boundaries.shard(key, normalization) as usize] += 1;
            }
            prop_assert_eq!(&routed, &layout.sizes);
            prop_assert!(layout.sizes.iter().all(|&size| size > 0));
            for run in 0..runs.distinct() {
                prop_assert_eq!(boundaries.shard_of_normalized(runs.key(run)) as usize, layout.shard_of_run(run));
            }
        }
    }
}
