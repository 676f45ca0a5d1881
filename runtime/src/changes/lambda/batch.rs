//! One invocation's records, handled in the stream's order, and the answer Lambda resumes from.
//!
//! Lambda's DynamoDB Streams source, with `ReportBatchItemFailures`, resumes a shard at the
//! lowest sequence number an answer's `batchItemFailures` names and delivers every record from
//! there again; an answer it cannot read, or a function error, delivers the whole batch again
//! (split in two with `BisectBatchOnFunctionError`). So a batch stops at its first record that
//! fails and names that one: a later record of the same item handled before it would be undone
//! by it on the retry. What is delivered again after it was handled is the handler's to refuse,
//! by the record's [`StreamPosition`](crate::changes::StreamPosition).

use crate::changes::ChangeRecord;
use crate::error::{Error, Result};
use std::fmt;
use std::future::Future;
use std::time::SystemTime;

/// The error type of a Lambda function (the same as `lambda_runtime::Error`).
type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The records of one invocation by a table's stream, each decoded on its own, to be handled
/// one at a time in the stream's order ([`StreamBatch::handle`]).
///
/// ```
/// use dynashard::changes::{ChangeRecord, StreamBatch};
///
/// # async fn example(event_json: &str) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
/// let outcome = StreamBatch::from_json(event_json)?
///     .handle(|record: ChangeRecord| async move {
///         println!("{:?} {:?}", record.kind, record.keys);
///         Ok::<(), dynashard::Error>(())
///     })
///     .await;
/// // `batchItemFailures`: nothing, or the first record not handled.
/// let item_identifiers: Vec<String> = outcome.into_failures()?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct StreamBatch {
    records: Vec<Result<ChangeRecord>>,
    stop_by: Option<SystemTime>,
}

impl StreamBatch {
    /// The records of a Lambda event's JSON (`{"Records": [...]}`); fails only when it is not a
    /// stream event at all (a record that does not decode stops the batch when reached).
    pub fn from_json(json: &str) -> Result<Self> {
        Ok(StreamBatch::of(ChangeRecord::from_lambda_json(json)?))
    }

    /// The records of an event as `aws_lambda_events` models it (what `lambda_runtime` gives).
    #[cfg(feature = "lambda")]
    pub fn from_event(event: aws_lambda_events::event::dynamodb::Event) -> Self {
        let decoded = event.records.into_iter().map(|record| {
            let event_id = Some(record.event_id.clone()).filter(|id| !id.is_empty());
            let sequence_number = record.change.sequence_number.clone();
            ChangeRecord::try_from(record).map_err(|error| match error {
                Error::InvalidChangeRecord { reason, .. } => {
                    Error::InvalidChangeRecord { reason, event_id, sequence_number }
                }
                other => other,
            })
        });
        StreamBatch::of(decoded.collect())
    }

    /// Records decoded already, from any source, in the stream's order.
    pub fn from_records(records: impl IntoIterator<Item = ChangeRecord>) -> Self {
        StreamBatch::of(records.into_iter().map(Ok).collect())
    }

    fn of(records: Vec<Result<ChangeRecord>>) -> Self {
        StreamBatch { records, stop_by: None }
    }

    /// The number of records.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether it holds no record.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Begins no record after `deadline` (say, a few seconds before the invocation's own, from
    /// `lambda_runtime::Context::deadline`): the batch then stops cleanly at the next record,
    /// rather than being cut by the function's timeout and delivered again whole.
    pub fn stop_by(mut self, deadline: SystemTime) -> Self {
        self.stop_by = Some(deadline);
        self
    }

    /// Hands each record to `handler`, one at a time in the stream's order, and stops at the
    /// first that does not decode, fails, or would begin after the [deadline](Self::stop_by).
    /// A stop is logged (`WARN`) with the record's sequence number.
    pub async fn handle<H, Fut, E>(self, mut handler: H) -> BatchOutcome
    where
        H: FnMut(ChangeRecord) -> Fut,
        Fut: Future<Output = std::result::Result<(), E>>,
        E: Into<BoxError>,
    {
        let mut handled = 0;
        for decoded in self.records {
            let record = match decoded {
                Ok(record) => record,
                Err(error) => {
                    return BatchOutcome::stopped(
                        handled,
                        undecodable_ids(&error),
                        StopCause::Undecodable(error),
                    )
                }
            };
            let ids = (record.event_id.clone(), record.sequence_number.clone());
            if self.stop_by.is_some_and(|deadline| SystemTime::now() >= deadline) {
                return BatchOutcome::stopped(handled, ids, StopCause::Deadline);
            }
            if let Err(error) = handler(record).await {
                return BatchOutcome::stopped(handled, ids, StopCause::Failed(error.into()));
            }
            handled += 1;
        }
        BatchOutcome { handled, stop: None }
    }
}

impl StreamBatch {
    /// Hands the records to `handler` at once, for work that takes a batch whole and does not
    /// depend on order (such as [`Db::catch_up_records`](crate::Db::catch_up_records)): the
    /// records up to the first that does not decode, which the batch then stops at. When the
    /// handler fails, the batch stops at its first record; past the
    /// [deadline](Self::stop_by), nothing is handed over.
    pub async fn handle_all<H, Fut, E>(self, handler: H) -> BatchOutcome
    where
        H: FnOnce(Vec<ChangeRecord>) -> Fut,
        Fut: Future<Output = std::result::Result<(), E>>,
        E: Into<BoxError>,
    {
        let mut records = Vec::with_capacity(self.records.len());
        let mut undecodable = None;
        for decoded in self.records {
            match decoded {
                Ok(record) => records.push(record),
                Err(error) => {
                    undecodable = Some(error);
                    break;
                }
            }
        }
        let ids = |record: &ChangeRecord| (record.event_id.clone(), record.sequence_number.clone());
        let first = records.first().map(ids);
        if let Some(first) = first {
            if self.stop_by.is_some_and(|deadline| SystemTime::now() >= deadline) {
                return BatchOutcome::stopped(0, first, StopCause::Deadline);
            }
            let handed = records.len();
            if let Err(error) = handler(records).await {
                return BatchOutcome::stopped(0, first, StopCause::Failed(error.into()));
            }
            if let Some(error) = undecodable {
                return BatchOutcome::stopped(handed, undecodable_ids(&error), StopCause::Undecodable(error));
            }
            return BatchOutcome { handled: handed, stop: None };
        }
        match undecodable {
            Some(error) => BatchOutcome::stopped(0, undecodable_ids(&error), StopCause::Undecodable(error)),
            None => BatchOutcome { handled: 0, stop: None },
        }
    }
}

/// The `eventID` and sequence number an undecodable record's error names.
fn undecodable_ids(error: &Error) -> (Option<String>, Option<String>) {
    match error {
        Error::InvalidChangeRecord { event_id, sequence_number, .. } => {
            (event_id.clone(), sequence_number.clone())
        }
        _ => (None, None),
    }
}

/// What [`StreamBatch::handle`] did: how many records it handled, from the first, and where it
/// stopped, if it did.
#[derive(Debug)]
#[non_exhaustive]
pub struct BatchOutcome {
    /// The records handled, counted from the batch's first.
    pub handled: usize,
    /// The record it stopped before, and why; `None` when it handled them all.
    pub stop: Option<BatchStop>,
}

/// The first record of a batch that was not handled.
#[derive(Debug)]
#[non_exhaustive]
pub struct BatchStop {
    /// Its `eventID`, where known.
    pub event_id: Option<String>,
    /// Its sequence number, where known: the `itemIdentifier` Lambda resumes from.
    pub sequence_number: Option<String>,
    /// Why it was not handled.
    pub cause: StopCause,
}

/// Why a batch stopped.
#[derive(Debug)]
#[non_exhaustive]
pub enum StopCause {
    /// The record is not a change of the table (an [`Error::InvalidChangeRecord`]).
    Undecodable(Error),
    /// The handler failed on it.
    Failed(BoxError),
    /// The deadline came before it began.
    Deadline,
}

impl fmt::Display for StopCause {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopCause::Undecodable(error) => write!(formatter, "it does not decode: {error}"),
            StopCause::Failed(error) => write!(formatter, "the handler failed: {error}"),
            StopCause::Deadline => formatter.write_str("the batch's deadline came before it"),
        }
    }
}

impl std::error::Error for StopCause {}

impl BatchOutcome {
    /// A batch that stopped after `handled` records, before the record `ids` names; logged.
    fn stopped(handled: usize, ids: (Option<String>, Option<String>), cause: StopCause) -> Self {
        let (event_id, sequence_number) = ids;
        tracing::warn!(
            sequence_number = sequence_number.as_deref(),
            event_id = event_id.as_deref(),
            handled,
            "a stream batch stopped before a record: {cause}"
        );
        BatchOutcome { handled, stop: Some(BatchStop { event_id, sequence_number, cause }) }
    }

    /// Whether every record was handled.
    pub fn is_complete(&self) -> bool {
        self.stop.is_none()
    }

    /// The answer's `batchItemFailures` item identifiers: none when every record was handled,
    /// else the sequence number of the first that was not. A stop at a record without a sequence
    /// number is returned as the error, for the function to fail with, so that Lambda delivers
    /// the whole batch again (an `itemIdentifier` it cannot find would do the same, unlogged).
    pub fn into_failures(self) -> std::result::Result<Vec<String>, BoxError> {
        match self.stop {
            None => Ok(Vec::new()),
            Some(BatchStop { sequence_number: Some(sequence_number), .. }) if !sequence_number.is_empty() => {
                Ok(vec![sequence_number])
            }
            Some(stop) => Err(Box::new(stop.cause)),
        }
    }

    /// The answer for Lambda ([`into_failures`](Self::into_failures) as
    /// `aws_lambda_events`' `DynamoDbEventResponse`).
    #[cfg(feature = "lambda")]
    pub fn into_response(
        self,
    ) -> std::result::Result<aws_lambda_events::event::streams::DynamoDbEventResponse, BoxError> {
        use aws_lambda_events::event::streams::{DynamoDbBatchItemFailure, DynamoDbEventResponse};
        let mut response = DynamoDbEventResponse::default();
        for sequence_number in self.into_failures()? {
            let mut failure = DynamoDbBatchItemFailure::default();
            failure.item_identifier = Some(sequence_number);
            response.batch_item_failures.push(failure);
        }
        Ok(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// An event of records of items `a` and `b` (sequence numbers 100, 101, ...), with a record
    /// that is not a change (an unknown event name) at `bad`, if any.
    fn event(items: &[&str], bad: Option<usize>) -> String {
        let records: Vec<String> = items
            .iter()
            .enumerate()
            .map(|(n, item)| {
                let name = if Some(n) == bad { "SQUASH" } else { "MODIFY" };
                format!(
                    r#"{{"eventID":"e{n}","eventName":"{name}","dynamodb":{{"Keys":{{"pk":{{"S":"{item}"}}}},"SequenceNumber":"{}"}}}}"#,
                    100 + n
                )
            })
            .collect();
        format!(r#"{{"Records":[{}]}}"#, records.join(","))
    }

    fn item(record: &ChangeRecord) -> String {
        match record.keys.get("pk") {
            Some(aws_sdk_dynamodb::types::AttributeValue::S(item)) => item.clone(),
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn a_batch_stops_at_its_first_failure_and_names_it() {
        let seen = Mutex::new(Vec::new());
        let outcome = StreamBatch::from_json(&event(&["a", "b", "a", "b"], None))
            .expect("an event")
            .handle(|record| {
                seen.lock().expect("not poisoned").push(item(&record));
                let fail = record.sequence_number.as_deref() == Some("101");
                async move {
                    if fail {
                        Err("downstream refused")
                    } else {
                        Ok(())
                    }
                }
            })
            .await;
        // Nothing after the failure is handled: `a`'s second record waits for `b`'s first.
        assert_eq!(*seen.lock().expect("not poisoned"), ["a", "b"]);
        assert_eq!(outcome.handled, 1);
        assert!(matches!(outcome.stop.as_ref().map(|stop| &stop.cause), Some(StopCause::Failed(_))));
        assert_eq!(outcome.into_failures().expect("a partial failure"), ["101"]);
    }

    #[tokio::test]
    async fn every_record_handled_is_no_failure() {
        let outcome = StreamBatch::from_json(&event(&["a", "b"], None))
            .expect("an event")
            .handle(|_| async { Ok::<(), Error>(()) })
            .await;
        assert!(outcome.is_complete());
        assert_eq!(outcome.handled, 2);
        assert!(outcome.into_failures().expect("no failure").is_empty());
        let empty = StreamBatch::from_json(r#"{"Records":[]}"#).expect("an event");
        assert!(empty.is_empty());
        assert!(empty.handle(|_| async { Ok::<(), Error>(()) }).await.is_complete());
    }

    #[tokio::test]
    async fn a_record_that_does_not_decode_stops_the_batch_at_it() {
        let outcome = StreamBatch::from_json(&event(&["a", "b", "c"], Some(1)))
            .expect("an event")
            .handle(|_| async { Ok::<(), Error>(()) })
            .await;
        assert_eq!(outcome.handled, 1);
        let stop = outcome.stop.as_ref().expect("a stop");
        assert_eq!((stop.event_id.as_deref(), stop.sequence_number.as_deref()), (Some("e1"), Some("101")));
        assert!(matches!(stop.cause, StopCause::Undecodable(Error::InvalidChangeRecord { .. })));
        assert!(StreamBatch::from_json("{\"not\": \"an event\"}").is_err());
    }

    #[tokio::test]
    async fn past_its_deadline_a_batch_begins_nothing() {
        let past = SystemTime::now() - std::time::Duration::from_secs(1);
        let outcome = StreamBatch::from_json(&event(&["a", "b"], None))
            .expect("an event")
            .stop_by(past)
            .handle(|_| async { panic!("nothing is handed over after the deadline") as Result<()> })
            .await;
        assert!(matches!(outcome.stop.as_ref().map(|stop| &stop.cause), Some(StopCause::Deadline)));
        assert_eq!(outcome.into_failures().expect("a partial failure"), ["100"]);
    }

    #[tokio::test]
    async fn a_stop_at_a_record_without_a_sequence_number_fails_the_invocation() {
        let mut record = ChangeRecord::new(crate::changes::ChangeKind::Insert, Default::default());
        record.event_id = Some("e0".to_owned());
        let outcome = StreamBatch::from_records([record]).handle(|_| async { Err("refused") }).await;
        let error = outcome.into_failures().expect_err("the whole batch is delivered again");
        assert!(error.to_string().contains("refused"), "{error}");
    }

    #[tokio::test]
    async fn a_batch_handed_whole_stops_at_its_first_record_when_it_fails() {
        let outcome = StreamBatch::from_json(&event(&["a", "b", "c"], None))
            .expect("an event")
            .handle_all(|records| async move {
                assert_eq!(records.len(), 3);
                Err("all or nothing")
            })
            .await;
        assert_eq!(outcome.into_failures().expect("a partial failure"), ["100"]);
        let handed = Mutex::new(0);
        let outcome = StreamBatch::from_json(&event(&["a", "b", "c", "d"], Some(2)))
            .expect("an event")
            .handle_all(|records| {
                *handed.lock().expect("not poisoned") = records.len();
                async { Ok::<(), Error>(()) }
            })
            .await;
        assert_eq!((*handed.lock().expect("not poisoned"), outcome.handled), (2, 2));
        assert_eq!(outcome.into_failures().expect("a partial failure"), ["102"]);
    }
}
