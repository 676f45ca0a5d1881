//! The stream of a running scan.

use super::{run, Scan, ScanPlan};
use crate::db::Db;
use crate::error::Result;
use crate::query::QueryStats;
use crate::query::StreamSpan;
use crate::telemetry::Operation;
use futures::stream::{BoxStream, Stream};
use std::pin::Pin;
use std::task::{Context, Poll};
use tracing::Span;

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
    span: StreamSpan,
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
        let span = StreamSpan::new(scan.plan.operation(db, "scan"), scan.plan.index.as_deref());
        scan.plan.record_on(span.span());
        let items = run::run(db.clone(), scan.plan, scan.decode, stats.clone());
        ScanStream { items, stats, span }
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

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        let span = this.span.span().clone();
        let polled = span.in_scope(|| this.items.as_mut().poll_next(cx));
        this.span.after(&polled, &this.stats);
        polled
    }
}

impl<T> Drop for ScanStream<T> {
    fn drop(&mut self) {
        self.span.finish(&self.stats, Ok(()));
    }
}

impl ScanPlan {
    /// The read `name` (`scan`, `count`) of this plan, as its span names it.
    pub(crate) fn operation<'a>(&self, db: &'a Db, name: &'static str) -> Operation<'a> {
        let (table, entity) =
            (db.name_of(self.table.name), self.type_names.first().copied().unwrap_or_default());
        Operation { name, sends: "Scan", table, entity, definition: Some(self.table) }
    }

    /// Records on `span` how the plan reads: its index, consistency, limit and segments.
    pub(crate) fn record_on(&self, span: &Span) {
        if let Some(index) = &self.index {
            span.record("aws.dynamodb.index_name", index.as_str());
        }
        span.record("aws.dynamodb.consistent_read", self.consistent);
        if let Some(limit) = self.limit {
            span.record("aws.dynamodb.limit", crate::telemetry::int(limit));
        }
        span.record("aws.dynamodb.total_segments", crate::telemetry::int(self.segments));
    }
}
