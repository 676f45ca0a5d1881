//! How an item being built gets the shard of a dynamic-sharded index: the count is not part of
//! the layout, so whoever builds the item supplies it.

use crate::error::{Error, Result};

/// Picks the shard of a dynamic-sharded index for an item being built. Generated
/// `write_index_keys` code calls it; puts and batch writes supply one backed by the `Db`'s
/// shard counts.
pub trait ShardChooser: Sync {
    /// The shard of the item in `index`, whose logical partition key is `partition`, where at
    /// most `max` shards are allowed.
    fn dynamic_shard(&self, index: &'static str, partition: &str, max: u32) -> Result<u32>;

    /// The shard, of `shards` random ones, of an item in the time bucket labelled `bucket` of
    /// the logical partition `partition` of `index`, an index that keeps a bucket directory.
    /// Uniformly random unless overridden: a `Db`'s writes keep one shard a bucket while they
    /// write it slowly, so that its readers read fewer partitions.
    fn bucket_shard(&self, index: &'static str, partition: &str, bucket: &str, shards: u32) -> u32 {
        let _ = (index, partition, bucket);
        super::random_shard(shards)
    }
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
