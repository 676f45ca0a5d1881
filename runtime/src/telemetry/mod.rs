//! Spans for OpenTelemetry, through [`tracing`]: one per operation, one per request it sends.
//!
//! Every operation (a get, put, update, upsert, delete, query or scan stream, count, batch,
//! transaction, change-feed page, resharding step) runs in a span at level `INFO` with target
//! `dynashard`, named for OpenTelemetry (`otel.name`) as the operation and its entity type
//! (`get Album`). Each request it sends to DynamoDB is a child span at level `DEBUG`
//! (`DynamoDB.Query`): one per shard of a merged read, per batch request, per scan page. With
//! `tracing-opentelemetry`, their fields become the attributes a collector receives:
//!
//! | attribute | on | value |
//! |---|---|---|
//! | `db.system.name` | both | `aws.dynamodb` |
//! | `db.operation.name` | both | the DynamoDB operation: `GetItem`, `Query`, `BatchWriteItem`, ... |
//! | `aws.dynamodb.table_names` | both | the table's name (one table; a string, as `tracing` records) |
//! | `aws.dynamodb.index_name` | both | the index read, if any |
//! | `aws.dynamodb.consumed_capacity` | both | JSON array of DynamoDB's `ConsumedCapacity`, per table |
//! | `aws.dynamodb.limit`, `scan_forward`, `consistent_read`, `projection`, `select` | both | as the request(s) sent them |
//! | `aws.dynamodb.segment`, `total_segments` | scans | the segment of a request, the segments of the scan |
//! | `aws.dynamodb.count`, `scanned_count` | reads | items returned, and items read before a filter |
//! | `otel.status_code`, `error.type` | both | `ERROR` and [`Error::kind`](crate::Error::kind) when it failed |
//! | `dynashard.operation`, `dynashard.entity` | operation | `get`, `query`, ...; the entity type |
//! | `dynashard.shard.strategy` | reads | the index's shard strategy: `hash`, `random`, `range`, `time`, `dynamic`, `none` |
//! | `dynashard.shards_read`, `dynashard.requests` | reads | shards that were sent a request; requests sent |
//! | `dynashard.shard` | request | the shard the request read |
//! | `dynashard.retries` | operation | sends that failed and were retried |
//! | `dynashard.throttles` | operation | attempts DynamoDB throttled, the SDK's own retries among them |
//! | `dynashard.throttle_reasons` | both | DynamoDB's throttling reasons, comma-separated |
//! | `dynashard.read_units`, `dynashard.write_units` | operation | the units it consumed in all |
//!
//! A span no subscriber wants costs a check of its level, and nothing is counted for it.
//!
//! ```no_run
//! # fn example() {
//! use tracing_subscriber::prelude::*;
//! // Operations only; `dynashard=debug` adds a span per request.
//! let filter = tracing_subscriber::filter::Targets::new().with_target("dynashard", tracing::Level::INFO);
//! tracing_subscriber::registry().with(tracing_subscriber::fmt::layer().with_filter(filter)).init();
//! # }
//! ```

mod capacity;
mod span;

pub(crate) use span::{record_consumed, record_outcome, Operation, Reported, Request};

/// A count as a span records it: OpenTelemetry's integers are `i64`, and a count past it (a
/// limit of `usize::MAX`, say) is `i64::MAX`.
pub(crate) fn int(count: impl TryInto<i64>) -> i64 {
    count.try_into().unwrap_or(i64::MAX)
}
