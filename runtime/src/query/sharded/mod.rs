//! Running a query over its partitions as one ordered result: the single partition of an
//! unsharded query, range shards one after another, hash, random and dynamic shards merged on the
//! sort-key bytes, time buckets one after another with their shards merged.
//!
//! Every read runs one way: lanes (one per partition) grouped and merged by [`heap`], fed by
//! [`merge`], sized by [`sizing`], resumed at a page end by [`resume`], and across a layout
//! change by [`crossing`].

mod bands;
pub(crate) mod crossing;
pub(crate) mod cursor;
pub(crate) mod directory;
mod heap;
pub(crate) mod lanes;
pub(crate) mod merge;
mod place;
pub(crate) mod resume;
pub(crate) mod sizing;

use super::{QueryPlan, SortRange};
use crate::error::Item;
use crate::query::request::sort_key_of;

/// The `Limit` cap of a request: the page size, or fewer when a limit leaves fewer items wanted,
/// plus one when an item may be dropped client-side.
pub(crate) fn request_limit(plan: &QueryPlan, remaining: Option<usize>) -> Option<usize> {
    let wanted = remaining.map(|remaining| remaining.max(1).saturating_add(usize::from(plan.excludes_any())));
    match (plan.page_size, wanted) {
        (Some(size), Some(wanted)) => Some(size.min(wanted)),
        (size, wanted) => size.or(wanted),
    }
}

/// The part of `range` (the plan's own when `None`) up to the sort key `until`, for a request
/// starting after `start`, and that key: `None` (no bound) when the index has no sort key, or
/// the start lies past the bound (a request must start inside its key condition).
pub(crate) fn bounded_range(
    plan: &QueryPlan,
    range: Option<&SortRange>,
    start: &Option<Item>,
    until: Vec<u8>,
) -> Option<(String, SortRange)> {
    plan.sort_attribute?;
    let key = String::from_utf8(until).ok()?;
    let started = start.as_ref().and_then(|start| sort_key_of(plan, start));
    if started.is_some_and(|at| if plan.descending { at < key.as_str() } else { at > key.as_str() }) {
        return None;
    }
    let part = range.unwrap_or(&plan.range).part_until(&key, plan.descending)?;
    Some((key, part))
}
