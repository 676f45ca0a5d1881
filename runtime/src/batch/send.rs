//! Sending `BatchWriteItem` requests of up to 25 writes, with bounded concurrency, retrying what
//! comes back unprocessed; whatever is not applied in the end is returned, never dropped.

use super::attempts::{Attempts, Failure, Tally};
use super::{RetryPolicy, Unprocessed};
use crate::consumption::{BatchItem, BatchItems, EntityType, Kind};
use crate::db::Db;
use crate::error::{Error, Result};
use crate::table::TableDefinition;
use crate::telemetry::{Reported, Request as Traced};
use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemOutput;
use aws_sdk_dynamodb::types::{ReturnConsumedCapacity, WriteRequest};
use futures::future::BoxFuture;
use futures::stream::{self, StreamExt};
use std::sync::atomic::AtomicBool;

pub(crate) const OPERATION: &str = "BatchWriteItem";

/// A check a batch makes before it retries what came back unprocessed: an error stops it.
pub(crate) trait BeforeRetry: Sync {
    /// Whether the writes may still be sent.
    fn check<'a>(&'a self, db: &'a Db) -> BoxFuture<'a, Result<()>>;
}

/// The outcome of one request and its retries.
struct Outcome {
    written: usize,
    pending: Vec<WriteRequest>,
    /// Whether `pending` may have been applied (a send of it failed with an open outcome).
    unknown: bool,
    error: Option<(Error, bool)>,
}

/// Sends `chunks` (each at most 25 writes to `table`), `concurrency` requests at a time; fails
/// with [`Error::BatchIncomplete`] holding every write that was not applied, and apart from them
/// every write whose outcome is unknown (left over from a request a send of which may have been
/// applied).
pub(crate) async fn send_requests(
    sender: &Sender<'_>,
    table: &str,
    chunks: Vec<Vec<WriteRequest>>,
    concurrency: usize,
) -> Result<()> {
    let stop = AtomicBool::new(false);
    let mut outcomes = stream::iter(chunks)
        .map(|chunk| sender.write(table, chunk, &stop))
        .buffer_unordered(concurrency.max(1));
    let (mut unprocessed, mut unknown) = (Writes::default(), Writes::default());
    let mut tally = Tally::default();
    while let Some(outcome) = outcomes.next().await {
        let into = if outcome.unknown { &mut unknown } else { &mut unprocessed };
        outcome.pending.into_iter().for_each(|request| into.add(request));
        tally.add(outcome.written, outcome.error);
    }
    drop(outcomes);
    if unprocessed.is_empty() && unknown.is_empty() {
        return Ok(());
    }
    Err(Error::BatchIncomplete {
        operation: OPERATION,
        unprocessed: unprocessed.into(),
        unknown: Box::new(unknown.into()),
        succeeded: tally.succeeded,
        last_error: tally.last_error(),
    })
}

/// Writes handed back, as [`Unprocessed::Writes`] holds them.
#[derive(Default)]
pub(crate) struct Writes {
    puts: Vec<crate::error::Item>,
    deletes: Vec<crate::error::Item>,
}

impl Writes {
    /// Adds the write of `request`.
    pub(crate) fn add(&mut self, request: WriteRequest) {
        self.puts.extend(request.put_request.map(|put| put.item));
        self.deletes.extend(request.delete_request.map(|delete| delete.key));
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.puts.is_empty() && self.deletes.is_empty()
    }

    /// Adds the writes of `left` (the leftovers of a batch write).
    pub(crate) fn absorb(&mut self, left: Unprocessed) {
        if let Unprocessed::Writes { puts, deletes } = left {
            self.puts.extend(puts);
            self.deletes.extend(deletes);
        }
    }

    /// The key items of the deletes.
    pub(crate) fn deletes_mut(&mut self) -> &mut Vec<crate::error::Item> {
        &mut self.deletes
    }
}

impl From<Writes> for Unprocessed {
    fn from(writes: Writes) -> Self {
        Unprocessed::Writes { puts: writes.puts, deletes: writes.deletes }
    }
}

/// Sends the requests of one batch write call.
pub(crate) struct Sender<'a> {
    pub db: &'a Db,
    pub retry: RetryPolicy,
    /// Checked before every retry: a retry is sent only while it holds (the reshardings the
    /// writes were built for, for example).
    pub before_retry: Option<&'a dyn BeforeRetry>,
    /// Told of every request sent, with the write capacity it consumed.
    pub on_request: Option<super::get::OnRequest<'a>>,
    /// The table's declaration and the entity types written, when the `Db`'s totals and hot
    /// keys count the writes.
    pub counted: Option<(&'static TableDefinition, &'a [EntityType])>,
}

impl Sender<'_> {
    /// Sends one request of up to 25 writes, retrying what comes back unprocessed.
    async fn write(&self, table: &str, mut pending: Vec<WriteRequest>, stop: &AtomicBool) -> Outcome {
        let total = pending.len();
        let mut attempts = Attempts::new(OPERATION, self.retry, stop, total);
        while attempts.begin() {
            match self.send(table, &pending).await {
                Ok(unprocessed) => pending = unprocessed,
                Err(failure) => {
                    if !attempts.failed(failure) {
                        break;
                    }
                }
            }
            if pending.is_empty() || !attempts.retry(pending.len()).await {
                break;
            }
            if let Some(Err(error)) = self.retry_allowed().await {
                attempts.failed(Failure::fatal(error));
                break;
            }
        }
        let unknown = attempts.outcome_unknown();
        Outcome { written: total - pending.len(), pending, unknown, error: attempts.finish() }
    }

    /// Runs the check before a retry (`None`: there is none).
    async fn retry_allowed(&self) -> Option<Result<()>> {
        Some(self.before_retry?.check(self.db).await)
    }

    /// One `BatchWriteItem` request; returns the writes DynamoDB left unprocessed.
    async fn send(&self, table: &str, requests: &[WriteRequest]) -> Result<Vec<WriteRequest>, Failure> {
        let capacity = match (self.counted, self.on_request) {
            (Some(_), _) => Some(ReturnConsumedCapacity::Indexes),
            (None, Some(_)) => Some(ReturnConsumedCapacity::Total),
            (None, None) => None,
        };
        let request = self
            .db
            .client()
            .batch_write_item()
            .request_items(table, requests.to_vec())
            .set_return_consumed_capacity(capacity);
        let sent = async { request.send().await.map_err(|error| Failure::from_sdk(OPERATION, error)) };
        let traced = Traced { sends: OPERATION, table };
        let output = traced.send(traced.span(), sent, |output: &BatchWriteItemOutput| Reported {
            consumed: output.consumed_capacity.iter().flatten().collect(),
            ..Reported::default()
        });
        let output = output.await?;
        let unprocessed = output.unprocessed_items.as_ref().and_then(|unprocessed| unprocessed.get(table));
        if let Some((definition, entities)) = self.counted {
            let batch = BatchItems { definition, table, entities, kind: Kind::Write };
            let items: Vec<BatchItem<'_>> = requests.iter().filter_map(BatchItem::of_write).collect();
            batch.count(self.db.meter(), &items, output.consumed_capacity.as_deref().unwrap_or_default());
            let left = unprocessed.into_iter().flatten().filter_map(BatchItem::of_write);
            batch.throttled(self.db.meter(), left.map(|item| item.item));
        }
        if let Some(on_request) = self.on_request {
            on_request(
                output
                    .consumed_capacity
                    .iter()
                    .flatten()
                    .filter_map(|consumed| consumed.capacity_units)
                    .sum(),
            );
        }
        Ok(output.unprocessed_items.and_then(|mut unprocessed| unprocessed.remove(table)).unwrap_or_default())
    }
}
