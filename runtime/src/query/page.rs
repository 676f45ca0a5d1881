//! Reading a query a page at a time, with opaque cursors.

use super::reader::Reader;
use super::{FromItem, Query, QueryStats, StatsSnapshot};
use crate::db::Db;
use crate::error::{Error, Result, Undecodable};
use futures::FutureExt;
use std::sync::Arc;

/// The default number of items in a page.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// One page of query results.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<E> {
    /// The items, in the query's order.
    pub items: Vec<E>,
    /// The items of the page that do not decode as `E` (written by another program, an older
    /// version, a hand edit), in the query's order: left out of `items`, counted in the page's
    /// size and in [`StatsSnapshot::undecodable`], and passed by the cursor.
    pub undecodable: Vec<Undecodable>,
    /// Where the next page starts; `None` when the query has no more items.
    pub cursor: Option<String>,
    /// What reading this page cost: requests, capacity, items read.
    pub stats: StatsSnapshot,
}

impl Db {
    /// Reads one page of `query` (its [`page_size`](Query::page_size), default 100, or its
    /// [`limit`](Query::limit) if smaller: a cursor does not count items across pages), starting
    /// after `cursor` when given. A limit of 0 gives an empty page without a cursor, and sends
    /// nothing.
    ///
    /// The returned cursor resumes exactly after the last item of the page: no item is skipped or
    /// repeated. A cursor from another query, index or table, or an edited one, is rejected with
    /// [`crate::Error::InvalidCursor`].
    ///
    /// A sharded query's cursor holds the page's last item and its shard, and a fingerprint of
    /// the shard layout. It resumes after a raise of a dynamic count and across a resharding's
    /// cut-over or reverse; a cursor from any other layout is rejected with
    /// [`super::CursorError::LayoutChanged`]. The next page resumes every shard at that item's
    /// sort key, so it never returns an item sorting before it. A merged page asks each shard
    /// for about its share of the page, in whole read units, and asks again only the shards the
    /// merge waits on: about one request per shard, each about one read unit.
    pub async fn page<E: FromItem, F>(&self, query: &Query<E, F>, cursor: Option<&str>) -> Result<Page<E>> {
        let plan = query.plan.clone().with_window_named();
        // Nothing is sent for a plan that cannot run, nor for a page of nothing.
        super::request::check(&plan)?;
        if plan.limit == Some(0) {
            let stats = QueryStats::new(0).snapshot();
            return Ok(Page { items: Vec::new(), undecodable: Vec::new(), cursor: None, stats });
        }
        let declared = Arc::new(plan);
        let plan = self.resolve_plan(Arc::clone(&declared)).await?;
        // A limit of 0 reads nothing: an empty page without a cursor.
        let size = plan.page_size.unwrap_or(DEFAULT_PAGE_SIZE).min(plan.limit.unwrap_or(usize::MAX));
        let stats = QueryStats::new(plan.shard_count());
        // Boxed, as the plan's resolution is: a caller's future holding a page stays shallow.
        let opening = Reader::open_resolved(self, &declared, plan, cursor, Some(size), &stats);
        let mut reader = opening.boxed().await?;
        let (mut items, mut undecodable) = (Vec::with_capacity(size.min(1_000)), Vec::new());
        while let Some(item) = reader.next::<E>().await {
            match item {
                Ok(item) => items.push(item),
                Err(Error::Undecodable(item)) => undecodable.push(*item),
                Err(error) => return Err(error),
            }
        }
        let cursor = if items.len() + undecodable.len() == size { reader.cursor(self) } else { None };
        Ok(Page { items, undecodable, cursor, stats: stats.snapshot() })
    }
}
