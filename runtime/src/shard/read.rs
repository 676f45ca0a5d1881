//! What a sharded read is told by its layout: the partitions it reads, how their results
//! combine, and how conditions on the routing value prune them.

use super::{shard_partition, sub_shard_partition, BucketWindow, Layout};
use serde::Serialize;

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
#[derive(Debug, Clone, PartialEq, Eq)]
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
    /// The layout read (strategy, shard count, boundaries), so a cursor from another layout is
    /// rejected.
    pub layout: Layout,
    /// The index read in place of the query's own: a resharding's target, past its cut-over.
    pub target: Option<String>,
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

    /// The partitions of a time window, named when the query runs.
    pub(crate) fn bucketed(window: BucketWindow, mode: ShardMode, layout: Layout) -> Self {
        Shards { partitions: Vec::new(), window: Some(window), mode, layout, target: None, directory: false }
    }

    /// `partitions` read in `mode`, laid out by `layout`.
    pub fn of(partitions: Vec<String>, mode: ShardMode, layout: Layout) -> Self {
        Shards { partitions, window: None, mode, layout, target: None, directory: false }
    }
}

/// What a query reads of a mapping: logical partition `partition`, only `one_shard` when the
/// query's arguments name it, and for time buckets the `window` (unix seconds, both included),
/// bucket after bucket when `in_time_order`, only where the directory lists partitions when
/// `directory`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Read<'a> {
    pub partition: &'a str,
    pub one_shard: Option<u32>,
    pub window: Option<(i64, i64)>,
    pub in_time_order: bool,
    pub directory: bool,
}

impl<'a> Read<'a> {
    /// Every shard of logical partition `partition`, without a window.
    pub(crate) fn whole(partition: &'a str) -> Self {
        Read { partition, one_shard: None, window: None, in_time_order: false, directory: false }
    }
}

impl Layout {
    /// The partitions `read` reads in this layout, and how they combine.
    pub(crate) fn plan(&self, read: Read<'_>) -> Shards {
        let every = |count: u32| (0..count).map(|shard| shard_partition(read.partition, shard)).collect();
        match self {
            Layout::Bucketed { bucket, shards: count, .. } => {
                let (from, to) = read.window.unwrap_or((1, 0));
                let (range, mode) = match read.one_shard {
                    Some(one) => (one..one + 1, ShardMode::Buckets),
                    None if read.in_time_order => (0..*count, ShardMode::Buckets),
                    None => (0..*count, ShardMode::Merge),
                };
                let window = BucketWindow::new(read.partition, range, *bucket, from, to);
                Shards { directory: read.directory, ..Shards::bucketed(window, mode, self.clone()) }
            }
            Layout::Hash { .. } => match read.one_shard {
                Some(one) => {
                    Shards::of(vec![shard_partition(read.partition, one)], ShardMode::InOrder, self.clone())
                }
                None => Shards::of(every(self.shards()), ShardMode::Merge, self.clone()),
            },
            // A count not read yet names no partition: the query plans again once it is read.
            Layout::Dynamic { readable: None, .. } => Shards::of(Vec::new(), ShardMode::Merge, self.clone()),
            Layout::Range { overflow, .. } if *overflow > 1 => {
                let overflow = *overflow;
                let partitions = (0..self.shards())
                    .flat_map(|shard| (0..overflow).map(move |sub| (shard, sub)))
                    .map(|(shard, sub)| sub_shard_partition(read.partition, shard, sub))
                    .collect();
                Shards::of(partitions, ShardMode::Merge, self.clone())
            }
            Layout::Range { .. } => Shards::of(every(self.shards()), ShardMode::InOrder, self.clone()),
            // Random shards, one partition a key, and any layout whose every shard holds items
            // from the whole sort order: every shard, merged.
            _ => Shards::of(every(self.shards()), ShardMode::Merge, self.clone()),
        }
    }
}
