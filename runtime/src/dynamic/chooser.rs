//! How an item being built gets the shard of a dynamic-sharded index: from counts resolved
//! before the item is built.

use crate::error::{Error, Result};
use crate::metadata::ShardMetadata;
use crate::shard::{random_shard, BucketAffinity, ShardChooser};
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

/// A dynamic-sharded partition an item is written to: its index, logical partition key,
/// metadata key and maximum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DynamicTarget {
    pub index: &'static str,
    pub partition: String,
    pub key: String,
    pub max: u32,
}

impl DynamicTarget {
    /// The error of a write whose count for this partition is not known.
    pub fn unresolved(&self) -> Error {
        Error::DynamicShardsUnresolved { index: self.index, partition: self.partition.clone() }
    }
}

/// Chooses from the counts a `Db` has cached (a random shard in `0..count`) and records every
/// dynamic-sharded partition the item is written to. A partition whose count is not cached gets
/// shard 0 and is recorded as missing: the write reads its count and writes the index keys again.
pub(crate) struct Choice<'a> {
    shards: Option<&'a ShardMetadata>,
    table: &'a str,
    recorded: Mutex<Recorded>,
    /// The shard of each directory-listed time bucket the `Db` writes.
    buckets: Option<&'a BucketAffinity>,
}

/// What a [`Choice`] saw.
#[derive(Debug, Default)]
pub(crate) struct Recorded {
    /// Every dynamic-sharded partition written.
    pub targets: Vec<DynamicTarget>,
    /// Those whose counts were not cached.
    pub missing: Vec<DynamicTarget>,
}

impl<'a> Choice<'a> {
    /// Chooses from `shards` (none: every count is missing) for items of the table named `table`.
    pub fn new(shards: Option<&'a ShardMetadata>, table: &'a str) -> Self {
        Choice { shards, table, recorded: Mutex::default(), buckets: None }
    }

    /// Picks the shards of directory-listed time buckets as `buckets` keeps them.
    pub fn with_buckets(self, buckets: &'a BucketAffinity) -> Self {
        Choice { buckets: Some(buckets), ..self }
    }

    /// What was chosen.
    pub fn into_recorded(self) -> Recorded {
        self.recorded.into_inner().unwrap_or_else(PoisonError::into_inner)
    }
}

impl ShardChooser for Choice<'_> {
    fn dynamic_shard(&self, index: &'static str, partition: &str, max: u32) -> Result<u32> {
        let key = ShardMetadata::key(self.table, index, partition);
        let cached = self.shards.and_then(|shards| shards.cached(&key));
        let mut recorded = self.recorded.lock().unwrap_or_else(PoisonError::into_inner);
        if recorded.targets.iter().all(|known| known.key != key) {
            let target = DynamicTarget { index, partition: partition.to_owned(), key, max };
            if cached.is_none() {
                recorded.missing.push(target.clone());
            }
            recorded.targets.push(target);
        }
        Ok(cached.map_or(0, |state| random_shard(state.count.clamp(1, max.max(1)))))
    }

    fn bucket_shard(&self, index: &'static str, partition: &str, bucket: &str, shards: u32) -> u32 {
        match self.buckets {
            Some(buckets) => {
                let key = format!("{}\u{0}{index}\u{0}{partition}\u{0}{bucket}", self.table);
                buckets.shard(&key, shards, Instant::now())
            }
            None => random_shard(shards),
        }
    }
}
