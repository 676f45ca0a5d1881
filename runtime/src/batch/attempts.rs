//! The retry loop state of one request of a batch call: counting sends, telling retryable
//! failures from final ones, backing off, and stopping the whole call once it has given up.

use crate::error::sdk::TRANSIENT_CODES;
use crate::error::Error;
use crate::retry::{Retry, RetryPolicy};
use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use std::error::Error as StdError;
use std::sync::atomic::{AtomicBool, Ordering};

/// A failed send, converted, with whether sending again may succeed.
pub(crate) struct Failure {
    pub(crate) error: Error,
    pub(crate) retryable: bool,
    /// Whether the send may have been applied ([`Error::outcome_unknown`]).
    pub(crate) unknown: bool,
}

impl AsRef<Error> for Failure {
    fn as_ref(&self) -> &Error {
        &self.error
    }
}

impl Failure {
    /// Converts an SDK error; throttling, 5xx and connection failures are retryable.
    ///
    /// A timeout is final: the client's operation timeout already covers the SDK's own retries,
    /// so an endpoint that did not answer within it stops the call, and what is left comes back
    /// at once instead of after every request has waited out its own timeouts.
    pub(crate) fn from_sdk<E>(operation: &'static str, error: SdkError<E, HttpResponse>) -> Self
    where
        E: ProvideErrorMetadata + StdError + Send + Sync + 'static,
    {
        let transient = is_transient(&error);
        let server_error =
            matches!(&error, SdkError::ServiceError(service) if service.raw().status().is_server_error());
        let error = Error::from_sdk(operation, error);
        let unknown = server_error || error.outcome_unknown();
        Failure { retryable: (transient || error.is_throttled()) && !error.is_timeout(), unknown, error }
    }

    /// A failure that sending again cannot fix, of a request not sent.
    pub(crate) fn fatal(error: Error) -> Self {
        Failure { error, retryable: false, unknown: false }
    }
}

fn is_transient<E: ProvideErrorMetadata>(error: &SdkError<E, HttpResponse>) -> bool {
    match error {
        SdkError::TimeoutError(_) | SdkError::ResponseError(_) => true,
        SdkError::DispatchFailure(failure) => failure.is_io() || failure.is_timeout(),
        SdkError::ServiceError(service) => {
            service.raw().status().is_server_error()
                || service.err().code().is_some_and(|code| TRANSIENT_CODES.contains(&code))
        }
        _ => false,
    }
}

/// The sends of one request (and of what remains of it), bounded by a [`RetryPolicy`]: the
/// request gives up after a run of `max_attempts` sends (from the first, or from one that
/// processed items) in which nothing more was processed.
pub(crate) struct Attempts<'c> {
    operation: &'static str,
    retry: Retry,
    stop: &'c AtomicBool,
    sent: u32,
    /// The fewest items left after any send so far (the request's size before the first).
    fewest: usize,
    last_error: Option<Error>,
    fatal: bool,
    /// Whether a send failed in a way that may have applied it: what is left of the request
    /// may then be stored, whatever later sends said.
    unknown: bool,
}

impl<'c> Attempts<'c> {
    /// The sends of a request of `items` items. `stop` is shared by all requests of one call:
    /// once set (by a final error), none of them sends again.
    pub(crate) fn new(
        operation: &'static str,
        policy: RetryPolicy,
        stop: &'c AtomicBool,
        items: usize,
    ) -> Self {
        Self {
            operation,
            retry: Retry::new(policy),
            stop,
            sent: 0,
            fewest: items,
            last_error: None,
            fatal: false,
            unknown: false,
        }
    }

    /// Whether a send may start (the call has not given up); counts it.
    pub(crate) fn begin(&mut self) -> bool {
        if self.stop.load(Ordering::Acquire) {
            return false;
        }
        self.sent += 1;
        true
    }

    /// Records a failed send; a failure that is not retryable stops the whole call.
    /// Returns whether the request may be retried.
    pub(crate) fn failed(&mut self, failure: Failure) -> bool {
        self.unknown |= failure.unknown;
        self.last_error = Some(failure.error);
        if !failure.retryable {
            self.fatal = true;
            self.stop.store(true, Ordering::Release);
        }
        failure.retryable
    }

    /// After a send that left `remaining` items: sleeps the backoff and returns `true` when one
    /// more send may follow. A send that left fewer items than any before starts the count of
    /// stalled sends again; when that count reaches the policy's bound, this request gives up,
    /// and the call's other requests go on.
    pub(crate) async fn retry(&mut self, remaining: usize) -> bool {
        // A send that processed items starts a new run of sends, and is its first.
        let progressed = remaining < self.fewest;
        self.fewest = self.fewest.min(remaining);
        let Some(delay) = self.retry.after_failure(progressed) else {
            tracing::debug!(
                operation = self.operation,
                attempts = self.sent,
                remaining,
                "batch request made no progress in its last attempts; giving up"
            );
            return false;
        };
        if self.stop.load(Ordering::Acquire) {
            return false;
        }
        tracing::debug!(
            operation = self.operation,
            attempt = self.sent,
            remaining,
            delay_ms = delay.as_secs_f64() * 1e3,
            error = self.last_error.as_ref().map(tracing::field::display),
            "retrying batch request"
        );
        tokio::time::sleep(delay).await;
        !self.stop.load(Ordering::Acquire)
    }

    /// Whether a send failed in a way that may have applied it (see [`Failure::unknown`]).
    pub(crate) fn outcome_unknown(&self) -> bool {
        self.unknown
    }

    /// The most recent error of this request, and whether it was final.
    pub(crate) fn finish(self) -> Option<(Error, bool)> {
        let fatal = self.fatal;
        self.last_error.map(|error| (error, fatal))
    }
}

/// What a whole call adds up to once all its requests have finished.
#[derive(Default)]
pub(crate) struct Tally {
    /// Items (writes or keys) processed.
    pub(crate) succeeded: usize,
    last_error: Option<(Error, bool)>,
}

impl Tally {
    /// Adds one request's outcome. A final error outranks a retryable one; otherwise the most
    /// recently reported error wins.
    pub(crate) fn add(&mut self, succeeded: usize, error: Option<(Error, bool)>) {
        self.succeeded += succeeded;
        if let Some((error, fatal)) = error {
            let keep_previous = matches!(self.last_error, Some((_, true))) && !fatal;
            if !keep_previous {
                self.last_error = Some((error, fatal));
            }
        }
    }

    /// The error to report alongside unprocessed items.
    pub(crate) fn last_error(self) -> Option<Box<Error>> {
        self.last_error.map(|(error, _)| Box::new(error))
    }
}
