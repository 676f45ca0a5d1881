//! What a sharded read is told by its layout: the partitions it reads, how their results
//! combine, and how conditions on the routing value prune them.

use super::{Boundaries, BucketWindow, Normalization, ShardLayout};
use serde::Serialize;
use std::sync::Arc;

/// How the partitions of a sharded query combine into one ordered result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ShardMode {
    /// Range shards: each holds a contiguous slice of the sort order, so reading them one after
    /// another (reversed when descending) is one sorted sequence.
    InOrder,
    /// Hash, random or time-bucket shards: every shard holds items from the whole sort order, so
    /// they are merged on the sort-key bytes.
    Merge,
    /// Time buckets one after another (reversed when descending), the shards of each merged on
    /// the sort-key bytes: the order of an index sorted by its time first, and of one entity's
    /// readings. Buckets are named as the read reaches them.
    Buckets,
}

/// The partitions a sharded query reads, in shard order, and how to combine them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Shards {
    /// The partition key value of each shard (e.g. `album#0` ... `album#20`), in shard order.
    /// Empty until the partitions of a `window` are named.
    pub partitions: Vec<String>,
    /// For a time-bucketed index, the buckets and shards of the query's window: the partitions
    /// are named when the query runs, within its
    /// [`max_partitions`](crate::Query::max_partitions).
    pub window: Option<BucketWindow>,
    /// How their results combine.
    pub mode: ShardMode,
    /// The layout (strategy, shard count, boundaries), so a cursor from another layout is
    /// rejected.
    pub layout: ShardLayout,
    /// For a dynamic-sharded index, its maximum shard count: the partitions are read from the
    /// shard metadata when the query runs.
    pub dynamic: Option<u32>,
    /// For a time-bucketed index declared with `directory`: the window's partitions are read
    /// only where the index's bucket directory lists them.
    pub directory: bool,
}

impl Shards {
    /// The partition keys this layout reads: `partitions`, or those of its time window when it
    /// has one (at most `max` of them; a wider window is
    /// [`Error::WindowTooWide`](crate::Error::WindowTooWide)).
    pub fn partition_keys(&self, max: u64) -> crate::error::Result<Vec<String>> {
        match (&self.window, self.partitions.is_empty()) {
            (Some(window), true) => window
                .partition_keys(max)
                .map_err(|partitions| crate::error::Error::WindowTooWide { partitions, max }),
            _ => Ok(self.partitions.clone()),
        }
    }

    /// The partitions of a time window, named when the query runs. Generated code calls this.
    #[doc(hidden)]
    pub fn bucketed(window: BucketWindow, mode: ShardMode, layout: ShardLayout) -> Self {
        Shards { partitions: Vec::new(), window: Some(window), mode, layout, dynamic: None, directory: false }
    }
}

/// How a sharded query maps routing values to shards.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub enum Routing {
    /// Hash shards chosen by the text of sort-key placeholder number `placeholder`.
    Hash { shards: u32, placeholder: usize },
    /// Range shards over normalized values, each split into `overflow` sub-shards (1: none).
    Range { boundaries: Arc<Boundaries>, normalization: Normalization, overflow: u32 },
}
