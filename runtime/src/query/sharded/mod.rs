//! Running a query over its partitions: one after another (range shards, and the single partition
//! of an unsharded query), or merged on the sort-key bytes (hash, random and time-bucket shards).

pub(crate) mod cursor;
mod heap;
pub(crate) mod in_order;
pub(crate) mod merge;

use super::QueryPlan;
use crate::error::Item;

/// Where a read starts: at the beginning, or right after the last item of an earlier page.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Start {
    /// Partitions one after another: the shard to read and the key to resume after in it.
    InOrder { shard: usize, after: Option<Item> },
    /// Merged partitions: where each shard stands, in shard order.
    Merge(Vec<ShardPosition>),
}

/// Where one shard of a merged read stands.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ShardPosition {
    /// Nothing of it was emitted yet.
    NotStarted,
    /// Resume after the item with these key attributes (the last one emitted from it).
    After(Item),
    /// Every item of it was emitted.
    Exhausted,
}

/// The `Limit` of a request: the page size, or fewer when a limit leaves fewer items wanted
/// (`buffered` of them already at hand), plus one when an item may be dropped client-side.
pub(crate) fn request_limit(plan: &QueryPlan, remaining: Option<usize>, buffered: usize) -> Option<usize> {
    let wanted = remaining.map(|remaining| {
        let missing = remaining.saturating_sub(buffered).max(1);
        missing + usize::from(plan.range.excludes_any())
    });
    match (plan.page_size, wanted) {
        (Some(size), Some(wanted)) => Some(size.min(wanted)),
        (size, wanted) => size.or(wanted),
    }
}
