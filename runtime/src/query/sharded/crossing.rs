//! Resuming after a layout change: a page end read in one layout, resumed in another.
//!
//! A position in a read's output is a sort key plus what came before it among equal sort keys.
//! The sort key is the same in every layout of a mapping (a resharding keeps the strategy, so
//! the index's sort key is the same text), but which tied items came first is not: within a
//! layout, ties come lane by lane, and within a lane in DynamoDB's own order, which is neither
//! the order of the items' keys nor the same in another index. Ordering ties by item key instead
//! would make every shard read all its items of a sort key before returning one: a page inside
//! a run of thousands of equal titles would read all of them.
//!
//! So a page end keeps its lane while the layout stays, and when a cursor meets another layout
//! (the target after a cut-over, the source after a reverse) its tied items are named once:
//! reading the old layout, which a resharding keeps filled until it is done, at the page end's
//! sort key, the end's own lane up to the end item, and every lane before it whole where items
//! of one sort key can lie in several (not in hash shards, which route by fields of the key).
//! The read then resumes every lane of the new layout at the sort key, dropping the items named
//! ([`super::resume::Ties`]). Those names travel with the cursors that follow while they share
//! the sort key. This costs one small query of the old layout (of each lane up to the end's, for
//! shards that are not hashed) once per cursor and layout change, and nothing for range
//! layouts, whose sort keys are unique.
//!
//! A raise of a dynamic count adds lanes after the existing ones: the old lanes keep their
//! numbers and partitions, and a page end resumes as in its own layout (see `reader`).

use super::lanes::Lanes;
use super::place::ties_before;
use super::resume::{identity, PageEnd, Start, Ties};
use crate::db::Db;
use crate::error::{Error, Item, Result};
use crate::query::request::{fetch, sort_key_of, Request};
use crate::query::{CursorError, QueryPlan, QueryStats, ShardMode, SortRange};
use std::collections::BTreeSet;

/// Where a read of `new` resumes after the page end `end` that a read of `old` (another layout
/// of the same query) returned last.
pub(crate) async fn cross(
    db: &Db,
    old: &QueryPlan,
    new: &QueryPlan,
    end: PageEnd,
    stats: &QueryStats,
) -> Result<Start> {
    let malformed = || Error::InvalidCursor { reason: CursorError::Malformed };
    let sort_key = sort_key_of(old, &end.key).ok_or_else(malformed)?.to_owned();
    let mut ties: BTreeSet<String> = end.ties.iter().cloned().collect();
    ties.insert(identity(old.table, &end.key));
    if let Some(natural) = end.lane.filter(|_| may_tie(old)) {
        let lanes = Lanes::of(old);
        let end_lane = lanes.lane(natural).ok_or_else(malformed)?;
        // Equal sort keys hold equal `by` values (keys are injective, and the `by` fields are in
        // the key), so hash shards hold each sort key's items in one shard.
        let across = !old.shards.as_ref().is_some_and(|shards| shards.layout.ties_in_one_shard());
        let reads = (0..lanes.groups().width)
            .filter(|&lane| lane == end_lane || (across && ties_before(lane, end_lane, old.descending)))
            .map(|lane| {
                tied(db, old, &lanes, lane, &sort_key, (lane == end_lane).then_some(&end.key), stats)
            });
        for named in futures::future::try_join_all(reads).await? {
            ties.extend(named);
        }
    }
    let table = old.table;
    let mut key: Item = std::iter::once(table.partition_key)
        .chain(table.sort_key)
        .filter_map(|name| end.key.get(name).map(|value| (name.to_owned(), value.clone())))
        .collect();
    if let Some(attribute) = new.sort_attribute {
        key.insert(attribute.to_owned(), aws_sdk_dynamodb::types::AttributeValue::S(sort_key));
    }
    Ok(Start::After(PageEnd { lane: None, key, ties: Ties::new(ties), horizon: None, back: None }))
}

/// Whether items of `plan` can share a sort key across lanes: not in range layouts, whose sort
/// keys end with the item's key; not across the groups of buckets read in turn either, which no
/// resharding changes.
fn may_tie(plan: &QueryPlan) -> bool {
    plan.shards
        .as_ref()
        .is_some_and(|shards| shards.mode == ShardMode::Merge && !shards.layout.sort_keys_unique())
}

/// The identities of the items of lane `lane` with sort key `sort_key`, in the read's order, up to
/// and including the item `until` when given (if it is gone, none of the lane's: they are read
/// again rather than lost).
async fn tied(
    db: &Db,
    plan: &QueryPlan,
    lanes: &Lanes,
    lane: usize,
    sort_key: &str,
    until: Option<&Item>,
    stats: &QueryStats,
) -> Result<Vec<String>> {
    let until = until.map(|item| identity(plan.table, item));
    let mut named = Vec::new();
    let mut start = None;
    loop {
        let request = Request {
            partition: lanes.partition(plan, lane),
            shard: lanes.shard(lane),
            range: Some(SortRange::equals(sort_key)),
            start,
            limit: None,
        };
        let page = fetch(db, plan, request, stats).await?;
        for item in &page.items {
            let item = identity(plan.table, item);
            let last = until.as_ref() == Some(&item);
            named.push(item);
            if last {
                return Ok(named);
            }
        }
        match page.last_evaluated_key {
            Some(key) => start = Some(key),
            None if until.is_some() => return Ok(Vec::new()),
            None => return Ok(named),
        }
    }
}
