//! Running a query as a stream, with the next page requested while the current one drains.

use super::reader::Reader;
use super::{FromItem, Query, QueryStats};
use crate::db::Db;
use crate::error::{Error, Result};
use futures::stream::{self, BoxStream, StreamExt};
use std::sync::Arc;

impl Db {
    /// Runs `query`, yielding its items in sort-key order (or reverse, when descending).
    ///
    /// Pages are fetched on demand; while one page drains, the next is already requested, so a
    /// long listing costs about one round trip per page. Nothing is sent before the stream is
    /// first polled.
    ///
    /// A sharded query reads all its shards and yields one ordered stream: range shards one
    /// after another (the next shard is requested while the current one drains), other shards
    /// merged on the sort-key bytes with at most [`concurrency`](Query::concurrency) shard
    /// queries in flight, reading a shard only while the merged output still needs it.
    pub fn stream<E: FromItem, F>(&self, query: Query<E, F>) -> BoxStream<'static, Result<E>> {
        self.stream_with_stats(query).0
    }

    /// Like [`Db::stream`], plus a live view of what the stream costs: requests sent (per
    /// shard), capacity consumed, items read.
    pub fn stream_with_stats<E: FromItem, F>(
        &self,
        query: Query<E, F>,
    ) -> (BoxStream<'static, Result<E>>, QueryStats) {
        let plan = Arc::new(query.plan.with_window_named());
        let stats = QueryStats::new(plan.shard_count());
        let limit = plan.limit;
        let state = if let Err(error) = super::request::check(&plan) {
            // Nothing is sent for a plan that cannot run.
            State::Failed(error)
        } else if limit == Some(0) {
            State::Done
        } else if self.plan_needs_metadata(&plan) {
            // The shards to read may come from the metadata table, read on the first poll.
            State::Resolving { db: self.clone(), plan, stats: stats.clone() }
        } else {
            match Reader::open(self, plan, None, limit, &stats, false) {
                Ok(reader) => State::Reading(Box::new(reader)),
                Err(error) => State::Failed(error),
            }
        };
        let stream = stream::unfold(state, |mut state| async move {
            if let State::Resolving { db, plan, stats } = state {
                let opened = match db.resolve_plan(plan).await {
                    Ok(plan) => {
                        stats.set_shards(plan.shard_count());
                        Reader::open(&db, plan.clone(), None, plan.limit, &stats, false)
                    }
                    Err(error) => Err(error),
                };
                state = match opened {
                    Ok(reader) => State::Reading(Box::new(reader)),
                    Err(error) => State::Failed(error),
                };
            }
            match state {
                State::Resolving { .. } => None,
                State::Reading(mut reader) => {
                    let next = reader.next().await;
                    next.map(|item| (item, State::Reading(reader)))
                }
                State::Failed(error) => Some((Err(error), State::Done)),
                State::Done => None,
            }
        });
        (stream.boxed(), stats)
    }
}

enum State {
    Resolving { db: Db, plan: Arc<super::QueryPlan>, stats: QueryStats },
    Reading(Box<Reader>),
    Failed(Error),
    Done,
}
