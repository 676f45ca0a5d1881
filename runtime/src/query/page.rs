//! Reading a query a page at a time, with opaque cursors, forwards and backwards.
//!
//! A page's `previous` cursor is a cursor of the query read the other way, at the page's first
//! item, marked [`BACKWARD`]: a page end resumes the same way in both directions (the item's own
//! lane after it, the lanes before it among equal sort keys past them), so the read from there
//! the other way is exactly the items before the page, last first. The mark is outside the
//! cursor's seal, but it decides which direction's fingerprint the cursor must carry: a cursor
//! with the mark added or removed is a cursor of another query.

use super::position::Position;
use super::reader::Reader;
use super::{FromItem, Query, QueryPlan, QueryStats, StatsSnapshot};
use crate::db::Db;
use crate::error::{Error, Result, Undecodable};
use futures::FutureExt;
use std::sync::Arc;

pub use super::reader::DEFAULT_PAGE_SIZE;

/// What starts a cursor to a previous page.
const BACKWARD: char = '~';

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
    /// Where the previous page starts, read backwards from this page's first item: `None` on a
    /// first page, on a page read backwards that holds the first item of the query, and on an
    /// empty page (after a page that ended the query exactly: that page has its own).
    pub previous: Option<String>,
    /// What reading this page cost: requests, capacity, items read.
    pub stats: StatsSnapshot,
}

/// A page as read in one direction: its entries in that direction, where its first entry ends,
/// and where its last one does when more may follow.
struct Read<E> {
    entries: Vec<Result<E>>,
    after_first: Option<Position>,
    after_last: Option<Position>,
    /// The beginning of the read.
    beginning: Position,
    stats: StatsSnapshot,
}

impl Db {
    /// Reads one page of `query` (its [`page_size`](Query::page_size), default 100, or its
    /// [`limit`](Query::limit) if smaller: a cursor does not count items across pages), starting
    /// after `cursor` when given. A limit of 0 gives an empty page without a cursor, and sends
    /// nothing.
    ///
    /// The returned cursor resumes exactly after the last item of the page: no item is skipped or
    /// repeated. A cursor from another query, index or table, or an edited one, is rejected with
    /// [`crate::Error::InvalidCursor`]. A page read after a cursor also has a
    /// [`previous`](Page::previous) cursor: the page before it, the same way, in the query's
    /// order, with its own `cursor` back to this page (a previous page costs what a next page
    /// does: the same requests, the other way; a merge's previous page asks only the shards or
    /// keys the page before held items of, when its cursor names them).
    ///
    /// A sharded query's cursor holds the page's last item and its shard, and a fingerprint of
    /// the shard layout. It resumes after a raise of a dynamic count and across a resharding's
    /// cut-over or reverse; a cursor from any other layout is rejected with
    /// [`super::CursorError::LayoutChanged`]. The next page resumes every shard at that item's
    /// sort key, so it never returns an item sorting before it. A merged page asks each shard
    /// for about its share of the page, in whole read units, and asks again only the shards the
    /// merge waits on: about one request per shard, each about one read unit. Its cursor also
    /// names the shards whose next items the page saw within the next page's reach: the next
    /// page asks those, and the others only if it gets past them.
    ///
    /// ```no_run
    /// # use dynashard::{Db, Entity, Table};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Table)] #[table(name = "Music", pk = "pk", sk = "sk")] struct Music;
    /// # #[derive(Entity, Serialize, Deserialize)]
    /// # #[entity(table = Music, pk = "{artist}", sk = "song#{title}")]
    /// # struct Song { artist: String, title: String }
    /// # async fn example(db: Db) -> dynashard::Result<()> {
    /// let query = Song::query("Solar Fields").page_size(10);
    /// let first = db.page(&query, None).await?;
    /// let second = db.page(&query, first.cursor.as_deref()).await?;
    /// // Back again: the first page's items, in the query's order.
    /// let back = db.page(&query, second.previous.as_deref()).await?;
    /// assert_eq!(back.items.len(), first.items.len());
    /// # Ok(()) }
    /// ```
    pub async fn page<E: FromItem, F>(&self, query: &Query<E, F>, cursor: Option<&str>) -> Result<Page<E>> {
        let traced = query.plan.operation(self, "page").traced();
        let span = traced.span().clone();
        query.plan.record_on(&span, query.plan.page_size);
        let page = traced.run(self.page_of(query, cursor)).await;
        if let Some(page) = page.as_ref().ok().filter(|_| !span.is_disabled()) {
            let stats = &page.stats;
            span.record("aws.dynamodb.count", crate::telemetry::int(page.items.len()));
            span.record("dynashard.requests", crate::telemetry::int(stats.requests));
            let shards = stats.per_shard_requests.iter().filter(|requests| **requests > 0).count();
            span.record("dynashard.shards_read", crate::telemetry::int(shards));
        }
        page
    }

    /// See [`Db::page`].
    async fn page_of<E: FromItem, F>(&self, query: &Query<E, F>, cursor: Option<&str>) -> Result<Page<E>> {
        let plan = query.plan.clone().with_window_named();
        // Nothing is sent for a plan that cannot run, nor for a page of nothing.
        super::request::check(&plan)?;
        if plan.limit == Some(0) {
            let stats = QueryStats::new(0).snapshot();
            let (items, undecodable) = (Vec::new(), Vec::new());
            return Ok(Page { items, undecodable, cursor: None, previous: None, stats });
        }
        match cursor.and_then(|cursor| cursor.strip_prefix(BACKWARD)) {
            None => {
                let resumed = cursor.is_some() || plan.start_after.is_some();
                let read = self.read_page::<E>(plan, cursor, false).await?;
                let previous =
                    read.after_first.filter(|_| resumed).map(|first| self.backward(&first.reversed()));
                let cursor = read.after_last.map(|last| last.encode(self));
                Ok(page(read.entries, cursor, previous, read.stats))
            }
            Some(cursor) => {
                let mut plan = plan;
                plan.descending = !plan.descending;
                let read = self.read_page::<E>(plan, Some(cursor), true).await?;
                // Back to the page this cursor came from: after the last item of this page in
                // the query's order, which the backward read returned first.
                // Nothing before it: forwards from the beginning.
                let next = match &read.after_first {
                    Some(first) => first.reversed(),
                    None => read.beginning.reversed(),
                };
                let previous = read.after_last.as_ref().map(|last| self.backward(last));
                let mut entries = read.entries;
                entries.reverse();
                Ok(page(entries, Some(next.encode(self)), previous, read.stats))
            }
        }
    }

    /// A cursor to the page before a position of the query read the other way.
    fn backward(&self, position: &Position) -> String {
        format!("{BACKWARD}{}", position.encode(self))
    }

    /// Reads a page of `plan` after `cursor`, in the plan's direction; with `peek`, one item
    /// more, so that whether more follow is known rather than guessed.
    async fn read_page<E: FromItem>(
        &self,
        plan: QueryPlan,
        cursor: Option<&str>,
        peek: bool,
    ) -> Result<Read<E>> {
        let declared = Arc::new(plan);
        let plan = self.resolve_plan(Arc::clone(&declared)).await?;
        let size = plan.page_size.unwrap_or(DEFAULT_PAGE_SIZE).min(plan.limit.unwrap_or(usize::MAX));
        let stats = QueryStats::new(plan.shard_count());
        let limit = size.saturating_add(usize::from(peek));
        // Boxed, as the plan's resolution is: a caller's future holding a page stays shallow.
        let opening = Reader::open_resolved(self, &declared, plan, cursor, Some(limit), &stats);
        let mut reader = opening.boxed().await?;
        let mut entries = Vec::with_capacity(limit.min(1_000));
        let (mut after_first, mut after_size, mut known_more) = (None, None, None);
        while let Some(entry) = reader.next::<E>().await {
            match entry {
                Err(error) if !matches!(error, Error::Undecodable(_)) => return Err(error),
                entry => entries.push(entry),
            }
            if entries.len() == 1 {
                after_first = reader.last_position();
            }
            // Taken before the peek moves the merge on: its horizon is the page's.
            if entries.len() == size {
                after_size = reader.position();
                // The peek reads on only when the merge cannot tell without it.
                if let Some(more) = reader.more_known().filter(|_| peek) {
                    known_more = Some(more);
                    break;
                }
            }
        }
        let more = match known_more {
            Some(more) => more,
            None if peek => entries.len() > size,
            None => entries.len() == size,
        };
        entries.truncate(size);
        let after_last = after_size.filter(|_| more);
        let beginning = reader.beginning();
        Ok(Read { entries, after_first, after_last, beginning, stats: stats.snapshot() })
    }
}

/// A page of `entries` in the query's order.
fn page<E>(
    entries: Vec<Result<E>>,
    cursor: Option<String>,
    previous: Option<String>,
    stats: StatsSnapshot,
) -> Page<E> {
    let (mut items, mut undecodable) = (Vec::with_capacity(entries.len()), Vec::new());
    for entry in entries {
        match entry {
            Ok(item) => items.push(item),
            Err(Error::Undecodable(item)) => undecodable.push(*item),
            Err(_) => {}
        }
    }
    Page { items, undecodable, cursor, previous, stats }
}
