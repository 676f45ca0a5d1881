//! One run of a query: the checks, the starting position, the partitions read in order or merged,
//! client-side exclusion and type checks, the limit, and the position to resume at.

use super::cursor;
use super::hydrate::Hydration;
use super::position::Position;
use super::request::{check, sort_key_of};
use super::sharded::crossing;
use super::sharded::cursor::{self as sharded_cursor, layout_fingerprint};
use super::sharded::merge::Merge;
use super::sharded::resume::{PageEnd, Start};
use super::{CursorError, FromItem, QueryPlan, QueryStats, Shards};
use crate::db::Db;
use crate::error::{Error, Item, Result};
use futures::FutureExt;
use std::sync::Arc;

/// The default number of items in a page.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// A query being read, item by item.
pub(crate) struct Reader {
    plan: Arc<QueryPlan>,
    source: Option<Merge>,
    finished: bool,
    /// The full items of a hydrated read, fetched ahead of being yielded.
    hydration: Option<(Hydration, Db, QueryStats)>,
    stats: QueryStats,
    /// The index read, when its declaration projects the entity-type attribute: its items
    /// must hold it.
    typed_index: Option<&'static crate::table::IndexDefinition>,
}

impl Reader {
    /// Checks `plan` and resolves where it starts (after `cursor`, else after the query's
    /// `start_after`); nothing is sent until [`Reader::next`]. At most `limit` items are read;
    /// the reader can tell where it stopped ([`Reader::cursor`]). A cursor of another layout is
    /// refused: see [`Reader::open_resolved`].
    pub(crate) fn open(
        db: &Db,
        plan: Arc<QueryPlan>,
        cursor: Option<&str>,
        limit: Option<usize>,
        stats: &QueryStats,
    ) -> Result<Self> {
        let Decoded::Here(start, item_bytes) = decode_start(db, &plan, cursor)? else {
            return Err(invalid(CursorError::LayoutChanged));
        };
        Ok(Reader::at(db, plan, start, (item_bytes, limit), stats))
    }

    /// [`Reader::open`] for `plan` as `declared` resolved to (redirected by a resharding, its
    /// dynamic shards listed): a cursor made in another layout of the query resumes here when
    /// that layout is still filled (see [`crossing`]).
    pub(crate) async fn open_resolved(
        db: &Db,
        declared: &QueryPlan,
        plan: Arc<QueryPlan>,
        cursor: Option<&str>,
        limit: Option<usize>,
        stats: &QueryStats,
    ) -> Result<Self> {
        let (start, item_bytes) = match decode_start(db, &plan, cursor)? {
            Decoded::Here(start, item_bytes) => (start, item_bytes),
            Decoded::Elsewhere(opened) => {
                let item_bytes = opened.item_bytes;
                // Boxed: a rare path, kept out of the size and type depth of every page's future.
                (crossed(db, declared, &plan, *opened, stats).boxed().await?, item_bytes)
            }
        };
        Ok(Reader::at(db, plan, start, (item_bytes, limit), stats))
    }

    /// A reader of `plan` from `start`, with items of about `item_bytes` and at most `limit`.
    fn at(
        db: &Db,
        plan: Arc<QueryPlan>,
        start: Start,
        (item_bytes, limit): (Option<u64>, Option<usize>),
        stats: &QueryStats,
    ) -> Self {
        let source = (!plan.range.is_empty() && limit != Some(0))
            .then(|| Merge::new(db.clone(), Arc::clone(&plan), stats.clone(), start, item_bytes, limit));
        let hydration = plan.hydrate.then(|| (Hydration::default(), db.clone(), stats.clone()));
        let typed_index = plan.index.filter(|index| crate::projection::covers(plan.table, index, Some(&[])));
        Reader { plan, source, finished: false, hydration, stats: stats.clone(), typed_index }
    }

    /// The next item of the query; `None` at the end, after the limit, or after an error. An
    /// item that does not decode is an error the read goes on past (counted against the limit,
    /// as an item yielded, and in the stats).
    pub(crate) async fn next<E: FromItem>(&mut self) -> Option<Result<E>> {
        loop {
            let item = match self.hydration {
                Some(_) => self.next_hydrated().await?,
                None => self.next_raw().await?,
            };
            let item = match item {
                Ok(item) => item,
                Err(error) => return Some(Err(self.fail(error))),
            };
            let hydrated = self.hydration.is_some();
            if let Some(narrower) = self.narrower(&item, hydrated) {
                return Some(Err(self.fail(narrower)));
            }
            match E::from_item(item, self.plan.skip_other_types) {
                // A hydrated item was counted as read: count it back.
                Ok(None) if hydrated => self.count_back(),
                Ok(None) => continue,
                Ok(Some(entity)) => {
                    if !hydrated {
                        self.count_read();
                    }
                    return Some(Ok(entity));
                }
                Err(error @ Error::Undecodable(_)) => {
                    if !hydrated {
                        self.count_read();
                    }
                    self.stats.record_undecodable();
                    return Some(Err(error));
                }
                Err(error) => return Some(Err(self.fail(error))),
            }
        }
    }

    /// An item read from an index that lacks the entity-type attribute the index's declaration
    /// projects: the live index is narrower than declared, and every read of it would fail (or,
    /// skipping other types, find nothing). A hydrated item comes from the base table.
    fn narrower(&self, item: &Item, hydrated: bool) -> Option<Error> {
        let (table, index) = (self.plan.table, self.typed_index.filter(|_| !hydrated)?);
        (!item.contains_key(table.type_attribute)).then(|| Error::IndexNarrowerThanDeclared {
            index: index.name.to_owned(),
            attribute: table.type_attribute.to_owned(),
        })
    }

    /// Counts an item as yielded, against the limit.
    fn count_read(&mut self) {
        if let Some(remaining) = self.source.as_mut().and_then(|reader| reader.remaining.as_mut()) {
            *remaining = remaining.saturating_sub(1);
        }
    }

    /// Counts back an item counted as yielded that is not.
    fn count_back(&mut self) {
        if let Some(remaining) = self.source.as_mut().and_then(|reader| reader.remaining.as_mut()) {
            *remaining += 1;
        }
    }

    /// The next item the query reads, past client-side exclusion; `None` at the end or after
    /// the limit.
    async fn next_raw(&mut self) -> Option<Result<Item>> {
        loop {
            let reader = self.source.as_mut().filter(|_| !self.finished)?;
            if reader.remaining == Some(0) {
                self.finish();
                return None;
            }
            match reader.next_raw().await {
                Some(Ok(item)) if self.plan.range.excludes(sort_key_of(&self.plan, &item)) => continue,
                Some(result) => return Some(result),
                None => {
                    self.finish();
                    return None;
                }
            }
        }
    }

    /// The next full item of a hydrated read: the next one fetched, else the next batch's
    /// index items read and their full items fetched.
    async fn next_hydrated(&mut self) -> Option<Result<Item>> {
        loop {
            let (hydration, ..) = self.hydration.as_mut()?;
            match hydration.take() {
                Some(Some(item)) => return Some(Ok(item)),
                Some(None) => {
                    self.count_back();
                    continue;
                }
                None => {}
            }
            let source = self.source.as_ref().filter(|_| !self.finished)?;
            let (batch, start) = (Hydration::batch(source.remaining), source.position().cloned());
            let mut read = Vec::with_capacity(batch);
            while read.len() < batch {
                match self.next_raw().await {
                    Some(Ok(item)) => {
                        let position = self.source.as_ref().and_then(|source| source.position().cloned());
                        read.push((item, position));
                        self.count_read();
                    }
                    Some(Err(error)) => return Some(Err(error)),
                    None => break,
                }
            }
            if read.is_empty() {
                return None;
            }
            let (hydration, db, stats) = self.hydration.as_mut()?;
            if let Err(error) = hydration.fetch(db, &self.plan, stats, start, read).await {
                return Some(Err(error));
            }
        }
    }

    /// Stops reading: requests in flight are cancelled, the position is kept.
    fn finish(&mut self) {
        self.finished = true;
        if let Some(reader) = &mut self.source {
            reader.stop();
        }
    }

    fn fail(&mut self, error: Error) -> Error {
        self.finish();
        self.source = None;
        error
    }

    /// Where a read resuming right after the last item read starts; `None` when nothing is left.
    pub(crate) fn position(&self) -> Option<Position> {
        let reader = self.source.as_ref()?;
        // Items waiting for their hydration are behind the merge: no horizon for their ends.
        let start = match self.hydration.as_ref().and_then(|(hydration, ..)| hydration.position()) {
            Some(waiting) => Arc::clone(waiting?),
            None => reader.page_end(self.next_page_size())?,
        };
        Some(Position::new(Arc::clone(&self.plan), start, reader.item_bytes()))
    }

    /// Like [`Reader::position`], without what only sizes the next page's requests (the lanes it
    /// can skip, a previous page's shares): what a stream keeps before every item, at no cost
    /// that grows with the items buffered.
    pub(crate) fn resume_position(&self) -> Option<Position> {
        let reader = self.source.as_ref()?;
        let start = match self.hydration.as_ref().and_then(|(hydration, ..)| hydration.position()) {
            Some(waiting) => Arc::clone(waiting?),
            None => Arc::clone(reader.position()?),
        };
        Some(Position::new(Arc::clone(&self.plan), start, reader.item_bytes()))
    }

    /// Right after the last item read, whether or not anything is left after it (a previous
    /// page starts there); `None` before the first item, or when items fetched for hydration
    /// wait past the end of the query.
    pub(crate) fn last_position(&self) -> Option<Position> {
        let reader = self.source.as_ref()?;
        let start = match self.hydration.as_ref().and_then(|(hydration, ..)| hydration.position()) {
            Some(waiting) => Arc::clone(waiting?),
            None => Arc::clone(reader.last_end()),
        };
        Some(Position::new(Arc::clone(&self.plan), start, reader.item_bytes()))
    }

    /// Whether more items are known to follow the last one read without reading on (see
    /// [`Merge::more_known`]); `None` when only reading on can tell, or items fetched for
    /// hydration wait.
    pub(crate) fn more_known(&self) -> Option<bool> {
        if self.hydration.is_some() {
            return None;
        }
        self.source.as_ref()?.more_known()
    }

    /// The position at the beginning of the read.
    pub(crate) fn beginning(&self) -> Position {
        Position::new(Arc::clone(&self.plan), Arc::new(Start::Beginning), None)
    }

    /// The size of a next page, as the plan sets it.
    fn next_page_size(&self) -> usize {
        let size = self.plan.page_size.unwrap_or(DEFAULT_PAGE_SIZE);
        size.min(self.plan.limit.unwrap_or(usize::MAX))
    }

    /// A cursor resuming right after the last item read; `None` when nothing is left.
    pub(crate) fn cursor(&self, db: &Db) -> Option<String> {
        self.position().map(|position| position.encode(db))
    }
}

/// Where a run of `plan` starts, as its cursor says.
enum Decoded {
    /// In the plan's own layout (or one whose lanes it has): the start, and the item size.
    Here(Start, Option<u64>),
    /// In another layout of the query.
    Elsewhere(Box<sharded_cursor::Opened>),
}

fn invalid(reason: CursorError) -> Error {
    Error::InvalidCursor { reason }
}

/// Where a run of `plan` (as `declared` resolved to) starts after a cursor `opened` made in
/// another layout of the query: the other layout of a resharding under way, or refused.
async fn crossed(
    db: &Db,
    declared: &QueryPlan,
    plan: &QueryPlan,
    opened: sharded_cursor::Opened,
    stats: &QueryStats,
) -> Result<Start> {
    let made_in = |old: &QueryPlan| {
        old.shards.as_ref().is_some_and(|shards| layout_fingerprint(shards) == opened.layout)
    };
    let Some(old) = db.other_layout(declared, false).await?.filter(made_in) else {
        return Err(invalid(CursorError::LayoutChanged));
    };
    let layout = opened.layout.clone();
    let start = match lane_start(&old, opened)?.0 {
        Start::After(end) => crossing::cross(db, &old, plan, end, stats).await?,
        Start::Beginning => Start::Beginning,
    };
    // The old layout's ties count only if it was still kept whole when they were read, which the
    // record says, read afresh now: the same resharding, in a phase that keeps that layout filled
    // (its finish empties the source only after recording it). A cache never decides this.
    let whole =
        |old: &QueryPlan| old.shards.as_ref().is_some_and(|shards| layout_fingerprint(shards) == layout);
    if db.other_layout(declared, true).await?.filter(whole).is_none() {
        return Err(invalid(CursorError::LayoutChanged));
    }
    check_within(plan, &start)?;
    Ok(start)
}

/// Checks `plan`, and finds where a run of it starts: after `cursor`, else after the query's own
/// `start_after`, else at the beginning; and the item size the cursor carries.
///
/// A cursor of a dynamic count's layout before a raise resumes in its lanes, which the raise
/// kept: partitions are added after them.
fn decode_start(db: &Db, plan: &QueryPlan, cursor: Option<&str>) -> Result<Decoded> {
    check(plan)?;
    let Some(cursor) = cursor.or(plan.start_after.as_deref()) else {
        return Ok(Decoded::Here(Start::Beginning, None));
    };
    let fingerprint = cursor::fingerprint(plan);
    let (start, item_bytes) = match &plan.shards {
        None => {
            let key = cursor::decode(cursor, &fingerprint, db.cursor_key()).map_err(invalid)?;
            (key.map_or(Start::Beginning, |key| Start::After(PageEnd::at(0, key))), None)
        }
        Some(shards) => {
            let opened =
                sharded_cursor::open_cursor(cursor, &fingerprint, db.cursor_key()).map_err(invalid)?;
            let here = opened.layout == layout_fingerprint(shards);
            // A dynamic count raised since the cursor was made: the cursor's layout read fewer.
            let raised = !here
                && (1..shards.partitions.len()).any(|count| {
                    let readable = u32::try_from(count).ok();
                    let Some(layout) = readable.and_then(|readable| shards.layout.with_readable(readable))
                    else {
                        return false;
                    };
                    let partitions = shards.partitions[..count].to_vec();
                    let before = Shards { partitions, layout, ..shards.clone() };
                    layout_fingerprint(&before) == opened.layout
                });
            if !here && !raised {
                return Ok(Decoded::Elsewhere(Box::new(opened)));
            }
            let (start, item_bytes) = lane_start(plan, opened)?;
            // A raise added lanes the horizon knows nothing of.
            match start {
                Start::After(end) if raised => {
                    (Start::After(PageEnd { horizon: None, back: None, ..end }), item_bytes)
                }
                start => (start, item_bytes),
            }
        }
    };
    check_within(plan, &start)?;
    Ok(Decoded::Here(start, item_bytes))
}

/// Where a cursor opened for `plan`'s layout starts, in `plan`'s lanes.
fn lane_start(plan: &QueryPlan, opened: sharded_cursor::Opened) -> Result<(Start, Option<u64>)> {
    let lanes = super::sharded::lanes::Lanes::of(plan);
    let partition = |natural| lanes.lane(natural).map(|lane| lanes.partition(plan, lane));
    opened.start(plan.partition_attribute, partition).map_err(invalid)
}

/// A cursor whose item lies outside the query's sort-key range is malformed: every shard resumes
/// at that item's sort key, so it must be one the query selects.
fn check_within(plan: &QueryPlan, start: &Start) -> Result<()> {
    if let Start::After(end) = start {
        if sort_key_of(plan, &end.key).is_some_and(|sort_key| !plan.selects(sort_key)) {
            return Err(invalid(CursorError::Malformed));
        }
    }
    Ok(())
}
