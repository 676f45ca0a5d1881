//! Items per shard, grouped by logical key, and how even each group is; for time-bucketed
//! keys, per shard over all buckets and per bucket over all shards.

use super::buckets::{over_mean, BucketCells, Buckets};
use super::partition_key::{split_bucket, split_shard};
use crate::limits::MAX_SHARDS;
use std::collections::{BTreeMap, HashMap};

/// Standard deviations above the mean of an even spread that make a shard hot.
pub const HOT_DEVIATIONS: f64 = 4.0;

/// One sharded logical key and the items in each of its shards.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The logical key (`album` for `album#0` ... `album#20`).
    pub logical: String,
    /// Items per shard id; shards with no items seen count 0, up to the largest id seen. For a
    /// time-bucketed key, summed over its buckets.
    pub shards: Vec<u64>,
    /// The time buckets, when the key's shards are split into them (`reading#3#2023-10-27T15`).
    pub buckets: Option<Buckets>,
    /// Where the count of `shards` comes from.
    pub counted: Counted,
    /// Items under shard ids at or above a declared or recorded count (none without one).
    pub outside: u64,
}

/// Where a logical key's shard count comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    /// The ids the data shows, up to the largest (an empty last shard is not seen).
    Seen,
    /// The index's declared count (`--shards`).
    Declared,
    /// The count the shard metadata table records for the key (a dynamic index).
    Recorded,
}

impl Group {
    /// Items in all shards.
    pub fn total(&self) -> u64 {
        self.shards.iter().sum()
    }

    /// Items per shard on average.
    pub fn mean(&self) -> f64 {
        self.total() as f64 / self.shards.len().max(1) as f64
    }

    /// The fullest shard and its items (the lowest id on a tie).
    pub fn max(&self) -> (usize, u64) {
        let largest = self.shards.iter().copied().max().unwrap_or(0);
        (self.shards.iter().position(|&items| items == largest).unwrap_or(0), largest)
    }

    /// The fullest shard over the mean: 1.0 is perfectly even.
    pub fn max_over_mean(&self) -> f64 {
        over_mean(self.max().1, self.mean())
    }

    /// How many items make a shard hot: more than an even spread would put in it by chance. An
    /// even spread (a hash, or boundaries cut from the data) puts each of `n` items in one of
    /// `k` shards with probability `1/k`, so a shard's items have mean `n/k` and standard
    /// deviation `sqrt(n (1/k) (1 - 1/k))`; a shard above the mean by four standard deviations
    /// happens by chance about three times in 100,000 shards. (Over eight shards, 1.07x the
    /// mean is chance with ten thousand items, and 1.5x is not from a few thousand.)
    pub fn hot_threshold(&self) -> f64 {
        let (n, k) = (self.total() as f64, self.shards.len().max(1) as f64);
        let share = 1.0 / k;
        n * share + HOT_DEVIATIONS * (n * share * (1.0 - share)).sqrt()
    }

    /// Up to `top` hot shards ([`Group::hot_threshold`]), fullest first.
    pub fn hot_shards(&self, top: usize) -> Vec<(usize, u64)> {
        let threshold = self.hot_threshold();
        let mut hot: Vec<(usize, u64)> =
            self.shards.iter().copied().enumerate().filter(|&(_, items)| items as f64 > threshold).collect();
        hot.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        hot.truncate(top);
        hot
    }
}

/// Every partition key value's items, split into sharded groups and plain partitions.
#[derive(Debug, Clone, PartialEq)]
pub struct Balance {
    /// Sharded logical keys, most items first.
    pub groups: Vec<Group>,
    /// Partition key values that are not shards, most items first.
    pub unsharded: Vec<(String, u64)>,
    /// Items counted.
    pub items: u64,
    /// Distinct partition key values.
    pub partitions: usize,
}

impl Balance {
    /// Groups item counts per partition key value. A logical key counts as sharded when it has
    /// at least two shard ids and they fill most of `0..=largest id` (as shard ids do, unlike
    /// ids such as `user#1048576`); otherwise its values are plain partitions. Values ending in
    /// a shard id and a time bucket label (`reading#3#2023-10-27T15`) are grouped per logical
    /// key and bucket width, and may have a single shard. Where `count_of` gives a logical key's
    /// shard count (declared or recorded), the key has exactly that many shards when an id seen
    /// is below it, empty ones included, and the items under ids at or above it are counted
    /// apart.
    pub fn new(counts: HashMap<String, u64>, count_of: &dyn Fn(&str) -> Option<(u32, Counted)>) -> Self {
        let items = counts.values().sum();
        let partitions = counts.len();
        let mut by_logical: BTreeMap<&str, BTreeMap<u32, u64>> = BTreeMap::new();
        let mut bucketed: BTreeMap<(&str, i64), BucketCells<'_>> = BTreeMap::new();
        let mut unsharded: Vec<(String, u64)> = Vec::new();
        for (value, &count) in &counts {
            if let Some(key) = split_bucket(value) {
                let width = key.bucket.width;
                bucketed
                    .entry((key.logical, width.seconds()))
                    .or_insert_with(|| BucketCells::new(width))
                    .add(&key, count);
                continue;
            }
            let key = split_shard(value);
            match key.shard {
                Some(shard) => *by_logical.entry(key.logical).or_default().entry(shard).or_default() += count,
                None => unsharded.push((value.clone(), count)),
            }
        }
        let mut groups = Vec::new();
        for (logical, shards) in by_logical {
            let count = count_of(logical);
            match dense(&shards, 2, count.map(|(count, _)| count)) {
                Some((items, outside)) => groups.push(Group {
                    logical: logical.to_owned(),
                    shards: items,
                    buckets: None,
                    counted: count.map_or(Counted::Seen, |(_, counted)| counted),
                    outside,
                }),
                None => unsharded
                    .extend(shards.into_iter().map(|(shard, count)| (format!("{logical}#{shard}"), count))),
            }
        }
        for ((logical, _), cells) in bucketed {
            let count = count_of(logical);
            match dense(&cells.shards(), 1, count.map(|(count, _)| count)) {
                Some((items, outside)) => groups.push(Group {
                    logical: logical.to_owned(),
                    shards: items,
                    buckets: Some(cells.summarize(logical)),
                    counted: count.map_or(Counted::Seen, |(_, counted)| counted),
                    outside,
                }),
                None => unsharded.extend(cells.values(logical)),
            }
        }
        groups.sort_by(|a, b| b.total().cmp(&a.total()).then_with(|| a.logical.cmp(&b.logical)));
        unsharded.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        Self { groups, unsharded, items, partitions }
    }
}

/// Items per shard id, and the items under ids past the `declared` count. With a declared
/// count: its shards, when any id seen is below it. Without: from 0 to the largest id, when the
/// ids look like shard ids (at least `fewest` of them, below [`MAX_SHARDS`], filling more than
/// half of `0..=largest`).
fn dense(shards: &BTreeMap<u32, u64>, fewest: usize, declared: Option<u32>) -> Option<(Vec<u64>, u64)> {
    let largest = shards.keys().next_back().copied().unwrap_or(0);
    let count = match declared {
        Some(declared) if shards.keys().next().is_some_and(|&first| first < declared) => declared,
        Some(_) => return None,
        None if shards.len() < fewest || largest >= MAX_SHARDS || largest as usize >= 2 * shards.len() => {
            return None
        }
        None => largest + 1,
    };
    let mut items = vec![0; count as usize];
    let mut outside = 0;
    for (&shard, &found) in shards {
        match items.get_mut(shard as usize) {
            Some(slot) => *slot = found,
            None => outside += found,
        }
    }
    Some((items, outside))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(pairs: &[(&str, u64)]) -> HashMap<String, u64> {
        pairs.iter().map(|(value, count)| ((*value).to_owned(), *count)).collect()
    }

    #[test]
    fn groups_shards_and_fills_gaps() {
        let balance = Balance::new(
            counts(&[
                ("album#0", 10),
                ("album#1", 30),
                ("album#3", 20),
                ("Solar Fields", 4),
                ("user#1048576", 1),
                ("user#7", 1),
            ]),
            &|_| None,
        );
        assert_eq!(balance.items, 66);
        assert_eq!(balance.partitions, 6);
        assert_eq!(balance.groups.len(), 1);
        let album = &balance.groups[0];
        assert_eq!(album.shards, [10, 30, 0, 20]);
        assert_eq!(album.mean(), 15.0);
        assert_eq!(album.max(), (1, 30));
        assert_eq!(album.max_over_mean(), 2.0);
        // 60 items over 4 shards: 15 each on average, 3.35 the deviation of chance; hot above
        // 28.4.
        assert!((album.hot_threshold() - 28.416).abs() < 0.01, "{}", album.hot_threshold());
        assert_eq!(album.hot_shards(5), [(1, 30)]);
        assert_eq!(album.hot_shards(0), []);
        assert_eq!(
            balance.unsharded,
            [("Solar Fields".to_owned(), 4), ("user#1048576".to_owned(), 1), ("user#7".to_owned(), 1)]
        );
    }

    #[test]
    fn perfectly_even_shards_have_no_hot_shard() {
        let balance = Balance::new(counts(&[("a#0", 5), ("a#1", 5)]), &|_| None);
        assert_eq!(balance.groups[0].max_over_mean(), 1.0);
        assert!(balance.groups[0].hot_shards(3).is_empty());
    }

    #[test]
    fn time_buckets_group_per_key_and_width() {
        let balance = Balance::new(
            counts(&[
                ("reading#0#2023-10-27T15", 5),
                ("reading#1#2023-10-27T15", 30),
                ("reading#1#2023-10-27T16", 5),
                ("reading#0#2023-10-27", 2),
                ("event#5000#2023-10-27", 1),
                ("reading#2023-10-27T15", 1),
            ]),
            &|_| None,
        );
        assert_eq!(balance.groups.len(), 2, "{balance:?}");
        let hourly = &balance.groups[0];
        assert_eq!((hourly.logical.as_str(), hourly.shards.as_slice()), ("reading", &[5, 35][..]));
        let buckets = hourly.buckets.as_ref().expect("time buckets");
        assert_eq!(buckets.width_name(), "hour");
        assert_eq!(buckets.items, [("2023-10-27T15".to_owned(), 35), ("2023-10-27T16".to_owned(), 5)]);
        let daily = &balance.groups[1];
        assert_eq!(daily.shards, [2]);
        assert_eq!(daily.buckets.as_ref().map(Buckets::width_name), Some("day"));
        assert_eq!(
            balance.unsharded,
            [("event#5000#2023-10-27".to_owned(), 1), ("reading#2023-10-27T15".to_owned(), 1)]
        );
    }

    #[test]
    fn a_declared_count_keeps_empty_shards_and_counts_ids_past_it() {
        // Shard 7 of 8 is empty: the data alone shows 7 shards.
        let seen: Vec<(String, u64)> = (0..7).map(|shard| (format!("album#{shard}"), 100)).collect();
        let pairs: Vec<(&str, u64)> = seen.iter().map(|(value, items)| (value.as_str(), *items)).collect();
        let guessed = Balance::new(counts(&pairs), &|_| None);
        assert_eq!((guessed.groups[0].shards.len(), guessed.groups[0].counted), (7, Counted::Seen));
        let declared = Balance::new(counts(&pairs), &|_| Some((8, Counted::Declared)));
        let album = &declared.groups[0];
        assert_eq!(
            (album.shards.len(), album.shards[7], album.counted, album.outside),
            (8, 0, Counted::Declared, 0)
        );
        let past = Balance::new(counts(&[("album#0", 5), ("album#9", 2), ("solo#12", 1)]), &|_| {
            Some((8, Counted::Declared))
        });
        assert_eq!((past.groups[0].shards.len(), past.groups[0].outside), (8, 2));
        assert_eq!(past.unsharded, [("solo#12".to_owned(), 1)], "no id below the declared count");
    }

    #[test]
    fn hot_means_more_than_chance() {
        // 10,000 items over 8 shards: 1,250 on average, 33 the deviation of chance.
        let mut shards = vec![1_250; 8];
        shards[3] = 1_337; // 1.07x the mean: chance
        let group =
            Group { logical: "k".into(), shards, buckets: None, counted: Counted::Declared, outside: 0 };
        assert!(group.hot_shards(8).is_empty(), "threshold {}", group.hot_threshold());
        // 4,000 items over 8 shards, one of them at 1.5x: not chance.
        let mut shards = vec![500; 8];
        shards[0] = 750;
        let group =
            Group { logical: "k".into(), shards, buckets: None, counted: Counted::Declared, outside: 0 };
        assert_eq!(group.hot_shards(8), [(0, 750)], "threshold {}", group.hot_threshold());
    }
}
