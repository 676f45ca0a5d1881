//! Sending rewrites: conditional updates 25 to a `BatchExecuteStatement` request (or, while a
//! batched backfill freezes items, whole items 25 to a `BatchWriteItem`), throttled statements
//! sent again under the `Db`'s retry policy, and what became of each statement sorted out.

use super::pace::Meter;
use super::rewrite::{Rewrite, OPERATION};
use crate::batch::Failure;
use crate::consumption::{count_units, EntityType, Kind};
use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::item::table_of;
use crate::retry::Retry;
use aws_sdk_dynamodb::types::{BatchStatementErrorCodeEnum, PutRequest, WriteRequest};
use futures::stream::{self, StreamExt, TryStreamExt};

/// The most statements DynamoDB takes in one `BatchExecuteStatement` request (and writes in
/// one `BatchWriteItem` request).
const MAX_STATEMENTS: usize = 25;

/// What became of one statement of a batch.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Written,
    /// Its condition did not hold: a writer changed the item since the scan.
    Skipped,
    /// Throttled, or a transient failure: send it again.
    Retry,
    /// A failure that sending again cannot fix.
    Failed,
}

fn outcome(code: Option<&BatchStatementErrorCodeEnum>) -> Outcome {
    use BatchStatementErrorCodeEnum as Code;
    match code {
        None => Outcome::Written,
        Some(Code::ConditionalCheckFailed) => Outcome::Skipped,
        Some(
            Code::ProvisionedThroughputExceeded
            | Code::RequestLimitExceeded
            | Code::ThrottlingError
            | Code::InternalServerError
            | Code::TransactionConflict,
        ) => Outcome::Retry,
        Some(_) => Outcome::Failed,
    }
}

impl Db {
    /// Puts the placed items of `rewrites` whole, 25 to a `BatchWriteItem` request, `in_flight`
    /// requests at a time: only while existing items are frozen, since a put does not check
    /// that the item is still the one the scan read. Returns how many items were written.
    /// Sent only until `deadline` (the freeze they rely on may be lifted after it): a retry
    /// after it fails the batch with what it did not write.
    pub(super) async fn put_rewrites<E: Entity>(
        &self,
        rewrites: Vec<Rewrite>,
        in_flight: usize,
        (meter, deadline): (Option<&Meter>, Deadline),
    ) -> Result<u64> {
        let mut requests = Vec::with_capacity(rewrites.len());
        for item in rewrites.into_iter().filter_map(|rewrite| rewrite.placed) {
            let put = PutRequest::builder().set_item(Some(item)).build();
            let put = put.map_err(|error| crate::error::Error::from_build("BatchWriteItem", error))?;
            requests.push(WriteRequest::builder().put_request(put).build());
        }
        let written = requests.len() as u64;
        let chunks = requests.chunks(MAX_STATEMENTS).map(<[WriteRequest]>::to_vec).collect();
        let on_request = |units: f64| meter.into_iter().for_each(|meter| meter.write(units));
        let sender = crate::batch::Sender {
            db: self,
            retry: self.retry_policy(),
            before_retry: Some(&deadline),
            on_request: meter.map(|_| &on_request as crate::batch::OnRequest),
            counted: Some((table_of::<E>(), &[EntityType::of::<E>()])),
        };
        crate::batch::send_requests(&sender, self.table_of::<E>(), chunks, in_flight).await?;
        Ok(written)
    }

    /// Sends `rewrites` in batches of 25, `in_flight` batches at a time, retrying throttled
    /// statements with the `Db`'s retry policy. Returns how many items were written, and the
    /// rewrites whose condition did not hold (their item changed since it was read).
    pub(super) async fn send_rewrites<E: Entity>(
        &self,
        rewrites: Vec<Rewrite>,
        in_flight: usize,
        meter: Option<&Meter>,
    ) -> Result<(u64, Vec<Rewrite>)> {
        let batches: Vec<Vec<Rewrite>> = rewrites.chunks(MAX_STATEMENTS).map(<[Rewrite]>::to_vec).collect();
        let sent: Vec<(u64, Vec<Rewrite>)> = stream::iter(batches)
            .map(|batch| self.send_rewrite_batch::<E>(batch, meter))
            .buffer_unordered(in_flight.max(1))
            .try_collect()
            .await?;
        Ok(sent.into_iter().fold((0, Vec::new()), |(written, mut skipped), (more, also)| {
            skipped.extend(also);
            (written + more, skipped)
        }))
    }

    async fn send_rewrite_batch<E: Entity>(
        &self,
        mut pending: Vec<Rewrite>,
        meter: Option<&Meter>,
    ) -> Result<(u64, Vec<Rewrite>)> {
        let table = self.table_of::<E>();
        let mut retry = Retry::new(self.retry_policy());
        let (mut written, mut skipped) = (0, Vec::new());
        loop {
            let statements = pending.iter().map(|rewrite| rewrite.statement(table)).collect::<Result<_>>()?;
            let request = self
                .client()
                .batch_execute_statement()
                .set_statements(Some(statements))
                .return_consumed_capacity(aws_sdk_dynamodb::types::ReturnConsumedCapacity::Indexes);
            let responses = match request.send().await {
                Ok(response) => {
                    let consumed = response.consumed_capacity.as_deref().unwrap_or_default();
                    count_units(self.meter(), (table, E::TYPE_NAME), Kind::Write, consumed);
                    if let Some(meter) = meter {
                        meter.write(match response.consumed_capacity.as_deref() {
                            Some(consumed) if !consumed.is_empty() => {
                                consumed.iter().filter_map(|consumed| consumed.capacity_units).sum()
                            }
                            // An endpoint that does not report it (DynamoDB Local): the formula.
                            _ => pending.iter().map(|rewrite| rewrite.units).sum(),
                        });
                    }
                    response.responses.unwrap_or_default()
                }
                Err(error) => {
                    let failure = Failure::from_sdk(OPERATION, error);
                    // Every statement is conditioned on the item as read, so a request whose
                    // outcome is unknown (timed out) is sent again safely: what it did, it does
                    // again, or its condition fails.
                    let again = failure.retryable || failure.error.is_timeout();
                    match retry.after_failure(false).filter(|_| again) {
                        Some(delay) => tokio::time::sleep(delay).await,
                        None => return Err(failure.error),
                    }
                    continue;
                }
            };
            if responses.len() != pending.len() {
                let reason = format!("{} answers to {} statements", responses.len(), pending.len());
                return Err(statement_error(None, reason));
            }
            let (sent, mut again, mut last_error) = (pending.len(), Vec::new(), None);
            for (rewrite, answer) in pending.into_iter().zip(responses) {
                let code = answer.error.as_ref().and_then(|error| error.code.clone());
                match outcome(code.as_ref()) {
                    Outcome::Written => written += 1,
                    Outcome::Skipped => skipped.push(rewrite),
                    outcome => {
                        let message = answer.error.and_then(|error| error.message).unwrap_or_default();
                        let error = statement_error(code.as_ref(), message);
                        if outcome == Outcome::Failed {
                            return Err(error);
                        }
                        last_error = Some(error);
                        again.push(rewrite);
                    }
                }
            }
            let Some(error) = last_error.filter(|_| !again.is_empty()) else { return Ok((written, skipped)) };
            // A batch that placed some items started a new run of attempts.
            match retry.after_failure(again.len() < sent) {
                Some(delay) => tokio::time::sleep(delay).await,
                None => return Err(error),
            }
            pending = again;
        }
    }
}

/// The time until which a batched backfill's page may be written: half the freeze lease after
/// the freeze was last renewed.
pub(super) struct Deadline {
    pub at: std::time::Instant,
    pub index: String,
}

impl crate::batch::BeforeRetry for Deadline {
    fn check<'a>(&'a self, _: &'a Db) -> futures::future::BoxFuture<'a, Result<()>> {
        let result = match std::time::Instant::now() > self.at {
            true => Err(Error::Resharding {
                index: self.index.clone(),
                reason: "a page's writes outlasted half the freeze lease; this batched backfill stopped"
                    .into(),
            }),
            false => Ok(()),
        };
        Box::pin(std::future::ready(result))
    }
}

/// A statement's failure as a service error, with the code of the equivalent `UpdateItem`
/// error, so that [`Error::is_throttled`] and [`Error::is_conditional_failed`] read it the same.
fn statement_error(code: Option<&BatchStatementErrorCodeEnum>, message: String) -> Error {
    use BatchStatementErrorCodeEnum as Code;
    let code = code.map(|code| match code {
        Code::ProvisionedThroughputExceeded => "ProvisionedThroughputExceededException".to_owned(),
        Code::ThrottlingError => "ThrottlingException".to_owned(),
        Code::ConditionalCheckFailed => "ConditionalCheckFailedException".to_owned(),
        other => other.as_str().to_owned(),
    });
    match code {
        Some(code) if code == "ProvisionedThroughputExceededException" || code == "ThrottlingException" => {
            Error::Throttled {
                operation: OPERATION,
                code,
                source: message.clone().into(),
                message,
                reasons: Vec::new(),
            }
        }
        code => Error::Service { operation: OPERATION, code, source: message.clone().into(), message },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statement_failures_are_sorted_into_skips_retries_and_errors() {
        use BatchStatementErrorCodeEnum as Code;
        assert_eq!(outcome(None), Outcome::Written);
        assert_eq!(outcome(Some(&Code::ConditionalCheckFailed)), Outcome::Skipped);
        for code in [Code::ProvisionedThroughputExceeded, Code::ThrottlingError, Code::RequestLimitExceeded] {
            assert_eq!(outcome(Some(&code)), Outcome::Retry);
            assert!(statement_error(Some(&code), String::new()).is_throttled(), "{code:?}");
        }
        assert_eq!(outcome(Some(&Code::InternalServerError)), Outcome::Retry);
        assert_eq!(outcome(Some(&Code::ValidationError)), Outcome::Failed);
        assert_eq!(outcome(Some(&Code::DuplicateItem)), Outcome::Failed);
        let skipped = statement_error(Some(&Code::ConditionalCheckFailed), "no".into());
        assert!(skipped.is_conditional_failed());
    }
}
