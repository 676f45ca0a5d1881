//! The shard layout a query reads: which partitions, and how their results combine.

/// How the partitions of a sharded query combine into one ordered result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShardMode {
    /// Range shards: each holds a contiguous slice of the sort order, so reading them one after
    /// another (reversed when descending) is one sorted sequence.
    InOrder,
    /// Hash, random or time-bucket shards: every shard holds items from the whole sort order, so
    /// they are merged on the sort-key bytes.
    Merge,
}

/// The partitions a sharded query reads, in shard order, and how to combine them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Shards {
    /// The partition key value of each shard (e.g. `album#0` ... `album#20`), in shard order.
    pub partitions: Vec<String>,
    /// How their results combine.
    pub mode: ShardMode,
    /// A fingerprint of the layout (strategy, shard count, boundaries), so a cursor from another
    /// layout is rejected.
    pub layout: String,
    /// For a dynamic-sharded index, its maximum shard count: the partitions are read from the
    /// shard metadata when the query runs.
    pub dynamic: Option<u32>,
}

impl<E, F> super::Query<E, F> {
    /// Reads `shards` instead of the query's single partition. Generated code calls this.
    #[doc(hidden)]
    pub fn sharded(mut self, shards: Shards) -> Self {
        self.plan.shards = Some(shards);
        self
    }

    /// The shards this query reads, if its index is sharded.
    pub fn plan_shards(&self) -> Option<&Shards> {
        self.plan.shards.as_ref()
    }

    /// Runs at most `queries` shard queries at once (default 8).
    pub fn concurrency(mut self, queries: usize) -> Self {
        self.plan.concurrency = queries.max(1);
        self
    }
}

impl super::QueryPlan {
    /// The partition key value of shard `shard`: the plan's own partition when unsharded.
    pub(crate) fn partition(&self, shard: usize) -> &str {
        self.shards.as_ref().and_then(|shards| shards.partitions.get(shard)).unwrap_or(&self.partition_value)
    }

    /// How many partitions the plan reads (1 when unsharded).
    pub(crate) fn shard_count(&self) -> usize {
        self.shards.as_ref().map_or(1, |shards| match shards.dynamic {
            Some(max) => max as usize,
            None => shards.partitions.len(),
        })
    }
}
