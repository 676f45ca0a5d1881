//! How an item being built gets the shard of a dynamic-sharded index: from counts resolved
//! before the item is built.

use super::ShardMetadata;
use crate::error::{Error, Result};
use crate::shard::random_shard;
use std::sync::Mutex;

/// Picks the shard of a dynamic-sharded index for an item being built. Generated
/// `write_index_keys` code calls it; puts and batch writes supply one backed by the `Db`'s
/// shard counts.
pub trait ShardChooser: Sync {
    /// The shard of the item in `index`, whose logical partition key is `partition`, where at
    /// most `max` shards are allowed.
    fn dynamic_shard(&self, index: &'static str, partition: &str, max: u32) -> Result<u32>;
}

/// The chooser of items built without a `Db`: a dynamic-sharded index fails with
/// [`Error::DynamicShardsUnresolved`].
#[derive(Debug, Default, Clone, Copy)]
pub struct NoDynamicShards;

impl ShardChooser for NoDynamicShards {
    fn dynamic_shard(&self, index: &'static str, partition: &str, _max: u32) -> Result<u32> {
        Err(Error::DynamicShardsUnresolved { index, partition: partition.to_owned() })
    }
}

/// Chooses from the counts a `Db` has cached: a random shard in `0..count`.
pub(crate) struct CachedShards<'a> {
    pub shards: &'a ShardMetadata,
    pub table: &'a str,
}

impl ShardChooser for CachedShards<'_> {
    fn dynamic_shard(&self, index: &'static str, partition: &str, max: u32) -> Result<u32> {
        let key = ShardMetadata::key(self.table, index, partition);
        match self.shards.cached(&key) {
            Some(state) => Ok(random_shard(state.count.clamp(1, max.max(1)))),
            None => Err(Error::DynamicShardsUnresolved { index, partition: partition.to_owned() }),
        }
    }
}

/// A dynamic-sharded partition an item is written to: its index, metadata key and maximum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DynamicTarget {
    pub index: &'static str,
    pub key: String,
    pub max: u32,
}

/// Records which dynamic partitions an item needs, choosing shard 0.
pub(crate) struct Recorder<'a> {
    pub table: &'a str,
    pub needed: Mutex<Vec<DynamicTarget>>,
}

impl ShardChooser for Recorder<'_> {
    fn dynamic_shard(&self, index: &'static str, partition: &str, max: u32) -> Result<u32> {
        let key = ShardMetadata::key(self.table, index, partition);
        let mut needed = self.needed.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if !needed.iter().any(|known| known.key == key) {
            needed.push(DynamicTarget { index, key, max });
        }
        Ok(0)
    }
}
