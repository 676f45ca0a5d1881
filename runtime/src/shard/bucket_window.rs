//! The partitions of a time-bucketed index that a time window covers: every shard in every
//! bucket, described by the window and named one at a time, never all at once.

use super::time_bucket::TimeBucket;
use std::ops::Range;

/// The most partitions (buckets times shards) a time-bucketed query reads unless it says
/// otherwise with [`Query::max_partitions`](crate::Query::max_partitions).
///
/// A window read bucket after bucket names its partitions as the read reaches them, but a whole
/// listing still sends a request to each, and a window merged as one (an index not sorted by
/// time first) names them all before reading: a window of a year of minute buckets (525,600
/// buckets) is refused with [`Error::WindowTooWide`](crate::Error::WindowTooWide) either way.
pub const DEFAULT_MAX_PARTITIONS: u64 = 100_000;

/// The partition key of one shard in one time bucket: `{partition}#{shard}#{bucket label}`.
///
/// ```
/// use dynashard::shard::{bucket_partition, TimeBucket};
/// assert_eq!(bucket_partition("reading", 7, TimeBucket::Hour, 1_698_419_045), "reading#7#2023-10-27T15");
/// ```
pub fn bucket_partition(partition: &str, shard: u32, bucket: TimeBucket, unix_seconds: i64) -> String {
    format!("{partition}#{shard}#{}", bucket.label(unix_seconds))
}

/// The shards `shards` of the logical partition `partition` in every bucket from `from` to `to`
/// (unix seconds, both included), bucket after bucket, oldest first.
///
/// ```
/// use dynashard::shard::{BucketWindow, TimeBucket};
/// let from = 1_698_447_000; // 2023-10-27T22:50
/// let window = BucketWindow::new("reading", 0..2, TimeBucket::Hour, from, from + 3_600);
/// assert_eq!(window.partitions(), 4);
/// assert_eq!(window.partition(3).as_deref(), Some("reading#1#2023-10-27T23"));
/// let far = BucketWindow::new("reading", 0..16, TimeBucket::Minute, i64::MIN, i64::MAX);
/// assert_eq!(far.partitions(), 16 * 307_445_734_561_825_862);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
pub struct BucketWindow {
    /// The logical partition key, before the shard and the bucket.
    pub partition: String,
    /// The shards read in every bucket.
    pub shards: Range<u32>,
    /// The width of the buckets.
    pub bucket: TimeBucket,
    /// The window's first second (unix seconds).
    pub from: i64,
    /// The window's last second (unix seconds), included.
    pub to: i64,
}

impl BucketWindow {
    /// The window from `from` to `to` over `shards` of `partition`.
    pub fn new(
        partition: impl Into<String>,
        shards: Range<u32>,
        bucket: TimeBucket,
        from: i64,
        to: i64,
    ) -> Self {
        Self { partition: partition.into(), shards, bucket, from, to }
    }

    /// How many buckets the window overlaps.
    pub fn buckets(&self) -> u64 {
        self.bucket.count_between(self.from, self.to)
    }

    /// How many partitions the window covers: buckets times shards, exact.
    pub fn partitions(&self) -> u128 {
        u128::from(self.buckets()) * u128::from(self.shards.end.saturating_sub(self.shards.start))
    }

    /// The partition key of partition `n`, bucket after bucket and shard after shard within a
    /// bucket; `None` past the last.
    pub fn partition(&self, n: u128) -> Option<String> {
        let width = u128::from(self.shards.end.saturating_sub(self.shards.start));
        if n >= self.partitions() {
            return None;
        }
        let (bucket, shard) = (n / width, n % width);
        let step = i128::from(self.bucket.seconds());
        let first = i128::from(self.from) - i128::from(self.from).rem_euclid(step);
        // Only the first bucket can start before `i64::MIN`: its label is that of `from`.
        let start = i64::try_from(first + i128::try_from(bucket).ok()? * step).unwrap_or(self.from);
        let shard = self.shards.start + u32::try_from(shard).ok()?;
        Some(bucket_partition(&self.partition, shard, self.bucket, start))
    }

    /// Every partition key of the window, in order, when there are at most `max`; otherwise the
    /// number there are.
    pub fn partition_keys(&self, max: u64) -> Result<Vec<String>, u128> {
        let count = self.partitions();
        if count > u128::from(max) {
            return Err(count);
        }
        let shards = self.shards.clone();
        Ok(self
            .bucket
            .starts_between(self.from, self.to)
            .flat_map(|start| shards.clone().map(move |shard| (shard, start)))
            .map(|(shard, start)| bucket_partition(&self.partition, shard, self.bucket, start))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_walk_buckets_then_shards() {
        let from = 1_698_447_000; // 2023-10-27T22:50
        let window = BucketWindow::new("reading", 0..2, TimeBucket::Hour, from, from + 3_600);
        let keys = window.partition_keys(10).expect("within the bound");
        assert_eq!(
            keys,
            [
                "reading#0#2023-10-27T22",
                "reading#1#2023-10-27T22",
                "reading#0#2023-10-27T23",
                "reading#1#2023-10-27T23"
            ]
        );
        let named: Vec<String> = (0..4).filter_map(|n| window.partition(n)).collect();
        assert_eq!(named, keys);
        assert_eq!(window.partition(4), None);
        assert_eq!(window.partition_keys(3), Err(4));
        let empty = BucketWindow::new("r", 0..2, TimeBucket::Hour, 10, 5);
        assert_eq!(empty.partition_keys(0), Ok(Vec::new()));
    }

    #[test]
    fn extreme_windows_are_counted_not_planned() {
        for bucket in [TimeBucket::Minute, TimeBucket::Hour, TimeBucket::Day] {
            for (from, to) in [(i64::MIN, i64::MAX), (0, i64::MAX), (i64::MIN, 0), (i64::MAX - 1, i64::MAX)] {
                let window = BucketWindow::new("p", 0..10_000, bucket, from, to);
                let buckets = u128::from(window.buckets());
                let step = i128::from(bucket.seconds());
                let exact = (i128::from(to).div_euclid(step) - i128::from(from).div_euclid(step) + 1) as u128;
                assert_eq!(buckets, exact, "{bucket:?} {from}..={to}");
                assert_eq!(window.partitions(), exact * 10_000);
                if window.partitions() > 100 {
                    assert_eq!(window.partition_keys(100), Err(window.partitions()));
                }
                assert!(window.partition(0).is_some());
                let last = window.partition(window.partitions() - 1).expect("the last partition");
                assert_eq!(last, bucket_partition("p", 9_999, bucket, to));
            }
        }
    }

    #[test]
    fn the_first_and_last_buckets_of_time_itself_have_labels() {
        let window = BucketWindow::new("p", 0..1, TimeBucket::Minute, i64::MIN, i64::MIN + 120);
        let keys = window.partition_keys(10).expect("three buckets");
        assert_eq!(keys.len(), 3);
        assert!(keys.windows(2).all(|pair| pair[0] != pair[1]), "{keys:?}");
        let last = BucketWindow::new("p", 0..1, TimeBucket::Day, i64::MAX - 86_400, i64::MAX);
        assert_eq!(last.partition_keys(10).map(|keys| keys.len()), Ok(2));
    }
}
