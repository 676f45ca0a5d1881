//! One run of a query: the checks, the starting position, the partitions read in order or merged,
//! client-side exclusion and type checks, the limit, and the position to resume at.

use super::cursor;
use super::request::{check, sort_key_of};
use super::sharded::cursor as sharded_cursor;
use super::sharded::merge::Merge;
use super::sharded::resume::{PageEnd, Start};
use super::{FromItem, QueryPlan, QueryStats};
use crate::db::Db;
use crate::error::{Error, Result};
use std::sync::Arc;

/// A query being read, item by item.
pub(crate) struct Reader {
    plan: Arc<QueryPlan>,
    source: Option<Merge>,
    finished: bool,
}

impl Reader {
    /// Checks `plan` and resolves where it starts (after `cursor`, else after the query's
    /// `start_after`); nothing is sent until [`Reader::next`]. At most `limit` items are read;
    /// the reader can tell where it stopped ([`Reader::cursor`]).
    pub(crate) fn open(
        db: &Db,
        plan: Arc<QueryPlan>,
        cursor: Option<&str>,
        limit: Option<usize>,
        stats: &QueryStats,
    ) -> Result<Self> {
        check(&plan)?;
        let (start, item_bytes) = resolve_start(db, &plan, cursor)?;
        let source = (!plan.range.is_empty() && limit != Some(0))
            .then(|| Merge::new(db.clone(), Arc::clone(&plan), stats.clone(), start, item_bytes, limit));
        Ok(Reader { plan, source, finished: false })
    }

    /// The next item of the query; `None` at the end, after the limit, or after an error.
    pub(crate) async fn next<E: FromItem>(&mut self) -> Option<Result<E>> {
        loop {
            let reader = self.source.as_mut().filter(|_| !self.finished)?;
            if reader.remaining == Some(0) {
                self.finish();
                return None;
            }
            let item = match reader.next_raw().await {
                Some(Ok(item)) => item,
                Some(Err(error)) => return Some(Err(self.fail(error))),
                None => {
                    self.finish();
                    return None;
                }
            };
            if self.plan.range.excludes(sort_key_of(&self.plan, &item)) {
                continue;
            }
            match E::from_item(item, self.plan.skip_other_types) {
                Ok(None) => continue,
                Ok(Some(entity)) => {
                    if let Some(remaining) = self.source.as_mut().and_then(|reader| reader.remaining.as_mut())
                    {
                        *remaining = remaining.saturating_sub(1);
                    }
                    return Some(Ok(entity));
                }
                Err(error) => return Some(Err(self.fail(error))),
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
        let start = Arc::clone(reader.position()?);
        Some(Position { plan: Arc::clone(&self.plan), start, item_bytes: reader.item_bytes() })
    }

    /// A cursor resuming right after the last item read; `None` when nothing is left.
    pub(crate) fn cursor(&self, db: &Db) -> Option<String> {
        self.position().map(|position| position.encode(db))
    }
}

/// Where a read stands: enough to encode its cursor.
pub(crate) struct Position {
    plan: Arc<QueryPlan>,
    start: Arc<Start>,
    item_bytes: Option<u64>,
}

impl Position {
    /// The cursor resuming here.
    pub(crate) fn encode(&self, db: &Db) -> String {
        let plan = &self.plan;
        let fingerprint = cursor::fingerprint(plan);
        let signing_key = db.cursor_key();
        match &plan.shards {
            Some(shards) => {
                let position = (self.start.as_ref(), self.item_bytes);
                sharded_cursor::encode(&fingerprint, shards, plan.partition_attribute, position, signing_key)
            }
            None => {
                let key = match self.start.as_ref() {
                    Start::After(end) => Some(&end.key),
                    Start::Beginning => None,
                };
                cursor::encode(&fingerprint, key, signing_key)
            }
        }
    }
}

/// Where a run of `plan` starts: after `cursor`, else after the query's own `start_after`, else at
/// the beginning; and the item size the cursor carries.
///
/// A cursor whose item lies outside the query's sort-key range is malformed: every shard resumes
/// at that item's sort key, so it must be one the query selects.
fn resolve_start(db: &Db, plan: &QueryPlan, cursor: Option<&str>) -> Result<(Start, Option<u64>)> {
    let Some(cursor) = cursor.or(plan.start_after.as_deref()) else { return Ok((Start::Beginning, None)) };
    let fingerprint = cursor::fingerprint(plan);
    let invalid = |reason| Error::InvalidCursor { reason };
    let (start, item_bytes) = match &plan.shards {
        None => {
            let key = cursor::decode(cursor, &fingerprint, db.cursor_key()).map_err(invalid)?;
            (key.map_or(Start::Beginning, |key| Start::After(PageEnd { lane: 0, key })), None)
        }
        Some(shards) => {
            let lanes = super::sharded::lanes::Lanes::of(plan);
            let partition = |natural| lanes.lane(natural).map(|lane| lanes.partition(plan, lane));
            let key = db.cursor_key();
            sharded_cursor::decode(cursor, &fingerprint, shards, plan.partition_attribute, partition, key)
                .map_err(invalid)?
        }
    };
    if let Start::After(end) = &start {
        if sort_key_of(plan, &end.key).is_some_and(|sort_key| !plan.range.contains(sort_key)) {
            return Err(invalid(super::CursorError::Malformed));
        }
    }
    Ok((start, item_bytes))
}
