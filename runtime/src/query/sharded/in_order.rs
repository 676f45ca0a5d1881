//! Reading partitions one after another: range shards (reversed when descending), and the single
//! partition of an unsharded query.
//!
//! While one page drains, the next request (the next page of this shard, or the first page of the
//! next shard) is already in flight, so a full listing costs about one round trip per page, not
//! per shard.

use super::request_limit;
use crate::db::Db;
use crate::error::{Error, Item, Result};
use crate::query::request::{fetch, resume_key, RawPage, Request};
use crate::query::{QueryPlan, QueryStats};
use std::collections::VecDeque;
use std::sync::Arc;
use tokio::task::JoinHandle;

/// A shard and the key to start after in it (`None`: its beginning).
pub(crate) type Position = (usize, Option<Item>);

/// The in-order reader: raw items of every partition, in order.
pub(crate) struct InOrder {
    db: Db,
    plan: Arc<QueryPlan>,
    stats: QueryStats,
    buffer: VecDeque<Item>,
    buffer_shard: usize,
    in_flight: Option<JoinHandle<Result<RawPage>>>,
    /// The request in flight, or the one to send when the buffer drains; `None` at the end.
    next: Option<Position>,
    /// Right after the last item taken from the buffer (tracked only when `track`).
    taken: Position,
    track: bool,
    /// Items still wanted, when the read has a limit.
    pub(crate) remaining: Option<usize>,
}

impl InOrder {
    /// A reader starting at `start`; with `track`, it can report its position.
    pub(crate) fn new(
        db: Db,
        plan: Arc<QueryPlan>,
        stats: QueryStats,
        start: Position,
        remaining: Option<usize>,
        track: bool,
    ) -> Self {
        InOrder {
            db,
            plan,
            stats,
            buffer: VecDeque::new(),
            buffer_shard: start.0,
            in_flight: None,
            next: Some(start.clone()),
            taken: start,
            track,
            remaining,
        }
    }

    /// The next raw item, in order; `None` at the end.
    pub(crate) async fn next_raw(&mut self) -> Option<Result<Item>> {
        loop {
            if let Some(item) = self.buffer.pop_front() {
                if self.track {
                    self.taken = (self.buffer_shard, Some(resume_key(&self.plan, &item)));
                }
                return Some(Ok(item));
            }
            if self.in_flight.is_none() {
                self.send()?;
            }
            let handle = self.in_flight.take()?;
            let page = match handle.await {
                Ok(Ok(page)) => page,
                Ok(Err(error)) => return Some(Err(error)),
                Err(join) => return Some(Err(Error::Background { message: join.to_string() })),
            };
            let (shard, start) = self.next.take()?;
            self.buffer_shard = shard;
            if self.track {
                self.taken = (shard, start);
            }
            self.buffer.extend(page.items);
            self.next = match page.last_evaluated_key {
                Some(key) => Some((shard, Some(key))),
                None => self.following(shard).map(|shard| (shard, None)),
            };
            let enough = self.remaining.is_some_and(|remaining| self.buffer.len() >= remaining);
            if self.next.is_some() && !enough {
                self.send();
            }
        }
    }

    /// The shard read after `shard`, in the direction of the read.
    fn following(&self, shard: usize) -> Option<usize> {
        if self.plan.descending {
            shard.checked_sub(1)
        } else {
            Some(shard + 1).filter(|next| *next < self.plan.shard_count())
        }
    }

    /// Sends the request for `next` in the background; `None` when there is nothing to send.
    fn send(&mut self) -> Option<()> {
        let (shard, start) = self.next.clone()?;
        let limit = request_limit(&self.plan, self.remaining, self.buffer.len());
        let (db, plan, stats) = (self.db.clone(), Arc::clone(&self.plan), self.stats.clone());
        let request = Request { shard, start, limit };
        self.in_flight = Some(tokio::spawn(async move { fetch(&db, &plan, request, &stats).await }));
        Some(())
    }

    /// Where a read resuming right after the last item taken starts; `None` when nothing is left.
    pub(crate) fn position(&self) -> Option<Position> {
        if self.buffer.is_empty() {
            self.next.clone()
        } else {
            Some(self.taken.clone())
        }
    }

    /// Cancels the request in flight, keeping the position.
    pub(crate) fn stop(&mut self) {
        if let Some(handle) = self.in_flight.take() {
            handle.abort();
        }
    }
}

impl Drop for InOrder {
    fn drop(&mut self) {
        self.stop();
    }
}
