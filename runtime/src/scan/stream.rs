//! The stream of a running scan.

use super::{run, Scan};
use crate::db::Db;
use crate::error::Result;
use crate::query::QueryStats;
use futures::stream::{BoxStream, Stream};
use std::pin::Pin;
use std::task::{Context, Poll};

/// The items of a [`Scan`] run with [`Db::stream`], in no particular order, and what reading
/// them has cost so far ([`ScanStream::stats`]: requests per segment, read units, items
/// returned).
///
/// Nothing is sent before it is first polled; dropping it stops the reads. The first error ends
/// it.
///
/// ```no_run
/// # async fn example<E: dynashard::Entity>(db: dynashard::Db) -> dynashard::Result<()> {
/// use futures::TryStreamExt;
/// let mut items = db.stream(dynashard::Scan::<E>::entity().segments(16).concurrency(4));
/// while let Some(item) = items.try_next().await? {
///     // items arrive in no particular order
/// }
/// println!("{} requests, {} read units", items.stats().requests(), items.stats().capacity_units());
/// # Ok(()) }
/// ```
#[must_use = "a scan stream does nothing unless polled"]
pub struct ScanStream<T> {
    items: BoxStream<'static, Result<T>>,
    stats: QueryStats,
}

impl<T> std::fmt::Debug for ScanStream<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScanStream").field("stats", &self.stats).finish_non_exhaustive()
    }
}

impl<T: Send + 'static> ScanStream<T> {
    /// Starts `scan` through `db` (nothing is sent before the first poll).
    pub(crate) fn new(db: &Db, scan: Scan<T>) -> Self {
        let stats = QueryStats::new(scan.plan.segments as usize);
        let items = run::run(db.clone(), scan.plan, scan.decode, stats.clone());
        ScanStream { items, stats }
    }
}

impl<T> ScanStream<T> {
    /// What the scan has cost so far; a clone keeps counting.
    pub fn stats(&self) -> &QueryStats {
        &self.stats
    }
}

impl<T> Stream for ScanStream<T> {
    type Item = Result<T>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.items.as_mut().poll_next(cx)
    }
}
