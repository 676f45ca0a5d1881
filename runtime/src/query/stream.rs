//! Running a query as a stream that knows what it cost and where it stopped.

use super::position::Position;
use super::reader::Reader;
use super::traced::StreamSpan;
use super::{FromItem, Query, QueryPlan, QueryStats};
use crate::db::Db;
use crate::error::{Error, Result};
use futures::future::BoxFuture;
use futures::{FutureExt, Stream};
use std::fmt;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// A running query: a [`Stream`] of its items in the query's order, what it has cost so far
/// ([`QueryStream::stats`]), and where it stopped ([`QueryStream::cursor`]).
///
/// Returned by [`Db::stream`]. Nothing is sent before it is first polled; dropping it cancels the
/// requests in flight.
///
/// ```no_run
/// # use dynashard::{Db, Entity, Table};
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Table)] #[table(name = "Music", pk = "pk", sk = "sk")] struct Music;
/// # #[derive(Entity, Serialize, Deserialize)]
/// # #[entity(table = Music, pk = "{artist}", sk = "song#{title}")]
/// # struct Song { artist: String, title: String, seconds: u32 }
/// # async fn example(db: Db) -> dynashard::Result<()> {
/// use futures::StreamExt;
/// // Songs until an hour of music is collected, then where to go on from.
/// let mut songs = db.stream(Song::query("Solar Fields"));
/// let mut total = 0;
/// while let Some(song) = songs.next().await {
///     total += song?.seconds;
///     if total >= 3_600 {
///         break;
///     }
/// }
/// let next_time = songs.cursor(); // Some(cursor) to resume after the last song taken
/// println!("{} requests, {} read units", songs.stats().requests(), songs.stats().capacity_units());
/// # drop(next_time); Ok(()) }
/// ```
#[must_use = "a query stream does nothing unless polled"]
pub struct QueryStream<E> {
    db: Db,
    stats: QueryStats,
    state: State<E>,
    span: StreamSpan,
    marker: PhantomData<fn() -> E>,
}

enum State<E> {
    /// The shards are read from the shard metadata first.
    Opening(BoxFuture<'static, Result<Box<Reader>>>),
    Idle(Box<Reader>),
    /// An item is being read; the position is the one before it.
    Reading(BoxFuture<'static, (Box<Reader>, Option<Result<E>>)>, Option<Position>),
    Failed(Error),
    Done,
}

impl<E> fmt::Debug for QueryStream<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match &self.state {
            State::Opening(_) => "opening",
            State::Idle(_) => "idle",
            State::Reading(..) => "reading",
            State::Failed(_) => "failed",
            State::Done => "done",
        };
        f.debug_struct("QueryStream").field("state", &state).field("stats", &self.stats.snapshot()).finish()
    }
}

impl<E> QueryStream<E> {
    /// What the stream has cost so far: requests sent (per shard), capacity consumed, items read.
    /// The counters are live: a clone keeps counting while the stream runs.
    pub fn stats(&self) -> &QueryStats {
        &self.stats
    }

    /// A cursor resuming right after the last item the stream yielded (from the beginning, if it
    /// yielded none), for [`Query::start_after`] or [`Db::page`]; `None` when the query has no
    /// more items, and before the first poll of a query whose shards come from shard metadata.
    pub fn cursor(&self) -> Option<String> {
        match &self.state {
            State::Idle(reader) => reader.cursor(&self.db),
            State::Reading(_, position) => position.as_ref().map(|position| position.encode(&self.db)),
            State::Opening(_) | State::Failed(_) | State::Done => None,
        }
    }
}

impl<E: FromItem + Send + 'static> Stream for QueryStream<E> {
    type Item = Result<E>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        let span = this.span.span().clone();
        let polled = span.in_scope(|| this.poll_items(cx));
        this.span.after(&polled, &this.stats);
        polled
    }
}

impl<E> Drop for QueryStream<E> {
    fn drop(&mut self) {
        self.span.finish(&self.stats, Ok(()));
    }
}

impl<E: FromItem + Send + 'static> QueryStream<E> {
    /// The next item, read in the stream's span.
    fn poll_items(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<E>>> {
        let this = self;
        loop {
            match std::mem::replace(&mut this.state, State::Done) {
                State::Opening(mut opening) => match opening.poll_unpin(cx) {
                    Poll::Pending => {
                        this.state = State::Opening(opening);
                        return Poll::Pending;
                    }
                    Poll::Ready(Ok(reader)) => this.state = State::Idle(reader),
                    Poll::Ready(Err(error)) => return Poll::Ready(Some(Err(error))),
                },
                State::Idle(mut reader) => {
                    // Kept for a cursor asked for while the item is read; a cursor asked for
                    // between items also names what sizes the next page (`Reader::cursor`).
                    let position = reader.resume_position();
                    let next = async move {
                        let item = reader.next::<E>().await;
                        (reader, item)
                    };
                    this.state = State::Reading(next.boxed(), position);
                }
                State::Reading(mut next, position) => match next.poll_unpin(cx) {
                    Poll::Pending => {
                        this.state = State::Reading(next, position);
                        return Poll::Pending;
                    }
                    Poll::Ready((reader, item)) => {
                        this.state = State::Idle(reader);
                        return Poll::Ready(item);
                    }
                },
                State::Failed(error) => return Poll::Ready(Some(Err(error))),
                State::Done => return Poll::Ready(None),
            }
        }
    }
}

impl Db {
    /// Runs `query` ([`Db::stream`] with a query).
    pub(crate) fn stream_query<E: FromItem + Send + 'static, F>(&self, query: Query<E, F>) -> QueryStream<E> {
        let plan = Arc::new(query.plan.with_window_named());
        let span = StreamSpan::new(plan.operation(self, "query"), plan.index.map(|index| index.name));
        plan.record_on(span.span(), plan.limit);
        let stats = QueryStats::new(plan.shard_count());
        let limit = plan.limit;
        let state = if let Err(error) = super::request::check(&plan) {
            // Nothing is sent for a plan that cannot run.
            State::Failed(error)
        } else if limit == Some(0) {
            State::Done
        } else if self.plan_needs_metadata(&plan) {
            // The shards to read may come from the metadata table, read on the first poll.
            State::Opening(open(self.clone(), plan, stats.clone()).boxed())
        } else {
            match Reader::open(self, plan, None, limit, &stats) {
                Ok(reader) => State::Idle(Box::new(reader)),
                Err(error) => State::Failed(error),
            }
        };
        QueryStream { db: self.clone(), stats, state, span, marker: PhantomData }
    }
}

/// Resolves the shards of `plan` from the shard metadata, then opens its reader.
async fn open(db: Db, plan: Arc<QueryPlan>, stats: QueryStats) -> Result<Box<Reader>> {
    let resolved = db.resolve_plan(Arc::clone(&plan)).await?;
    stats.set_shards(resolved.shard_count());
    let limit = resolved.limit;
    Reader::open_resolved(&db, &plan, resolved, None, limit, &stats).await.map(Box::new)
}
