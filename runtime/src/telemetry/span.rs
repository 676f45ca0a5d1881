//! The spans: one per operation, one per request an operation sends, with the attributes of
//! OpenTelemetry's conventions for DynamoDB clients and dynashard's own.

use super::capacity;
use crate::consumption::{Consumed, Scope};
use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::item::table_of;
use crate::table::TableDefinition;
use aws_sdk_dynamodb::types::ConsumedCapacity;
use std::future::Future;
use std::sync::Arc;
use tracing::field::Empty;
use tracing::{Instrument, Span};

/// An operation, as its span names it before it runs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Operation<'a> {
    /// dynashard's name for it: `get`, `put`, `query`, `batch_write`, ...
    pub name: &'static str,
    /// The DynamoDB operation it sends (`GetItem`, `Query`, ...); empty for a step that sends
    /// several.
    pub sends: &'static str,
    /// The table's name, as sent.
    pub table: &'a str,
    /// The entity type (a collection's first type; a table batch's table).
    pub entity: &'static str,
    /// The table's declaration (`None`: of several tables, or none).
    pub definition: Option<&'static TableDefinition>,
}

impl<'a> Operation<'a> {
    /// The operation `name` on entity type `E`, sending `sends`.
    pub(crate) fn of<E: Entity>(db: &'a Db, name: &'static str, sends: &'static str) -> Self {
        Operation {
            name,
            sends,
            table: db.table_of::<E>(),
            entity: E::TYPE_NAME,
            definition: Some(table_of::<E>()),
        }
    }

    /// The operation's span (level `INFO`, target `dynashard`).
    pub(crate) fn span(&self) -> Span {
        let span = tracing::info_span!(
            target: "dynashard",
            "dynashard.operation",
            otel.name = format!("{} {}", self.name, self.entity).trim_end(),
            otel.kind = "client",
            otel.status_code = Empty,
            error.type = Empty,
            db.system.name = "aws.dynamodb",
            db.operation.name = Empty,
            aws.dynamodb.table_names = self.table,
            aws.dynamodb.index_name = Empty,
            aws.dynamodb.consumed_capacity = Empty,
            aws.dynamodb.limit = Empty,
            aws.dynamodb.scan_forward = Empty,
            aws.dynamodb.consistent_read = Empty,
            aws.dynamodb.projection = Empty,
            aws.dynamodb.select = Empty,
            aws.dynamodb.total_segments = Empty,
            aws.dynamodb.count = Empty,
            aws.dynamodb.scanned_count = Empty,
            dynashard.operation = self.name,
            dynashard.entity = self.entity,
            dynashard.shard.strategy = Empty,
            dynashard.shards_read = Empty,
            dynashard.requests = Empty,
            dynashard.retries = Empty,
            dynashard.throttles = Empty,
            dynashard.throttle_reasons = Empty,
            dynashard.read_units = Empty,
            dynashard.write_units = Empty,
        );
        if !self.sends.is_empty() {
            span.record("db.operation.name", self.sends);
        }
        span
    }

    /// Runs `work` in the operation's span, and records on it what the work consumed (counted
    /// in a scope of its own) and how it ended. Nothing is counted or recorded when no
    /// subscriber wants the span.
    pub(crate) fn run<T>(self, work: impl Future<Output = Result<T>>) -> impl Future<Output = Result<T>> {
        self.traced().run(work)
    }

    /// The operation's span, to run work in later.
    pub(crate) fn traced(self) -> Traced {
        Traced { span: self.span(), definition: self.definition }
    }
}

/// An operation's span, and the table it records the units of.
#[derive(Debug)]
pub(crate) struct Traced {
    span: Span,
    definition: Option<&'static TableDefinition>,
}

impl Traced {
    /// The span.
    pub(crate) fn span(&self) -> &Span {
        &self.span
    }

    /// See [`Operation::run`].
    pub(crate) fn run<T>(self, work: impl Future<Output = Result<T>>) -> impl Future<Output = Result<T>> {
        // On the heap before anything holds it: an operation's future can be deep (a resharding
        // step's), and wrapped in a scope and a span it would be deeper still on the stack that
        // polls it.
        let work = Box::pin(work);
        let Traced { span, definition } = self;
        async move {
            if span.is_disabled() {
                return work.await;
            }
            let scope = Scope::new();
            let result = Arc::clone(&scope).run(work).instrument(span.clone()).await;
            record_counted(&span, &scope, definition);
            if scope.retries() > 0 {
                span.record("dynashard.retries", i64::from(scope.retries()));
            }
            if scope.throttles() > 0 {
                span.record("dynashard.throttles", i64::from(scope.throttles()));
            }
            record_outcome(&span, result.as_ref().map(|_| ()));
            result
        }
    }
}

/// One request an operation sends, as its span names it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Request<'a> {
    /// The DynamoDB operation (`Query`, `BatchWriteItem`, ...).
    pub sends: &'static str,
    /// The table's name, as sent.
    pub table: &'a str,
}

impl Request<'_> {
    /// The request's span, a child of the current one (level `DEBUG`, target `dynashard`).
    pub(crate) fn span(&self) -> Span {
        tracing::debug_span!(
            target: "dynashard",
            "dynashard.request",
            otel.name = format!("DynamoDB.{}", self.sends).as_str(),
            otel.kind = "client",
            otel.status_code = Empty,
            error.type = Empty,
            rpc.system = "aws-api",
            rpc.service = "DynamoDB",
            rpc.method = self.sends,
            db.system.name = "aws.dynamodb",
            db.operation.name = self.sends,
            aws.dynamodb.table_names = self.table,
            aws.dynamodb.index_name = Empty,
            aws.dynamodb.consumed_capacity = Empty,
            aws.dynamodb.limit = Empty,
            aws.dynamodb.scan_forward = Empty,
            aws.dynamodb.consistent_read = Empty,
            aws.dynamodb.projection = Empty,
            aws.dynamodb.select = Empty,
            aws.dynamodb.segment = Empty,
            aws.dynamodb.total_segments = Empty,
            aws.dynamodb.count = Empty,
            aws.dynamodb.scanned_count = Empty,
            dynashard.shard = Empty,
            dynashard.throttle_reasons = Empty,
        )
    }
}

impl Request<'_> {
    /// Sends `request` in this request's span, and records on it what the response says it
    /// consumed, returned and read (`reported`), or how it failed.
    pub(crate) async fn send<O, Failed: AsRef<Error>>(
        self,
        span: Span,
        request: impl Future<Output = std::result::Result<O, Failed>>,
        reported: impl FnOnce(&O) -> Reported<'_>,
    ) -> std::result::Result<O, Failed> {
        let result = request.instrument(span.clone()).await;
        if span.is_disabled() {
            return result;
        }
        match &result {
            Ok(output) => {
                let reported = reported(output);
                span.record("aws.dynamodb.consumed_capacity", capacity::of_responses(reported.consumed));
                if let Some(count) = reported.count {
                    span.record("aws.dynamodb.count", count);
                }
                if let Some(scanned) = reported.scanned {
                    span.record("aws.dynamodb.scanned_count", scanned);
                }
            }
            Err(error) => record_outcome(&span, Err(error.as_ref())),
        }
        result
    }
}

/// What a response reports: the units consumed, the items returned and read.
#[derive(Default)]
pub(crate) struct Reported<'o> {
    pub consumed: Vec<&'o ConsumedCapacity>,
    pub count: Option<i32>,
    pub scanned: Option<i32>,
}

/// Records what a piece of work counted in `scope` on its span.
fn record_counted(span: &Span, scope: &Scope, definition: Option<&TableDefinition>) {
    record_consumed(span, definition, &scope.consumed());
}

/// Records `consumed` on an operation's span: DynamoDB's form, and the units in all.
pub(crate) fn record_consumed(span: &Span, definition: Option<&TableDefinition>, consumed: &[Consumed]) {
    let (read, write) = consumed.iter().fold((0.0, 0.0), |(read, write), consumed| {
        (read + consumed.read_units, write + consumed.write_units)
    });
    span.record("aws.dynamodb.consumed_capacity", capacity::of_counted(consumed, definition));
    span.record("dynashard.read_units", read);
    span.record("dynashard.write_units", write);
}

/// Records how an operation or request ended: on an error, its kind and the throttling reasons
/// DynamoDB gave.
pub(crate) fn record_outcome(span: &Span, outcome: std::result::Result<(), &Error>) {
    let Err(error) = outcome else { return };
    span.record("otel.status_code", "ERROR");
    span.record("error.type", error.kind());
    let reasons = error.throttling_reasons();
    if !reasons.is_empty() {
        let names: Vec<&str> = reasons.iter().map(|reason| reason.reason()).collect();
        span.record("dynashard.throttle_reasons", names.join(",").as_str());
    }
}
