//! How a query's or a count's span names it and what it records of the plan.

use super::{QueryPlan, QueryStats};
use crate::consumption::Consumed;
use crate::db::Db;
use crate::error::{Error, Result};
use crate::table::TableDefinition;
use crate::telemetry::{record_consumed, record_outcome, Operation};
use std::task::Poll;
use tracing::Span;

impl QueryPlan {
    /// The read `name` (`query`, `count`) of this plan, as its span names it.
    pub(crate) fn operation<'a>(&self, db: &'a Db, name: &'static str) -> Operation<'a> {
        let table = db.name_of(self.table.name);
        Operation { name, sends: "Query", table, entity: self.type_name, definition: Some(self.table) }
    }

    /// Records on `span` how the plan reads: its index, order, consistency, `limit`, projection
    /// and shard strategy.
    pub(crate) fn record_on(&self, span: &Span, limit: Option<usize>) {
        if span.is_disabled() {
            return;
        }
        if let Some(index) = self.index {
            span.record("aws.dynamodb.index_name", index.name);
        }
        span.record("aws.dynamodb.scan_forward", !self.descending);
        span.record("aws.dynamodb.consistent_read", self.consistent);
        if let Some(limit) = limit {
            span.record("aws.dynamodb.limit", crate::telemetry::int(limit));
        }
        if let Some(attributes) = self.projection {
            span.record("aws.dynamodb.projection", attributes.join(",").as_str());
        }
        span.record("dynashard.shard.strategy", self.strategy());
    }

    /// The shard strategy of the index read.
    fn strategy(&self) -> &'static str {
        self.shards.as_ref().map_or("none", |shards| match shards.target {
            Some(_) => "resharded",
            None => shards.layout.strategy(),
        })
    }
}

/// The span of a query or scan stream: entered while the stream is polled, and closed with
/// what the stream's stats counted when it ends or is dropped.
#[derive(Debug)]
pub(crate) struct StreamSpan {
    span: Span,
    /// Where the read consumed its units (read units left at 0 until the end).
    place: Consumed,
    definition: Option<&'static TableDefinition>,
}

impl StreamSpan {
    /// The span of `operation`, on `index` (`None`: the table).
    pub(crate) fn new(operation: Operation<'_>, index: Option<&str>) -> Self {
        let place = Consumed {
            table: operation.table.to_owned(),
            index: index.map(str::to_owned),
            entity: operation.entity,
            read_units: 0.0,
            write_units: 0.0,
        };
        StreamSpan { span: operation.span(), place, definition: operation.definition }
    }

    /// The span, to record on or enter.
    pub(crate) fn span(&self) -> &Span {
        &self.span
    }

    /// After a poll of the stream: when it `polled` its end or an error, finishes the span.
    pub(crate) fn after<T>(&mut self, polled: &Poll<Option<Result<T>>>, stats: &QueryStats) {
        match polled {
            Poll::Ready(None) => self.finish(stats, Ok(())),
            Poll::Ready(Some(Err(error))) => self.finish(stats, Err(error)),
            Poll::Ready(Some(Ok(_))) | Poll::Pending => {}
        }
    }

    /// Records what `stats` counted and how the read ended, and closes the span; later calls do
    /// nothing.
    pub(crate) fn finish(&mut self, stats: &QueryStats, outcome: std::result::Result<(), &Error>) {
        let span = std::mem::replace(&mut self.span, Span::none());
        if span.is_disabled() {
            return;
        }
        let consumed = Consumed { read_units: stats.capacity_units(), ..self.place.clone() };
        record_consumed(&span, self.definition, &[consumed]);
        span.record("aws.dynamodb.count", crate::telemetry::int(stats.items_read()));
        span.record("dynashard.requests", crate::telemetry::int(stats.requests()));
        let shards = stats.per_shard_requests().iter().filter(|requests| **requests > 0).count();
        span.record("dynashard.shards_read", crate::telemetry::int(shards));
        record_outcome(&span, outcome);
    }
}
