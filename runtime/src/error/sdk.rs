//! Errors of the AWS SDK, classified: timeouts, throttling with its reasons, service errors.

use super::Error;
use crate::throttling::reasons_in_body;
use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use std::error::Error as StdError;

/// Error codes of transient server-side failures, whose outcome is open: retried, and a write
/// failing with one may have been applied.
pub(crate) const TRANSIENT_CODES: &[&str] = &["InternalServerError", "InternalFailure", "ServiceUnavailable"];

pub(super) const THROTTLING_CODES: &[&str] =
    &["ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded", "Throttling"];

impl Error {
    /// A request that the SDK refused to build (a required member missing).
    pub(crate) fn from_build(operation: &'static str, error: aws_sdk_dynamodb::error::BuildError) -> Self {
        Error::Service { operation, code: None, message: error.to_string(), source: Box::new(error) }
    }

    /// Wraps an SDK error from `operation`, keeping its code and the error itself as the source.
    pub fn from_sdk<E>(operation: &'static str, error: SdkError<E, HttpResponse>) -> Self
    where
        E: ProvideErrorMetadata + StdError + Send + Sync + 'static,
    {
        let timed_out = match &error {
            SdkError::TimeoutError(_) => true,
            SdkError::DispatchFailure(failure) => failure.is_timeout(),
            _ => false,
        };
        if timed_out {
            let message = aws_sdk_dynamodb::error::DisplayErrorContext(&error).to_string();
            return Error::Timeout { operation, message, source: Box::new(error) };
        }
        let code = error.code().map(str::to_owned);
        let message = match error.message() {
            Some(message) => message.to_owned(),
            None => aws_sdk_dynamodb::error::DisplayErrorContext(&error).to_string(),
        };
        match code {
            Some(code) if code == "ValidationException" && grew_too_large(&message) => {
                Error::UpdatedItemTooLarge { max: crate::item_size::MAX_ITEM_BYTES }
            }
            Some(code) if THROTTLING_CODES.contains(&code.as_str()) => {
                // The SDK keeps the error response's body; the reasons are read from it, so that
                // every operation and every throttling exception is read the same way.
                let body = error.raw_response().and_then(|response| response.body().bytes());
                let reasons = body.map(reasons_in_body).unwrap_or_default();
                Error::Throttled { operation, code, message, reasons, source: Box::new(error) }
            }
            code => Error::Service { operation, code, message, source: Box::new(error) },
        }
    }
}

/// Whether DynamoDB's `message` refuses an update for the size of the item it would make.
pub(crate) fn grew_too_large(message: &str) -> bool {
    message.starts_with("Item size to update has exceeded the maximum allowed size")
}
