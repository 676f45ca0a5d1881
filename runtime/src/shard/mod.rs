//! Write sharding as data and plain functions: the layouts `#[shard(...)]` declares and the
//! routing they run, with no I/O.
//!
//! - [`Layout`]: the one description of how a mapping's items are laid out (its strategy with
//!   what it needs); it routes writes, plans reads, binds cursors and is what a resharding moves
//!   a mapping to. Every `match` on the strategy is in its file;
//! - [`ShardSpec`]: one mapping's sharding as the derive emits it (`Entity::SHARDS`): its index,
//!   its `by` attributes and its layout;
//! - [`hash_shard`]: SHA-256 of the value, big-endian, modulo the shard count;
//! - [`Boundaries`]: ordered range shards cut from the data's own distribution, routing on a
//!   [`Normalization`] of the value ([`crate::use_boundaries`] replaces an index's compiled
//!   boundaries at run time);
//! - [`TimeBucket`]: UTC time buckets, combined with a hash of the entity, and the directory of
//!   their non-empty partitions ([`directory_partition`]);
//! - [`Shards`]: what a sharded read reads, planned from its layout.
//!
//! They compute the same shard ids as the equivalent Python, so services in other languages can
//! route alike.

/// The most shards one index mapping may have: `#[shard(...)]` refuses larger counts (and range
/// boundaries files with more boundaries), and so does the `dynashard` command.
pub const MAX_SHARDS: u32 = 10_000;

mod affinity;
mod boundaries;
mod bucket_window;
mod chooser;
mod directory;
mod hash;
mod layout;
mod normalize;
mod range_shards;
mod read;
mod routing_text;
mod sort_key;
mod spec;
mod time_bucket;

pub(crate) use affinity::BucketAffinity;
pub use affinity::STICKY_WRITES_PER_SECOND;
pub use boundaries::{Boundaries, BoundariesError};
pub use bucket_window::{bucket_partition, BucketWindow, DEFAULT_MAX_PARTITIONS};
pub use chooser::{NoDynamicShards, ShardChooser};
pub(crate) use directory::RecordedBuckets;
pub use directory::{
    bucket_of_directory_key, directory_partition, directory_sort_key, BucketPartition, DIRECTORY_SHARDS,
};
pub use hash::{
    hash_bytes_shard, hash_shard, logical_partition, overflow_partition, random_shard, shard_partition,
    sub_shard_partition,
};
pub(crate) use layout::Binding;
pub use layout::{BoundarySource, Layout};
pub use normalize::Normalization;
pub use range_shards::RangeShards;
pub(crate) use read::Read;
pub use read::{ShardMode, Shards};
pub use routing_text::RoutingText;
pub use sort_key::{normalized_prefix, range_sort_key, PART_SEPARATOR};
pub use spec::ShardSpec;
pub use time_bucket::{BucketTime, TimeBucket};
