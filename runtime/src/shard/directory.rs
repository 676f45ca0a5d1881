//! The directory of a time-bucketed index's non-empty partitions, as keys and plain functions.
//!
//! An index declared with `#[shard(..., bucket = "minute", at = field, directory)]` keeps, in
//! its table, one directory item per (logical partition, bucket) that any write placed an item
//! in, listing the shards written: `{pk: "\u{10FFFF}buckets#{index}#{partition}", sk: the bucket,
//! shards: {3, 7}}`. Writers record a (bucket, shard) before the first item they put in it (once
//! per process); readers read the directory of their window and read only the partitions it
//! lists. The partition key starts with U+10FFFF, which no key dynashard writes can hold, and the
//! items have no type attribute, so no entity read or scan ever meets them.

use super::TimeBucket;
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::sync::{Mutex, PoisonError};

/// The attribute of a directory item listing the shards written in its bucket (a number set).
pub const DIRECTORY_SHARDS: &str = "shards";

/// The partition key of the directory of the logical partition `partition` of `index`; one
/// that would pass DynamoDB's 2,048 bytes names the partition by its SHA-256 instead.
///
/// ```
/// use dynashard::shard::directory_partition;
/// assert_eq!(directory_partition("Readings", "reading"), "\u{10FFFF}buckets#Readings#reading");
/// assert!(directory_partition("Readings", &"r".repeat(2_040)).len() < 400);
/// ```
pub fn directory_partition(index: &str, partition: &str) -> String {
    let key = format!("\u{10FFFF}buckets#{index}#{partition}");
    if key.len() <= MAX_PARTITION_KEY_BYTES {
        return key;
    }
    let digest: String =
        Sha256::digest(partition.as_bytes()).iter().map(|byte| format!("{byte:02x}")).collect();
    format!("\u{10FFFF}buckets#{index}#\u{10FFFF}sha256#{digest}")
}

/// DynamoDB's bound on a partition key value.
const MAX_PARTITION_KEY_BYTES: usize = 2_048;

/// The sort key of the bucket starting at `start` (unix seconds) in a directory: fixed-width
/// hexadecimal of the start with its sign bit flipped, so text order is time order over the
/// whole range of `i64`.
///
/// ```
/// use dynashard::shard::directory_sort_key;
/// assert_eq!(directory_sort_key(0), "8000000000000000");
/// assert!(directory_sort_key(-60) < directory_sort_key(0));
/// assert!(directory_sort_key(i64::MIN) < directory_sort_key(i64::MAX));
/// ```
pub fn directory_sort_key(start: i64) -> String {
    format!("{:016x}", (start as u64) ^ (1 << 63))
}

/// The bucket start a directory sort key holds; `None` for other text.
pub fn bucket_of_directory_key(key: &str) -> Option<i64> {
    if key.len() != 16 {
        return None;
    }
    u64::from_str_radix(key, 16).ok().map(|bits| (bits ^ (1 << 63)) as i64)
}

/// One partition of a time-bucketed index that holds, or held, an item: what a writer records in
/// the directory before writing there.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BucketPartition {
    /// The index.
    pub index: &'static str,
    /// The logical partition key, before the shard and the bucket.
    pub partition: String,
    /// The shard.
    pub shard: u32,
    /// The bucket's start (unix seconds).
    pub start: i64,
}

impl BucketPartition {
    /// The partition of `index` named by the partition key value `key`
    /// (`{partition}#{shard}#{bucket label}`, as [`bucket_partition`](super::bucket_partition)
    /// writes it); `None` when `key` is not one.
    ///
    /// ```
    /// use dynashard::shard::{BucketPartition, TimeBucket};
    /// let read = BucketPartition::of_key("Readings", TimeBucket::Hour, "reading#7#2023-10-27T15");
    /// let read = read.expect("a bucket partition");
    /// assert_eq!((read.partition.as_str(), read.shard, read.start), ("reading", 7, 1_698_418_800));
    /// ```
    pub fn of_key(index: &'static str, bucket: TimeBucket, key: &str) -> Option<Self> {
        let (rest, label) = key.rsplit_once('#')?;
        let (partition, shard) = rest.rsplit_once('#')?;
        let digits = !shard.is_empty() && shard.bytes().all(|byte| byte.is_ascii_digit());
        let shard = shard.parse().ok().filter(|_| digits)?;
        let start = bucket.start_of(label)?;
        Some(BucketPartition { index, partition: partition.to_owned(), shard, start })
    }
}

/// The most directory entries a `Db` remembers having recorded; past it, it forgets them all
/// and records each again once (an `ADD` that changes nothing).
const REMEMBERED: usize = 100_000;

/// The directory entries a `Db` (and its clones) recorded: `(table name, partition)`.
#[derive(Debug, Default)]
pub(crate) struct RecordedBuckets {
    recorded: Mutex<HashSet<(String, BucketPartition)>>,
}

impl RecordedBuckets {
    pub(crate) fn contains(&self, entry: &(String, BucketPartition)) -> bool {
        self.recorded.lock().unwrap_or_else(PoisonError::into_inner).contains(entry)
    }

    pub(crate) fn insert(&self, entry: (String, BucketPartition)) {
        let mut recorded = self.recorded.lock().unwrap_or_else(PoisonError::into_inner);
        if recorded.len() >= REMEMBERED {
            recorded.clear();
        }
        recorded.insert(entry);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shard::bucket_partition;

    #[test]
    fn directory_keys_sort_as_their_times() {
        let mut starts = vec![i64::MIN, i64::MIN + 60, -86_400, -60, -1, 0, 60, 1_698_418_800, i64::MAX];
        starts.sort_unstable();
        let keys: Vec<String> = starts.iter().map(|&start| directory_sort_key(start)).collect();
        assert!(keys.windows(2).all(|pair| pair[0] < pair[1]), "{keys:?}");
        for (&start, key) in starts.iter().zip(&keys) {
            assert_eq!(bucket_of_directory_key(key), Some(start));
        }
        assert_eq!(bucket_of_directory_key("800000000000000"), None);
        assert_eq!(bucket_of_directory_key("zz00000000000000"), None);
    }

    #[test]
    fn partition_keys_read_back_whatever_the_logical_key_holds() {
        for bucket in [TimeBucket::Minute, TimeBucket::Hour, TimeBucket::Day] {
            for time in [i64::MIN, -1, 0, 1_698_419_045, i64::MAX] {
                for partition in ["", "reading", "a#b#7", "#", "x#12#2023-10-27"] {
                    let key = bucket_partition(partition, 12, bucket, time);
                    let read = BucketPartition::of_key("I", bucket, &key).expect("a bucket partition");
                    let expected = BucketPartition {
                        index: "I",
                        partition: partition.to_owned(),
                        shard: 12,
                        start: bucket.start(time),
                    };
                    assert_eq!(read, expected, "{key}");
                }
            }
        }
        for key in
            ["reading#2023-10-27T15", "reading#x#2023-10-27T15", "reading#7#2023-10-27", "r#-1#2023-10-27T15"]
        {
            assert_eq!(BucketPartition::of_key("I", TimeBucket::Hour, key), None, "{key}");
        }
    }
}
