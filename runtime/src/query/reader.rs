//! One run of a query: the checks, the starting position, the partitions read in order or merged,
//! client-side exclusion and type checks, the limit, and the position to resume at.

use super::cursor;
use super::request::{check, sort_key_of};
use super::sharded::in_order::InOrder;
use super::sharded::merge::Merge;
use super::sharded::{cursor as sharded_cursor, ShardPosition, Start};
use super::{FromItem, QueryPlan, QueryStats, ShardMode};
use crate::db::Db;
use crate::error::{Error, Item, Result};
use std::sync::Arc;

/// A query being read, item by item.
pub(crate) struct Reader {
    plan: Arc<QueryPlan>,
    source: Source,
    finished: bool,
}

enum Source {
    Empty,
    InOrder(InOrder),
    Merge(Merge),
}

impl Reader {
    /// Checks `plan` and resolves where it starts (after `cursor`, else after the query's
    /// `start_after`); nothing is sent until [`Reader::next`]. At most `limit` items are read;
    /// with `track`, the reader can tell where it stopped ([`Reader::cursor`]).
    pub(crate) fn open(
        db: &Db,
        plan: Arc<QueryPlan>,
        cursor: Option<&str>,
        limit: Option<usize>,
        stats: &QueryStats,
        track: bool,
    ) -> Result<Self> {
        check(&plan)?;
        let start = resolve_start(db, &plan, cursor)?;
        let (db, shared, stats) = (db.clone(), Arc::clone(&plan), stats.clone());
        let source = match start {
            _ if plan.range.is_empty() || limit == Some(0) => Source::Empty,
            Start::InOrder { shard, after } => {
                Source::InOrder(InOrder::new(db, shared, stats, (shard, after), limit, track))
            }
            Start::Merge(positions) => Source::Merge(Merge::new(db, shared, stats, positions, limit, track)),
        };
        Ok(Reader { plan, source, finished: false })
    }

    /// The next item of the query; `None` at the end, after the limit, or after an error.
    pub(crate) async fn next<E: FromItem>(&mut self) -> Option<Result<E>> {
        loop {
            if self.finished {
                return None;
            }
            if self.remaining() == Some(0) {
                self.finish();
                return None;
            }
            let item = match self.next_raw().await {
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
                    self.count_one();
                    return Some(Ok(entity));
                }
                Err(error) => return Some(Err(self.fail(error))),
            }
        }
    }

    async fn next_raw(&mut self) -> Option<Result<Item>> {
        match &mut self.source {
            Source::Empty => None,
            Source::InOrder(reader) => reader.next_raw().await,
            Source::Merge(reader) => reader.next_raw().await,
        }
    }

    fn remaining(&self) -> Option<usize> {
        match &self.source {
            Source::Empty => None,
            Source::InOrder(reader) => reader.remaining,
            Source::Merge(reader) => reader.remaining,
        }
    }

    fn count_one(&mut self) {
        let remaining = match &mut self.source {
            Source::Empty => return,
            Source::InOrder(reader) => &mut reader.remaining,
            Source::Merge(reader) => &mut reader.remaining,
        };
        if let Some(remaining) = remaining {
            *remaining = remaining.saturating_sub(1);
        }
    }

    /// Stops reading: requests in flight are cancelled, positions are kept.
    fn finish(&mut self) {
        self.finished = true;
        match &mut self.source {
            Source::Empty => {}
            Source::InOrder(reader) => reader.stop(),
            Source::Merge(reader) => reader.stop(),
        }
    }

    fn fail(&mut self, error: Error) -> Error {
        self.finish();
        self.source = Source::Empty;
        error
    }

    /// A cursor resuming right after the last item read; `None` when nothing is left.
    pub(crate) fn cursor(&self, db: &Db) -> Option<String> {
        let fingerprint = cursor::fingerprint(&self.plan);
        let signing_key = db.cursor_key();
        let start = match &self.source {
            Source::Empty => return None,
            Source::InOrder(reader) => {
                let (shard, after) = reader.position()?;
                Start::InOrder { shard, after }
            }
            Source::Merge(reader) => {
                let positions = reader.positions();
                if positions.iter().all(|position| *position == ShardPosition::Exhausted) {
                    return None;
                }
                Start::Merge(positions)
            }
        };
        match (&self.plan.shards, start) {
            (Some(shards), start) => Some(sharded_cursor::encode(&fingerprint, shards, &start, signing_key)),
            (None, Start::InOrder { after: Some(key), .. }) => {
                Some(cursor::encode(&fingerprint, &key, signing_key))
            }
            (None, _) => None,
        }
    }
}

/// Where a run of `plan` starts: after `cursor`, else after the query's own `start_after`, else at
/// the beginning (the last shard first when reading range shards in descending order).
fn resolve_start(db: &Db, plan: &QueryPlan, cursor: Option<&str>) -> Result<Start> {
    let cursor = cursor.or(plan.start_after.as_deref());
    let fingerprint = cursor::fingerprint(plan);
    let invalid = |reason| Error::InvalidCursor { reason };
    let Some(shards) = &plan.shards else {
        let after = cursor.map(|cursor| cursor::decode(cursor, &fingerprint, db.cursor_key())).transpose();
        return Ok(Start::InOrder { shard: 0, after: after.map_err(invalid)? });
    };
    if let Some(cursor) = cursor {
        return sharded_cursor::decode(cursor, &fingerprint, shards, db.cursor_key()).map_err(invalid);
    }
    let count = shards.partitions.len();
    Ok(match shards.mode {
        ShardMode::InOrder => {
            Start::InOrder { shard: if plan.descending { count.saturating_sub(1) } else { 0 }, after: None }
        }
        ShardMode::Merge => Start::Merge(vec![ShardPosition::NotStarted; count]),
    })
}
