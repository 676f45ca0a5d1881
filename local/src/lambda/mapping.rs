//! The event source mapping played in process: a table's stream read shard by shard (a child
//! after its parent), cut into batches, handed to a handler as Lambda's JSON events, and its
//! answers read as Lambda reads them.

use super::answer::{read_answer, Outcome};
use super::event;
use aws_sdk_dynamodbstreams::types::ShardIteratorType;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use std::fmt::Display;
use std::future::Future;

/// Why a delivery could not go on: the stream could not be read, or a batch can never be handed
/// over (its event does not deserialize) or never succeeds.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MappingError {
    /// The table has no stream.
    #[error("table `{table}` has no stream to deliver")]
    NoStream {
        /// The table.
        table: String,
    },
    /// A call to DynamoDB or its Streams API failed.
    #[error("{operation} failed: {message}")]
    Stream {
        /// The API call.
        operation: &'static str,
        /// The SDK's error, with its causes.
        message: String,
    },
    /// The handler's event type does not read the event (Lambda would fail every invocation).
    #[error("the handler's event type does not read a stream event: {0}")]
    Event(String),
    /// A batch failed this many invocations in a row, with no retry limit set to discard it.
    #[error("the batch from sequence number {sequence_number} failed {invocations} invocations in a row; last: {last}")]
    Stuck {
        /// Where the batch begins.
        sequence_number: String,
        /// The invocations that failed.
        invocations: u32,
        /// The last failure.
        last: String,
    },
}

/// What one [`EventSourceMapping::deliver`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Delivery {
    /// Invocations of the handler.
    pub invocations: u64,
    /// Records handed over, counting every time a record was.
    pub records_handed: u64,
    /// Invocations that failed as a whole (an error, or an answer Lambda reads as one).
    pub failed_invocations: u64,
    /// Answers that named records failed (`batchItemFailures`).
    pub partial_failures: u64,
    /// Batches split in two after an error.
    pub bisections: u64,
    /// Sequence numbers of the records given up after the retry limit, in order (what Lambda
    /// sends to the on-failure destination).
    pub discarded: Vec<String>,
}

/// AWS Lambda's DynamoDB Streams event source mapping, reproduced in process so that a stream
/// handler is tried here as Lambda runs it: the same event JSON, batches of one shard in order
/// (a shard's children after it), and the documented answers to its outcomes:
///
/// - `Ok` with `ReportBatchItemFailures` on ([`report_batch_item_failures`](Self::report_batch_item_failures),
///   the default): no `batchItemFailures` (or `null`) is a success; otherwise the shard resumes
///   at the lowest sequence number named, and every record from there is delivered again; an
///   `itemIdentifier` that is missing, empty or not a record of the batch fails the whole batch.
/// - `Err` (a function error): the whole batch again, or, with
///   [`bisect_batch_on_function_error`](Self::bisect_batch_on_function_error), its first half
///   and then its second, down to single records.
/// - After [`maximum_retry_attempts`](Self::maximum_retry_attempts) retries of a batch, its
///   records are given up (listed in [`Delivery::discarded`]); by default, as on Lambda, never.
///
/// One shard is delivered at a time (Lambda's parallelization factor of 1).
#[derive(Debug)]
pub struct EventSourceMapping {
    dynamodb: aws_sdk_dynamodb::Client,
    streams: aws_sdk_dynamodbstreams::Client,
    table: String,
    batch_size: usize,
    report_batch_item_failures: bool,
    bisect: bool,
    maximum_retry_attempts: Option<u32>,
    stuck_after: u32,
    stream_arn: Option<String>,
    shards: Vec<ShardState>,
}

/// What the mapping knows of one shard.
#[derive(Debug)]
struct ShardState {
    id: String,
    parent: Option<String>,
    /// The shard's records read so far (event JSON, sequence number), and the next to deliver.
    records: Vec<(Value, String)>,
    next: usize,
    iterator: Option<String>,
    /// Read to its end: closed, and every record read.
    ended: bool,
    /// The batch being retried: where the records it may hold end (a bisected batch's half),
    /// and the invocations it failed.
    window_end: Option<usize>,
    failures: u32,
}

impl ShardState {
    /// Where the next batch ends: `batch_size` records on, within the records read and the
    /// bisected window, if any.
    fn batch_end(&self, batch_size: usize) -> usize {
        self.window_end.unwrap_or(usize::MAX).min(self.records.len()).min(self.next + batch_size)
    }
}

impl EventSourceMapping {
    /// A mapping of `table`'s stream, read with `streams`; `dynamodb` finds the stream.
    pub fn new(
        dynamodb: aws_sdk_dynamodb::Client,
        streams: aws_sdk_dynamodbstreams::Client,
        table: impl Into<String>,
    ) -> Self {
        EventSourceMapping {
            dynamodb,
            streams,
            table: table.into(),
            batch_size: 100,
            report_batch_item_failures: true,
            bisect: false,
            maximum_retry_attempts: None,
            stuck_after: 1_000,
            stream_arn: None,
            shards: Vec::new(),
        }
    }

    /// A mapping of `table`'s stream at a DynamoDB endpoint (say [`crate::shared_endpoint`]).
    pub fn at(endpoint: &str, table: impl Into<String>) -> Self {
        EventSourceMapping::new(
            dynashard::client::client_for_endpoint(endpoint),
            crate::stream_identity::streams_client(endpoint),
            table,
        )
    }

    /// The most records in one event (Lambda's `BatchSize`; 100 by default, at least 1).
    pub fn batch_size(mut self, records: usize) -> Self {
        self.batch_size = records.max(1);
        self
    }

    /// Whether the handler's answer names failed records (`FunctionResponseTypes:
    /// ["ReportBatchItemFailures"]`; on by default). Off, any `Ok` answer is a success.
    pub fn report_batch_item_failures(mut self, on: bool) -> Self {
        self.report_batch_item_failures = on;
        self
    }

    /// Whether a batch whose invocation fails is split in two for its retries
    /// (`BisectBatchOnFunctionError`; off by default).
    pub fn bisect_batch_on_function_error(mut self, on: bool) -> Self {
        self.bisect = on;
        self
    }

    /// Retries of a failed batch before its records are given up (`MaximumRetryAttempts`;
    /// `None`, the default, retries until they succeed, as Lambda's `-1` does).
    pub fn maximum_retry_attempts(mut self, retries: Option<u32>) -> Self {
        self.maximum_retry_attempts = retries;
        self
    }

    /// Invocations a batch may fail in a row, with no retry limit, before
    /// [`deliver`](Self::deliver) ends with [`MappingError::Stuck`] (1,000 by default): a
    /// handler that can never succeed ends a test rather than hanging it.
    pub fn stuck_after(mut self, invocations: u32) -> Self {
        self.stuck_after = invocations.max(1);
        self
    }

    /// Delivers every record the stream holds now, and has not delivered, to `handler`, which
    /// takes the event as `lambda_runtime` would give it (say `aws_lambda_events`' DynamoDB
    /// `Event`) and answers as a Lambda function does (say a `DynamoDbEventResponse`). Later
    /// calls go on where this one ended.
    pub async fn deliver<H, Fut, Ev, R, E>(&mut self, mut handler: H) -> Result<Delivery, MappingError>
    where
        H: FnMut(Ev) -> Fut,
        Fut: Future<Output = Result<R, E>>,
        Ev: DeserializeOwned,
        R: Serialize,
        E: Display,
    {
        let arn = self.stream_arn().await?;
        self.list_shards(&arn).await?;
        let mut delivery = Delivery::default();
        // A child becomes deliverable once its parent is done: rounds until one moves nothing.
        loop {
            let (invocations, ended) = (delivery.invocations, self.ended());
            for index in 0..self.shards.len() {
                if !self.may_deliver(index) {
                    continue;
                }
                self.read(index).await?;
                while self.shards[index].next < self.shards[index].records.len() {
                    self.invoke(index, &arn, &mut handler, &mut delivery).await?;
                }
            }
            if delivery.invocations == invocations && self.ended() == ended {
                break;
            }
        }
        Ok(delivery)
    }

    /// Whether the shard at `index` may be delivered: its parent, if the stream still lists it,
    /// is read to its end and delivered.
    fn may_deliver(&self, index: usize) -> bool {
        let Some(parent) = &self.shards[index].parent else { return true };
        self.shards
            .iter()
            .find(|candidate| &candidate.id == parent)
            .is_none_or(|parent| parent.ended && parent.next == parent.records.len())
    }

    /// The shards read to their end.
    fn ended(&self) -> usize {
        self.shards.iter().filter(|shard| shard.ended).count()
    }

    /// One invocation with the next batch of the shard at `index`, and what its outcome moves.
    async fn invoke<H, Fut, Ev, R, E>(
        &mut self,
        index: usize,
        arn: &str,
        handler: &mut H,
        delivery: &mut Delivery,
    ) -> Result<(), MappingError>
    where
        H: FnMut(Ev) -> Fut,
        Fut: Future<Output = Result<R, E>>,
        Ev: DeserializeOwned,
        R: Serialize,
        E: Display,
    {
        let (batch_size, bisect, report) = (self.batch_size, self.bisect, self.report_batch_item_failures);
        let shard = &mut self.shards[index];
        let end = shard.batch_end(batch_size);
        let batch = &shard.records[shard.next..end];
        let records: Vec<Value> = batch.iter().map(|(record, _)| record.clone()).collect();
        let payload = serde_json::from_value::<Ev>(event::event(&records))
            .map_err(|error| MappingError::Event(format!("{error} (stream {arn})")))?;
        delivery.invocations += 1;
        delivery.records_handed += batch.len() as u64;
        let outcome = match handler(payload).await {
            Err(error) => Outcome::Failed(error.to_string()),
            Ok(_) if !report => Outcome::Done,
            Ok(answer) => read_answer(serde_json::to_value(answer).ok(), batch),
        };
        let first = shard.next;
        let outcome_text = match &outcome {
            Outcome::Failed(message) => Some(message.clone()),
            _ => None,
        };
        match outcome {
            Outcome::Done => {
                shard.next = end;
                shard.failures = 0;
                if shard.window_end.is_some_and(|window| shard.next >= window) {
                    shard.window_end = None;
                }
                return Ok(());
            }
            Outcome::ResumeAt(offset) => {
                delivery.partial_failures += 1;
                shard.next += offset;
                // The records before the one named are done: the retry counts from it.
                shard.failures = if offset == 0 { shard.failures + 1 } else { 1 };
                shard.window_end = None;
            }
            Outcome::Failed(_) => {
                delivery.failed_invocations += 1;
                shard.failures += 1;
                if bisect && end - first > 1 {
                    delivery.bisections += 1;
                    shard.window_end = Some(first + (end - first).div_ceil(2));
                    shard.failures = 0;
                }
            }
        }
        if self.maximum_retry_attempts.is_none() && shard.failures >= self.stuck_after {
            let last = match outcome_text {
                Some(text) => text,
                None => "the answer named this record failed".to_owned(),
            };
            let sequence_number = shard.records[shard.next].1.clone();
            return Err(MappingError::Stuck { sequence_number, invocations: shard.failures, last });
        }
        if let Some(retries) = self.maximum_retry_attempts {
            if shard.failures > retries {
                let end = shard.batch_end(batch_size);
                delivery
                    .discarded
                    .extend(shard.records[shard.next..end].iter().map(|(_, sequence)| sequence.clone()));
                shard.next = end;
                shard.failures = 0;
                shard.window_end = None;
            }
        }
        Ok(())
    }

    /// The table's stream.
    async fn stream_arn(&mut self) -> Result<String, MappingError> {
        if let Some(arn) = &self.stream_arn {
            return Ok(arn.clone());
        }
        let described = self
            .dynamodb
            .describe_table()
            .table_name(&self.table)
            .send()
            .await
            .map_err(|error| failed("DescribeTable", error))?;
        let arn = described
            .table()
            .and_then(|table| table.latest_stream_arn())
            .ok_or_else(|| MappingError::NoStream { table: self.table.clone() })?
            .to_owned();
        self.stream_arn = Some(arn.clone());
        Ok(arn)
    }

    /// Adds the shards the stream lists that the mapping does not know yet.
    async fn list_shards(&mut self, arn: &str) -> Result<(), MappingError> {
        let mut start: Option<String> = None;
        loop {
            let described = self
                .streams
                .describe_stream()
                .stream_arn(arn)
                .set_exclusive_start_shard_id(start.take())
                .send()
                .await
                .map_err(|error| failed("DescribeStream", error))?;
            let Some(description) = described.stream_description() else { return Ok(()) };
            for shard in description.shards() {
                let Some(id) = shard.shard_id() else { continue };
                if self.shards.iter().all(|known| known.id != id) {
                    self.shards.push(ShardState {
                        id: id.to_owned(),
                        parent: shard.parent_shard_id().map(str::to_owned),
                        records: Vec::new(),
                        next: 0,
                        iterator: None,
                        ended: false,
                        window_end: None,
                        failures: 0,
                    });
                }
            }
            match description.last_evaluated_shard_id() {
                Some(last) => start = Some(last.to_owned()),
                None => return Ok(()),
            }
        }
    }

    /// Reads what the shard at `index` holds beyond what was read.
    async fn read(&mut self, index: usize) -> Result<(), MappingError> {
        let arn = self.stream_arn.clone().unwrap_or_default();
        let shard = &mut self.shards[index];
        if shard.ended {
            return Ok(());
        }
        if shard.iterator.is_none() {
            let iterator = self
                .streams
                .get_shard_iterator()
                .stream_arn(&arn)
                .shard_id(&shard.id)
                .shard_iterator_type(ShardIteratorType::TrimHorizon)
                .send()
                .await
                .map_err(|error| failed("GetShardIterator", error))?;
            shard.iterator = iterator.shard_iterator().map(str::to_owned);
        }
        while let Some(iterator) = shard.iterator.clone() {
            let page = self
                .streams
                .get_records()
                .shard_iterator(iterator)
                .send()
                .await
                .map_err(|error| failed("GetRecords", error))?;
            shard.iterator = page.next_shard_iterator().map(str::to_owned);
            for record in page.records() {
                let sequence =
                    record.dynamodb().and_then(|change| change.sequence_number()).unwrap_or_default();
                shard.records.push((event::record(record, &arn), sequence.to_owned()));
            }
            if page.records().is_empty() {
                break;
            }
        }
        shard.ended = shard.iterator.is_none();
        Ok(())
    }
}

/// An SDK error as a [`MappingError::Stream`].
fn failed(operation: &'static str, error: impl std::error::Error) -> MappingError {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        message.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    MappingError::Stream { operation, message }
}
