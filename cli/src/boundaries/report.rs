//! The report `dynashard boundaries` prints on stderr: what was read, how even the shards came
//! out, the hottest keys, and the keys too large for one shard. Keys are shown cut to
//! [`crate::format::KEY_CHARS`] characters.

use super::cuts::oversized_runs;
use super::key_set::KeyRuns;
use super::layout::Layout;
use crate::format::{count, decimal, key, ratio};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt::Write;

/// A key with its count and shard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyCount {
    /// The normalized key.
    pub key: String,
    /// How often it occurs.
    pub count: u64,
    /// The shard it routes to.
    pub shard: usize,
}

/// A key holding more than an ideal shard, with the overflow sub-shards that would fit it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Oversized {
    /// The key, its count and shard.
    pub key: KeyCount,
    /// `ceil(count / ideal shard size)`: sub-shards of an ideal size that hold it.
    pub overflow: u64,
}

/// Everything the report says.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// Keys read, duplicates included.
    pub keys: u64,
    /// Inputs skipped (empty lines, records without the field).
    pub skipped: u64,
    /// Distinct normalized keys.
    pub distinct: usize,
    /// The normalization's name.
    pub normalization: &'static str,
    /// Keys per shard if they split exactly: `keys / shards`.
    pub ideal: f64,
    /// Keys in each shard, with its boundary.
    pub shards: Vec<(String, u64)>,
    /// The most frequent keys, most frequent first.
    pub hottest: Vec<KeyCount>,
    /// Keys larger than an ideal shard.
    pub oversized: Vec<Oversized>,
}

impl Summary {
    /// Summarizes a layout, listing the `top` most frequent keys.
    pub fn new(
        runs: &KeyRuns,
        layout: &Layout,
        normalization: &'static str,
        skipped: u64,
        top: usize,
    ) -> Self {
        let shards = layout.sizes.len();
        let keys = runs.total();
        let key_count = |run: usize| KeyCount {
            key: runs.key(run).to_owned(),
            count: runs.count(run),
            shard: layout.shard_of_run(run),
        };
        let oversized = oversized_runs(runs.cumulative(), shards)
            .into_iter()
            .map(|run| Oversized {
                overflow: overflow_count(runs.count(run), keys, shards),
                key: key_count(run),
            })
            .collect();
        Self {
            keys,
            skipped,
            distinct: runs.distinct(),
            normalization,
            ideal: keys as f64 / shards as f64,
            shards: layout.boundaries.iter().cloned().zip(layout.sizes.iter().copied()).collect(),
            hottest: most_frequent_runs(runs, top).into_iter().map(key_count).collect(),
            oversized,
        }
    }

    /// The report text; `per_shard` adds a line per shard.
    pub fn render(&self, per_shard: bool) -> String {
        let mut out = String::new();
        let smallest = self.shards.iter().map(|(_, size)| *size).min().unwrap_or(0);
        let largest = self.shards.iter().map(|(_, size)| *size).max().unwrap_or(0);
        let _ = writeln!(out, "keys read:       {}", count(self.keys));
        if self.skipped > 0 {
            let _ = writeln!(
                out,
                "skipped:         {} (empty keys or records without the key)",
                count(self.skipped)
            );
        }
        let _ = writeln!(
            out,
            "distinct keys:   {} (normalized with {})",
            count(self.distinct as u64),
            self.normalization
        );
        let _ = writeln!(out, "shards:          {}", self.shards.len());
        let _ = writeln!(out, "ideal shard:     {} keys", decimal(self.ideal));
        let _ = writeln!(
            out,
            "actual shards:   min {} ({}), max {} ({})",
            count(smallest),
            ratio(smallest as f64 / self.ideal),
            count(largest),
            ratio(largest as f64 / self.ideal)
        );
        if per_shard {
            let _ = writeln!(out, "per shard:");
            for (shard, (boundary, size)) in self.shards.iter().enumerate() {
                let ideal = ratio(*size as f64 / self.ideal);
                let _ = writeln!(out, "  {shard:>5}  {:>12}  {ideal:>7}  {}", count(*size), key(boundary));
            }
        }
        if !self.hottest.is_empty() {
            let _ = writeln!(out, "hottest keys:");
            for hot in &self.hottest {
                let _ = writeln!(out, "  {:>12}  shard {:<5} {}", count(hot.count), hot.shard, key(&hot.key));
            }
        }
        for big in &self.oversized {
            let _ = writeln!(
                out,
                "oversized key:   {} holds {} keys ({} of an ideal shard) in shard {}: give it {} overflow sub-shards",
                key(&big.key.key),
                count(big.key.count),
                ratio(big.key.count as f64 / self.ideal),
                big.key.shard,
                big.overflow
            );
        }
        out
    }
}

/// Overflow sub-shards that hold `key_count` keys at an ideal shard size of `total / shards`:
/// `ceil(key_count * shards / total)`.
pub fn overflow_count(key_count: u64, total: u64, shards: usize) -> u64 {
    let product = u128::from(key_count) * shards as u128;
    let total = u128::from(total.max(1));
    product.div_ceil(total).try_into().unwrap_or(u64::MAX)
}

/// The `top` runs with the most keys, most first (earlier runs first on ties).
fn most_frequent_runs(runs: &KeyRuns, top: usize) -> Vec<usize> {
    let mut heap: BinaryHeap<Reverse<(u64, Reverse<usize>)>> =
        BinaryHeap::with_capacity(top.min(runs.distinct()) + 1);
    for run in 0..runs.distinct() {
        heap.push(Reverse((runs.count(run), Reverse(run))));
        if heap.len() > top {
            heap.pop();
        }
    }
    let mut best: Vec<(u64, Reverse<usize>)> = heap.into_iter().map(|Reverse(entry)| entry).collect();
    best.sort_unstable_by(|a, b| b.cmp(a));
    best.into_iter().map(|(_, Reverse(run))| run).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boundaries::key_set::KeySet;
    use dynashard::shard::Normalization;

    fn runs(keys: &[&str]) -> KeyRuns {
        let mut set = KeySet::new(Normalization::NfkdLower, 0);
        for key in keys {
            set.push(key).expect("small input");
        }
        set.into_runs()
    }

    #[test]
    fn overflow_is_the_ceiling_of_count_over_ideal() {
        assert_eq!(overflow_count(4_638, 5_535_986, 21), 1);
        assert_eq!(overflow_count(50, 100, 5), 3, "ideal 20: 50 keys need 3 sub-shards");
        assert_eq!(overflow_count(40, 100, 5), 2);
        assert_eq!(overflow_count(41, 100, 5), 3);
    }

    #[test]
    fn summary_counts_and_ranks() {
        let keys = ["b", "a", "c", "a", "a", "d", "c", "e", "f", "g", "h", "i"];
        let runs = runs(&keys);
        let layout = Layout::cut(&runs, 3).expect("enough keys");
        let summary = Summary::new(&runs, &layout, "nfkd-lower", 2, 2);
        assert_eq!((summary.keys, summary.distinct, summary.skipped), (12, 9, 2));
        assert_eq!(summary.ideal, 4.0);
        let hottest: Vec<(&str, u64)> =
            summary.hottest.iter().map(|hot| (hot.key.as_str(), hot.count)).collect();
        assert_eq!(hottest, [("a", 3), ("c", 2)]);
        assert!(summary.oversized.is_empty());
        let text = summary.render(true);
        assert!(text.contains("keys read:       12\n"), "{text}");
        assert!(text.contains("distinct keys:   9 (normalized with nfkd-lower)\n"), "{text}");
        assert!(text.contains("skipped:         2"), "{text}");
    }

    #[test]
    fn oversized_keys_are_reported_with_their_overflow() {
        let mut keys = vec!["demo"; 50];
        keys.extend(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]);
        let runs = runs(&keys);
        let layout = Layout::cut(&runs, 4).expect("enough keys");
        let summary = Summary::new(&runs, &layout, "nfkd-lower", 0, 1);
        assert_eq!(summary.oversized.len(), 1);
        assert_eq!(summary.oversized[0].key.key, "demo");
        assert_eq!(summary.oversized[0].overflow, 4, "ideal 15: 50 keys need 4 sub-shards");
        assert!(summary.render(false).contains("give it 4 overflow sub-shards"));
    }
}
