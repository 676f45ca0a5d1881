//! What an error means, asked without matching on its variants.

use super::sdk::THROTTLING_CODES;
use super::{cancel, sdk, Error};
use crate::throttling::ThrottlingReason;

impl Error {
    /// The DynamoDB error code, when this is a service error.
    pub fn code(&self) -> Option<&str> {
        match self {
            Error::Service { code, .. } => code.as_deref(),
            Error::Throttled { code, .. } => Some(code),
            _ => None,
        }
    }

    /// Whether a write's condition did not hold (including create-only puts that found an item
    /// and optimistic-lock conflicts), for a transaction: of any of its actions.
    pub fn is_conditional_failed(&self) -> bool {
        matches!(self, Error::ConditionFailed { .. } | Error::AlreadyExists | Error::VersionConflict { .. })
            || self.code() == Some("ConditionalCheckFailedException")
            || matches!(self, Error::TransactionCanceled { reasons } if cancel::any_condition_failed(reasons))
    }

    /// Whether this is an optimistic-lock conflict, for a transaction: of any of its actions.
    pub fn is_version_conflict(&self) -> bool {
        matches!(self, Error::VersionConflict { .. })
            || matches!(self, Error::TransactionCanceled { reasons } if cancel::any_version_conflict(reasons))
    }

    /// Whether the addressed item does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Error::NotFound)
    }

    /// Whether DynamoDB throttled the request (throughput exceeded, throttling, request limit).
    pub fn is_throttled(&self) -> bool {
        self.code().is_some_and(is_throttling_code)
    }

    /// The reasons DynamoDB gave for throttling the request; empty when it was not throttled or
    /// the endpoint gave none. For [`Error::BatchIncomplete`], those of its last error.
    pub fn throttling_reasons(&self) -> &[ThrottlingReason] {
        match self {
            Error::Throttled { reasons, .. } => reasons,
            Error::BatchIncomplete { last_error: Some(error), .. } => error.throttling_reasons(),
            _ => &[],
        }
    }

    /// Whether the request was throttled because one partition key value of a table or index was
    /// over its partition's limit (`...KeyRangeThroughputExceeded`): a hot key, which more shards
    /// relieve. Limits of a whole table, index or account are not key-range throttling.
    pub fn is_key_range_throttled(&self) -> bool {
        self.throttling_reasons().iter().any(ThrottlingReason::is_key_range)
    }

    /// Whether DynamoDB did not answer within the client's [`Timeouts`](crate::Timeouts).
    pub fn is_timeout(&self) -> bool {
        match self {
            Error::Timeout { .. } => true,
            Error::BatchIncomplete { last_error: Some(error), .. } => error.is_timeout(),
            _ => false,
        }
    }

    /// Whether sending again later may succeed: DynamoDB throttled the request, did not answer in
    /// time, reported an internal error or that it is unavailable, the connection failed or
    /// broke, or a batch was left unprocessed for one of these. A loop that runs for as long as
    /// it is let (a worker) waits such a failure out and goes on; anything else (a request
    /// refused for what it asks, a table missing) ends it.
    ///
    /// ```
    /// use dynashard::Error;
    /// let throttled = Error::Service {
    ///     operation: "PutItem",
    ///     code: Some("InternalServerError".into()),
    ///     message: "try again".into(),
    ///     source: "try again".into(),
    /// };
    /// assert!(throttled.is_transient());
    /// assert!(!Error::NotFound.is_transient());
    /// ```
    pub fn is_transient(&self) -> bool {
        match self {
            Error::Throttled { .. } | Error::Timeout { .. } => true,
            Error::Service { code: Some(code), .. } => {
                sdk::TRANSIENT_CODES.contains(&code.as_str()) || THROTTLING_CODES.contains(&code.as_str())
            }
            Error::Service { code: None, source, .. } => !source.is::<aws_sdk_dynamodb::error::BuildError>(),
            Error::BatchIncomplete { last_error, .. } => {
                last_error.as_ref().is_none_or(|error| error.is_transient())
            }
            _ => false,
        }
    }

    /// Whether a write that failed with this error may nonetheless have been applied: DynamoDB
    /// did not answer in time ([`Error::Timeout`]), the answer was lost on the way, or DynamoDB
    /// reported an internal error, which leaves the outcome open. Resend such a write only if
    /// writing it twice is harmless; otherwise read first. For [`Error::BatchIncomplete`],
    /// whether it holds writes of unknown outcome.
    ///
    /// ```
    /// use dynashard::{Error, Unprocessed};
    /// let refused = Error::Service {
    ///     operation: "PutItem",
    ///     code: Some("ValidationException".into()),
    ///     message: "bad".into(),
    ///     source: "bad".into(),
    /// };
    /// assert!(!refused.outcome_unknown(), "DynamoDB answered: nothing was written");
    /// ```
    pub fn outcome_unknown(&self) -> bool {
        match self {
            Error::Timeout { .. } => true,
            Error::Service { code: Some(code), .. } => sdk::TRANSIENT_CODES.contains(&code.as_str()),
            // No answer that could be read: a connection lost after the request went out, or a
            // response cut short. A request the SDK refused to build, or whose connection was
            // never made, was never sent.
            Error::Service { code: None, source, .. } => {
                !source.is::<aws_sdk_dynamodb::error::BuildError>() && !never_connected(source.as_ref())
            }
            Error::BatchIncomplete { unknown, .. } => !unknown.is_empty(),
            _ => false,
        }
    }

    /// Whether the request was rejected before anything was sent (invalid key, item too large,
    /// reserved attribute).
    pub fn is_invalid_input(&self) -> bool {
        matches!(
            self,
            Error::InvalidKey { .. }
                | Error::InvalidIndexKey { .. }
                | Error::InvalidQuery { .. }
                | Error::WindowTooWide { .. }
                | Error::TooManyKeys { .. }
                | Error::InvalidCursor { .. }
                | Error::ItemTooLarge { .. }
                | Error::InvalidNumber { .. }
                | Error::OverlappingActions { .. }
                | Error::InvalidTtl { .. }
                | Error::InvalidTableName { .. }
                | Error::ExpressionTooLarge { .. }
                | Error::InvalidChangeRecord { .. }
                | Error::ReservedAttribute { .. }
                | Error::IndexKeyIncomplete { .. }
                | Error::UpsertIncomplete { .. }
                | Error::NotRangeSharded { .. }
                | Error::DuplicateBatchKey { .. }
                | Error::VersionedBatchWrite { .. }
                | Error::TransactionTooLarge { .. }
                | Error::TransactionTooBig { .. }
                | Error::DuplicateTransactionKey { .. }
        )
    }
}

/// " because of A, B" for the reasons of a throttling error, nothing without any.
pub(super) fn describe_reasons(reasons: &[ThrottlingReason]) -> String {
    match reasons {
        [] => String::new(),
        reasons => {
            let names: Vec<String> = reasons.iter().map(ToString::to_string).collect();
            format!(" because of {}", names.join(", "))
        }
    }
}

/// Whether `error` comes of a connection that was never made (refused, or no route to the
/// endpoint), found among its sources: a request that failed so was never sent.
fn never_connected(error: &(dyn std::error::Error + 'static)) -> bool {
    use std::io::ErrorKind;
    let mut next = Some(error);
    while let Some(error) = next {
        if let Some(io) = error.downcast_ref::<std::io::Error>() {
            let kind = io.kind();
            return matches!(
                kind,
                ErrorKind::ConnectionRefused
                    | ErrorKind::AddrNotAvailable
                    | ErrorKind::HostUnreachable
                    | ErrorKind::NetworkUnreachable
            );
        }
        next = error.source();
    }
    false
}

/// Whether `code`, a DynamoDB error code, says the request was throttled.
pub(crate) fn is_throttling_code(code: &str) -> bool {
    THROTTLING_CODES.contains(&code)
}
