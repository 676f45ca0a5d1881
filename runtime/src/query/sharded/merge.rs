//! Reading hash, random or time-bucket shards as one ordered result: a k-way merge (see
//! [`super::heap`]) fed by at most `concurrency` shard queries at a time.
//!
//! Every shard holds at most one page. A shard whose page is used up is read again as soon as a
//! request slot is free, earliest floor first: until then it blocks everything after its last
//! item. With a limit, a shard is read only while the merged output can still need it, each
//! request asks for no more items than are still wanted, and reaching the limit (or dropping the
//! stream) cancels the requests in flight.

use super::heap::{Continuation, Merger, Step};
use super::{request_limit, ShardPosition};
use crate::db::Db;
use crate::error::{Error, Item, Result};
use crate::query::request::{fetch, resume_key, sort_key_of, RawPage, Request};
use crate::query::{QueryPlan, QueryStats};
use std::sync::Arc;
use tokio::task::{JoinError, JoinSet};

type Joined = std::result::Result<(usize, Result<RawPage>), JoinError>;

/// The merging reader: raw items of every shard, in merged order.
pub(crate) struct Merge {
    db: Db,
    plan: Arc<QueryPlan>,
    stats: QueryStats,
    merger: Merger<Item, Item>,
    tasks: JoinSet<(usize, Result<RawPage>)>,
    /// Per shard, right after the last item taken from it (tracked only when `track`).
    taken: Vec<ShardPosition>,
    track: bool,
    /// Items still wanted, when the read has a limit.
    pub(crate) remaining: Option<usize>,
}

impl Merge {
    /// A reader starting each shard at its position in `start`; with `track`, it can report
    /// where each shard stands.
    pub(crate) fn new(
        db: Db,
        plan: Arc<QueryPlan>,
        stats: QueryStats,
        start: Vec<ShardPosition>,
        remaining: Option<usize>,
        track: bool,
    ) -> Self {
        let starts = start
            .iter()
            .map(|position| match position {
                ShardPosition::NotStarted => Continuation::Start(None),
                ShardPosition::After(key) => Continuation::Start(Some(key.clone())),
                ShardPosition::Exhausted => Continuation::Done,
            })
            .collect();
        let merger = Merger::new(plan.descending, starts);
        Merge { db, plan, stats, merger, tasks: JoinSet::new(), taken: start, track, remaining }
    }

    /// The next raw item in merged order; `None` at the end.
    pub(crate) async fn next_raw(&mut self) -> Option<Result<Item>> {
        loop {
            while let Some(joined) = self.tasks.try_join_next() {
                if let Err(error) = self.accept(joined) {
                    return Some(Err(error));
                }
            }
            self.dispatch();
            match self.merger.pop() {
                Step::Item(shard, item) => {
                    if self.track {
                        if let Some(taken) = self.taken.get_mut(shard) {
                            *taken = ShardPosition::After(resume_key(&self.plan, &item));
                        }
                    }
                    return Some(Ok(item));
                }
                Step::Done => return None,
                Step::Blocked => {}
            }
            let Some(joined) = self.tasks.join_next().await else {
                let message = "the merge of shards is blocked with no request in flight".into();
                return Some(Err(Error::Background { message }));
            };
            if let Err(error) = self.accept(joined) {
                return Some(Err(error));
            }
        }
    }

    /// Hands a finished request's page to the merge.
    fn accept(&mut self, joined: Joined) -> Result<()> {
        let (shard, page) = joined.map_err(|join| Error::Background { message: join.to_string() })?;
        let page = page?;
        let plan = &self.plan;
        let sort_key = |item: &Item| sort_key_of(plan, item).unwrap_or_default().as_bytes().to_vec();
        let floor = page
            .last_evaluated_key
            .as_ref()
            .and_then(|key| sort_key_of(plan, key))
            .map(|key| key.as_bytes().to_vec());
        let entries = page.items.into_iter().map(|item| (sort_key(&item), item)).collect();
        self.merger.fill(shard, entries, page.last_evaluated_key, floor);
        Ok(())
    }

    /// Starts requests for the shards the merge waits on, up to the concurrency cap.
    fn dispatch(&mut self) {
        while self.tasks.len() < self.plan.concurrency {
            let Some((shard, start)) = self.merger.next_request(self.remaining.is_some()) else { return };
            let limit = request_limit(&self.plan, self.remaining, 0);
            let (db, plan, stats) = (self.db.clone(), Arc::clone(&self.plan), self.stats.clone());
            let request = Request { shard, start, limit };
            self.tasks.spawn(async move { (shard, fetch(&db, &plan, request, &stats).await) });
        }
    }

    /// Where a read resuming right after the last item taken starts, shard by shard.
    pub(crate) fn positions(&self) -> Vec<ShardPosition> {
        let settled = |(shard, taken): (usize, &ShardPosition)| match self.merger.settled(shard) {
            Some(Continuation::Done) => ShardPosition::Exhausted,
            Some(Continuation::After(key)) => ShardPosition::After(key.clone()),
            _ => taken.clone(),
        };
        self.taken.iter().enumerate().map(settled).collect()
    }

    /// Cancels every request in flight, keeping the positions.
    pub(crate) fn stop(&mut self) {
        self.tasks.abort_all();
    }
}
