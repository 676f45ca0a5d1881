//! The one error type of dynashard.

use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use std::error::Error as StdError;

/// A DynamoDB item: attribute names to values.
pub type Item = std::collections::HashMap<String, aws_sdk_dynamodb::types::AttributeValue>;

/// Everything that can go wrong in dynashard.
///
/// Match on the variants, or ask the predicates ([`Error::is_conditional_failed`],
/// [`Error::is_throttled`], ...). Errors from the AWS SDK stay reachable through
/// [`std::error::Error::source`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A key could not be composed; nothing was sent.
    #[error("invalid key for attribute `{attribute}` (template `{template}`): {reason}")]
    InvalidKey {
        /// The key attribute being composed.
        attribute: &'static str,
        /// The key template.
        template: &'static str,
        /// What was wrong.
        reason: KeyError,
    },

    /// The item is larger than DynamoDB's 400 KB item limit; nothing was sent.
    #[error("item is {bytes} bytes, over DynamoDB's limit of {max} bytes")]
    ItemTooLarge {
        /// The item's size as DynamoDB counts it.
        bytes: usize,
        /// The limit (409,600 bytes).
        max: usize,
    },

    /// A serialized entity contains an attribute that dynashard writes itself (a key attribute,
    /// the entity-type attribute); nothing was sent.
    #[error("the entity serializes an attribute named `{attribute}`, which is reserved for keys")]
    ReservedAttribute {
        /// The conflicting attribute name.
        attribute: String,
    },

    /// A write's condition did not hold. Holds the item as it was, when DynamoDB returned it.
    #[error("the condition of the write did not hold")]
    ConditionFailed {
        /// The stored item at the time of the failed write, if there was one.
        current: Option<Box<Item>>,
    },

    /// A create-only put found an item with the same key.
    #[error("an item with this key already exists")]
    AlreadyExists,

    /// An update or versioned delete addressed an item that does not exist.
    #[error("no item with this key exists")]
    NotFound,

    /// Optimistic locking: the stored version is not the expected one.
    #[error("version conflict: expected stored version {expected}, found {found:?}")]
    VersionConflict {
        /// The version the write expected to replace.
        expected: u64,
        /// The version actually stored (`None` when the item does not exist).
        found: Option<u64>,
    },

    /// An item read for one entity type holds another (or none).
    #[error("expected an item of entity type `{expected}`, found {found:?}")]
    WrongEntityType {
        /// The entity type asked for.
        expected: &'static str,
        /// The entity-type attribute found on the item.
        found: Option<String>,
    },

    /// Converting between a Rust value and a DynamoDB item failed.
    #[error("item conversion failed: {0}")]
    Conversion(#[from] serde_dynamo::Error),

    /// A request to DynamoDB failed.
    #[error("DynamoDB {operation} failed{}: {message}", code.as_deref().map(|c| format!(" ({c})")).unwrap_or_default())]
    Service {
        /// The API operation, e.g. `PutItem`.
        operation: &'static str,
        /// The error code DynamoDB returned, e.g. `ProvisionedThroughputExceededException`.
        code: Option<String>,
        /// A readable description.
        message: String,
        /// The SDK error.
        #[source]
        source: Box<dyn StdError + Send + Sync>,
    },

    /// A table did not become active in time.
    #[error("table `{table}` did not become active within {seconds} s")]
    TableNotActive {
        /// The table name.
        table: String,
        /// How long dynashard waited.
        seconds: u64,
    },

    /// Starting or installing DynamoDB Local failed.
    #[cfg(feature = "local")]
    #[error(transparent)]
    Local(#[from] crate::local::LocalError),
}

/// Why a key could not be composed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// A placeholder value is empty.
    #[error("the value of `{field}` is empty")]
    EmptyValue {
        /// The placeholder's field.
        field: &'static str,
    },
    /// The composed key is empty.
    #[error("the key is empty")]
    EmptyKey,
    /// The composed key is over DynamoDB's size limit.
    #[error("the key is {bytes} bytes, over the limit of {max} bytes")]
    TooLong {
        /// The composed key's size.
        bytes: usize,
        /// The limit for its role.
        max: usize,
    },
}

const THROTTLING_CODES: &[&str] =
    &["ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded", "Throttling"];

impl Error {
    /// Wraps an SDK error from `operation`, keeping its code and the error itself as the source.
    pub fn from_sdk<E, R>(operation: &'static str, error: SdkError<E, R>) -> Self
    where
        E: ProvideErrorMetadata + StdError + Send + Sync + 'static,
        R: std::fmt::Debug + Send + Sync + 'static,
    {
        let code = error.code().map(str::to_owned);
        let message = match error.message() {
            Some(message) => message.to_owned(),
            None => aws_sdk_dynamodb::error::DisplayErrorContext(&error).to_string(),
        };
        Error::Service { operation, code, message, source: Box::new(error) }
    }

    /// The DynamoDB error code, when this is a service error.
    pub fn code(&self) -> Option<&str> {
        match self {
            Error::Service { code, .. } => code.as_deref(),
            _ => None,
        }
    }

    /// Whether a write's condition did not hold (including create-only puts that found an item
    /// and optimistic-lock conflicts).
    pub fn is_conditional_failed(&self) -> bool {
        matches!(self, Error::ConditionFailed { .. } | Error::AlreadyExists | Error::VersionConflict { .. })
            || self.code() == Some("ConditionalCheckFailedException")
    }

    /// Whether this is an optimistic-lock conflict.
    pub fn is_version_conflict(&self) -> bool {
        matches!(self, Error::VersionConflict { .. })
    }

    /// Whether the addressed item does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Error::NotFound)
    }

    /// Whether DynamoDB throttled the request (throughput exceeded, throttling, request limit).
    pub fn is_throttled(&self) -> bool {
        self.code().is_some_and(|code| THROTTLING_CODES.contains(&code))
    }

    /// Whether the request was rejected before anything was sent (invalid key, item too large,
    /// reserved attribute).
    pub fn is_invalid_input(&self) -> bool {
        matches!(
            self,
            Error::InvalidKey { .. } | Error::ItemTooLarge { .. } | Error::ReservedAttribute { .. }
        )
    }
}

/// Shorthand for results with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
