//! The time buckets of a time-bucketed sharded key: items per bucket over all its shards, and
//! its fullest partition (one shard in one bucket).

use super::partition_key::BucketKey;
use dynashard::shard::TimeBucket;
use std::collections::BTreeMap;

/// Items per shard and bucket of one logical key and bucket width, as they are counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketCells<'a> {
    width: TimeBucket,
    /// Items per shard, then per bucket start (with the bucket's label).
    cells: BTreeMap<u32, BTreeMap<i64, (&'a str, u64)>>,
}

impl<'a> BucketCells<'a> {
    /// No items yet, in buckets of `width`.
    pub fn new(width: TimeBucket) -> Self {
        Self { width, cells: BTreeMap::new() }
    }

    /// Counts `items` in the shard and bucket of `key`.
    pub fn add(&mut self, key: &BucketKey<'a>, items: u64) {
        let shard = self.cells.entry(key.shard).or_default();
        shard.entry(key.bucket.start).or_insert((key.label, 0)).1 += items;
    }

    /// Items per shard id over all buckets, lowest id first.
    pub fn shards(&self) -> BTreeMap<u32, u64> {
        self.cells
            .iter()
            .map(|(&shard, buckets)| (shard, buckets.values().map(|cell| cell.1).sum()))
            .collect()
    }

    /// Every partition key value with its items: `{logical}#{shard}#{label}`.
    pub fn values(&self, logical: &str) -> Vec<(String, u64)> {
        let cells =
            self.cells.iter().flat_map(|(shard, buckets)| buckets.values().map(move |cell| (shard, cell)));
        cells.map(|(shard, (label, items))| (format!("{logical}#{shard}#{label}"), *items)).collect()
    }

    /// The summary of the buckets of `logical`.
    pub fn summarize(&self, logical: &str) -> Buckets {
        let mut per_bucket: BTreeMap<i64, (&str, u64)> = BTreeMap::new();
        let mut fullest: Option<(u32, &str, u64)> = None;
        let mut partitions = 0;
        for (&shard, buckets) in &self.cells {
            for (&start, &(label, items)) in buckets {
                per_bucket.entry(start).or_insert((label, 0)).1 += items;
                partitions += 1;
                if fullest.is_none_or(|(_, _, most)| items > most) {
                    fullest = Some((shard, label, items));
                }
            }
        }
        let fullest = fullest.map_or((String::new(), 0), |(shard, label, items)| {
            (format!("{logical}#{shard}#{label}"), items)
        });
        let items = per_bucket.into_values().map(|(label, items)| (label.to_owned(), items)).collect();
        Buckets { width: self.width, items, partitions, fullest }
    }
}

/// The time buckets of one sharded key.
#[derive(Debug, Clone, PartialEq)]
pub struct Buckets {
    /// The bucket width.
    pub width: TimeBucket,
    /// Items per bucket over all shards, oldest first; buckets without items are not listed.
    pub items: Vec<(String, u64)>,
    /// Partitions (one shard in one bucket) with items.
    pub partitions: usize,
    /// The fullest partition's key value and items (the lowest shard, then the oldest bucket, on
    /// a tie).
    pub fullest: (String, u64),
}

impl Buckets {
    /// The width's name: `minute`, `hour` or `day`.
    pub fn width_name(&self) -> &'static str {
        match self.width {
            TimeBucket::Minute => "minute",
            TimeBucket::Hour => "hour",
            TimeBucket::Day => "day",
        }
    }

    /// Items in all buckets.
    pub fn total(&self) -> u64 {
        self.items.iter().map(|(_, items)| items).sum()
    }

    /// Items per bucket on average.
    pub fn mean(&self) -> f64 {
        self.total() as f64 / self.items.len().max(1) as f64
    }

    /// Items per partition on average.
    pub fn partition_mean(&self) -> f64 {
        self.total() as f64 / self.partitions.max(1) as f64
    }

    /// The fullest bucket's label and items (the oldest on a tie).
    pub fn max(&self) -> (&str, u64) {
        let largest = self.items.iter().map(|(_, items)| *items).max().unwrap_or(0);
        self.items
            .iter()
            .find(|(_, items)| *items == largest)
            .map_or(("", 0), |(label, items)| (label, *items))
    }

    /// The fullest bucket over the mean: 1.0 is perfectly even.
    pub fn max_over_mean(&self) -> f64 {
        over_mean(self.max().1, self.mean())
    }

    /// Up to `top` buckets above the mean, fullest first (the oldest first on a tie).
    pub fn hot_buckets(&self, top: usize) -> Vec<(&str, u64)> {
        let mean = self.mean();
        let mut hot: Vec<(&str, u64)> = self
            .items
            .iter()
            .filter(|(_, items)| *items as f64 > mean)
            .map(|(label, items)| (label.as_str(), *items))
            .collect();
        // A stable sort keeps the oldest first among equals.
        hot.sort_by_key(|&(_, items)| std::cmp::Reverse(items));
        hot.truncate(top);
        hot
    }

    /// The oldest and the newest bucket's labels.
    pub fn span(&self) -> (&str, &str) {
        let first = self.items.first().map_or("", |(label, _)| label.as_str());
        let last = self.items.last().map_or("", |(label, _)| label.as_str());
        (first, last)
    }
}

/// `value` over `mean`; 0 when the mean is 0 (nothing was counted).
pub fn over_mean(value: u64, mean: f64) -> f64 {
    if mean > 0.0 {
        value as f64 / mean
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inspect::partition_key::split_bucket;

    fn cells<'a>(values: &[(&'a str, u64)]) -> BucketCells<'a> {
        let mut cells = BucketCells::new(TimeBucket::Hour);
        for (value, items) in values {
            cells.add(&split_bucket(value).expect("a bucketed value"), *items);
        }
        cells
    }

    #[test]
    fn sums_shards_over_buckets_and_buckets_over_shards() {
        let cells = cells(&[
            ("r#0#2023-10-27T15", 5),
            ("r#1#2023-10-27T15", 30),
            ("r#0#2023-10-27T09", 5),
            ("r#1#2023-10-27T09", 5),
            ("r#1#2023-10-28T00", 10),
        ]);
        assert_eq!(cells.shards(), BTreeMap::from([(0, 10), (1, 45)]));
        let buckets = cells.summarize("r");
        let labels: Vec<(&str, u64)> =
            buckets.items.iter().map(|(label, items)| (label.as_str(), *items)).collect();
        assert_eq!(labels, [("2023-10-27T09", 10), ("2023-10-27T15", 35), ("2023-10-28T00", 10)]);
        assert_eq!(buckets.span(), ("2023-10-27T09", "2023-10-28T00"));
        assert_eq!((buckets.partitions, buckets.total()), (5, 55));
        assert_eq!(buckets.fullest, ("r#1#2023-10-27T15".to_owned(), 30));
        assert_eq!(buckets.max(), ("2023-10-27T15", 35));
        assert_eq!(buckets.hot_buckets(5), [("2023-10-27T15", 35)]);
        assert_eq!(buckets.width_name(), "hour");
        assert_eq!(cells.values("r").len(), 5);
    }

    #[test]
    fn ties_go_to_the_oldest_bucket() {
        let buckets = cells(&[("r#0#2023-10-27T15", 9), ("r#0#2023-10-27T14", 9), ("r#0#2023-10-27T16", 1)]);
        let buckets = buckets.summarize("r");
        assert_eq!(buckets.max(), ("2023-10-27T14", 9));
        assert_eq!(buckets.hot_buckets(5), [("2023-10-27T14", 9), ("2023-10-27T15", 9)]);
        assert_eq!(buckets.fullest.0, "r#0#2023-10-27T14");
    }
}
