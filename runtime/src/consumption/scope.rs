//! What one piece of work consumed: a scope that every unit counted while it runs is also added
//! to ([`Measure::measured`]), however many requests, shards and tasks the work took.
//!
//! The scope is a task-local value; a request sent from a task of its own (the shards of a merge)
//! carries the scope it was started in ([`carry`]). Scopes nest: a unit counted in an inner scope
//! counts in each scope around it too.

use super::totals::{Consumed, Kind, Totals};
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::task::futures::TaskLocalFuture;

tokio::task_local! {
    static SCOPE: Arc<Scope>;
}

/// The units counted while a piece of work runs, and the scope around it.
#[derive(Debug, Default)]
pub(crate) struct Scope {
    totals: Totals,
    /// Sends that failed and were sent again.
    retries: AtomicU32,
    /// Attempts DynamoDB throttled, whoever sent them again.
    throttles: AtomicU32,
    outer: Option<Arc<Scope>>,
}

impl Scope {
    /// A scope within the current one, if any.
    pub(crate) fn new() -> Arc<Scope> {
        Arc::new(Scope {
            totals: Totals::default(),
            retries: AtomicU32::new(0),
            throttles: AtomicU32::new(0),
            outer: current(),
        })
    }

    /// Everything counted in it so far.
    pub(crate) fn consumed(&self) -> Vec<Consumed> {
        self.totals.all()
    }

    /// Sends retried in it so far.
    pub(crate) fn retries(&self) -> u32 {
        self.retries.load(Ordering::Relaxed)
    }

    /// Attempts throttled in it so far.
    pub(crate) fn throttles(&self) -> u32 {
        self.throttles.load(Ordering::Relaxed)
    }

    /// Runs `work` in this scope.
    pub(crate) fn run<F: Future>(self: Arc<Self>, work: F) -> TaskLocalFuture<Arc<Scope>, F> {
        SCOPE.scope(self, work)
    }
}

/// The scope the current task runs in, if any.
pub(crate) fn current() -> Option<Arc<Scope>> {
    SCOPE.try_with(Arc::clone).ok()
}

/// Adds `units` to the current scope and every scope around it.
pub(crate) fn add(place: (&str, Option<&str>, &'static str), kind: Kind, units: f64) {
    let _ = SCOPE.try_with(|scope| {
        let mut scope = Some(scope);
        while let Some(current) = scope {
            current.totals.add(place, kind, units);
            scope = current.outer.as_ref();
        }
    });
}

/// Counts a send that failed and is sent again in the current scope and every scope around it.
pub(crate) fn retried() {
    let _ = SCOPE.try_with(|scope| {
        let mut scope = Some(scope);
        while let Some(current) = scope {
            current.retries.fetch_add(1, Ordering::Relaxed);
            scope = current.outer.as_ref();
        }
    });
}

/// Counts an attempt DynamoDB throttled in the current scope and every scope around it.
pub(crate) fn throttled() {
    let _ = SCOPE.try_with(|scope| {
        let mut scope = Some(scope);
        while let Some(current) = scope {
            current.throttles.fetch_add(1, Ordering::Relaxed);
            scope = current.outer.as_ref();
        }
    });
}

/// `work` in the scope and the span the current task runs in (taken now, not when `work`
/// first runs): for work spawned on a task of its own.
pub(crate) fn carry<F: Future>(work: F) -> impl Future<Output = F::Output> {
    let scope = current();
    let work = tracing::Instrument::instrument(work, tracing::Span::current());
    async move {
        match scope {
            Some(scope) => scope.run(work).await,
            None => work.await,
        }
    }
}

/// Measures what a piece of work consumed: any dynashard operation (a get, a put, a batch, a
/// transaction, a page of a query), or an `async` block of several.
///
/// ```no_run
/// # use dynashard::{Db, Entity, Table};
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Table)]
/// # #[table(name = "Music", pk = "pk", sk = "sk")]
/// # struct Music;
/// # #[derive(Entity, Serialize, Deserialize)]
/// # #[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
/// # struct Album { artist: String, title: String }
/// use dynashard::consumption::Measure;
///
/// # async fn example(db: Db, album: Album) -> dynashard::Result<()> {
/// let put = db.put(&album).measured().await;
/// println!("{} write units", put.write_units());
/// put.output?;
/// # Ok(()) }
/// ```
pub trait Measure: IntoFuture + Sized {
    /// The work, and what it consumed when it is done (whether it succeeded or not: a write
    /// refused by its condition consumes units too).
    fn measured(self) -> Measuring<Self::IntoFuture> {
        let scope = Scope::new();
        Measuring { work: Box::pin(Arc::clone(&scope).run(self.into_future())), scope }
    }
}

impl<W: IntoFuture> Measure for W {}

/// The future of [`Measure::measured`].
#[must_use = "futures do nothing unless awaited"]
pub struct Measuring<F: Future> {
    work: Pin<Box<TaskLocalFuture<Arc<Scope>, F>>>,
    scope: Arc<Scope>,
}

impl<F: Future> std::fmt::Debug for Measuring<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Measuring").field("consumed", &self.scope.consumed()).finish_non_exhaustive()
    }
}

impl<F: Future> Future for Measuring<F> {
    type Output = Measured<F::Output>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let output = std::task::ready!(self.work.as_mut().poll(cx));
        Poll::Ready(Measured {
            output,
            consumed: self.scope.consumed(),
            retries: self.scope.retries(),
            throttles: self.scope.throttles(),
        })
    }
}

/// What a piece of work returned, and the units it consumed.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Measured<T> {
    /// What the work returned.
    pub output: T,
    /// The units it consumed, per table or index and entity type, the table first.
    pub consumed: Vec<Consumed>,
    /// The sends that failed (throttled, say) and were sent again by dynashard.
    pub retries: u32,
    /// The attempts DynamoDB answered with a throttling error, whether the SDK sent them again
    /// (it does by itself, up to its retry configuration's attempts), dynashard did, or nobody.
    /// (A transaction cancelled for throttling and batch items left unprocessed are not.)
    pub throttles: u32,
}

impl<T> Measured<T> {
    /// The read units it consumed, on tables and indexes.
    pub fn read_units(&self) -> f64 {
        self.consumed.iter().map(|consumed| consumed.read_units).sum()
    }

    /// The write units it consumed, on tables and indexes.
    pub fn write_units(&self) -> f64 {
        self.consumed.iter().map(|consumed| consumed.write_units).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn units_count_in_their_scope_and_each_around_it_and_in_spawned_work() {
        let outer = async {
            add(("Music", None, "Song"), Kind::Write, 1.0);
            let inner = async {
                add(("Music", Some("ByArtist"), "Song"), Kind::Write, 2.0);
                let spawned = tokio::spawn(carry(async { add(("Music", None, "Song"), Kind::Read, 0.5) }));
                spawned.await.ok();
            }
            .measured()
            .await;
            (inner.read_units(), inner.write_units(), inner.consumed.len())
        }
        .measured()
        .await;
        assert_eq!(outer.output, (0.5, 2.0, 2), "the inner scope holds what was counted in it");
        assert_eq!((outer.read_units(), outer.write_units()), (0.5, 3.0), "and the outer, all of it");
        add(("Music", None, "Song"), Kind::Write, 1.0);
        assert_eq!(async {}.measured().await.consumed, Vec::new(), "outside any scope: counted nowhere");
    }
}
