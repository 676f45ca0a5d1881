//! Errors of the fault injector itself.

use std::error::Error as StdError;

/// Why the fault injector could not rewrite a request or response.
///
/// These surface as the source of the SDK error of the affected call, so a test sees a failed
/// call rather than a silently wrong result.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FaultError {
    /// A response body that had to be extended with unprocessed entries is not the JSON object
    /// DynamoDB sends.
    #[error("the {operation} response body cannot take unprocessed entries: {reason}")]
    ResponseBody {
        /// The operation, e.g. `BatchWriteItem`.
        operation: &'static str,
        /// What was wrong with the body.
        reason: String,
    },

    /// Reading the response body from the connection failed.
    #[error("reading the response body failed")]
    ReadBody(#[source] Box<dyn StdError + Send + Sync>),

    /// An HTTP status or header could not be set.
    #[error("rewriting the HTTP message failed")]
    Http(#[source] Box<dyn StdError + Send + Sync>),
}
