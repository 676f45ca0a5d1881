//! Why DynamoDB cancelled a transaction, per action.

use super::{Error, Item};
use crate::primary_key::PrimaryKey;
use std::fmt;

/// Why one action of a cancelled transaction did not apply, as DynamoDB reported it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReasonCode {
    /// The action itself was fine; the transaction was cancelled because of another action.
    None,
    /// The action's condition (guards, version check or the caller's condition) did not hold.
    ConditionalCheckFailed,
    /// An item collection of a local secondary index would exceed 10 GB.
    ItemCollectionSizeLimitExceeded,
    /// Another transaction or write was working on the same item at the same time.
    TransactionConflict,
    /// The table or index exceeded its provisioned throughput.
    ProvisionedThroughputExceeded,
    /// DynamoDB throttled the request.
    ThrottlingError,
    /// DynamoDB found the action invalid.
    ValidationError,
    /// A code this version of dynashard does not know.
    Other(String),
}

impl ReasonCode {
    /// The code as DynamoDB spells it.
    pub fn as_str(&self) -> &str {
        match self {
            ReasonCode::None => "None",
            ReasonCode::ConditionalCheckFailed => "ConditionalCheckFailed",
            ReasonCode::ItemCollectionSizeLimitExceeded => "ItemCollectionSizeLimitExceeded",
            ReasonCode::TransactionConflict => "TransactionConflict",
            ReasonCode::ProvisionedThroughputExceeded => "ProvisionedThroughputExceeded",
            ReasonCode::ThrottlingError => "ThrottlingError",
            ReasonCode::ValidationError => "ValidationError",
            ReasonCode::Other(code) => code,
        }
    }

    pub(crate) fn parse(code: Option<&str>) -> Self {
        match code {
            None | Some("None") => ReasonCode::None,
            Some("ConditionalCheckFailed") => ReasonCode::ConditionalCheckFailed,
            Some("ItemCollectionSizeLimitExceeded") => ReasonCode::ItemCollectionSizeLimitExceeded,
            Some("TransactionConflict") => ReasonCode::TransactionConflict,
            Some("ProvisionedThroughputExceeded") => ReasonCode::ProvisionedThroughputExceeded,
            Some("ThrottlingError") => ReasonCode::ThrottlingError,
            Some("ValidationError") => ReasonCode::ValidationError,
            Some(other) => ReasonCode::Other(other.to_owned()),
        }
    }
}

impl fmt::Display for ReasonCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One action of a cancelled transaction, in [`Error::TransactionCanceled`]: which item it
/// addressed and why it did not apply.
#[derive(Debug)]
#[non_exhaustive]
pub struct CancellationReason {
    /// The action's position in the transaction, in the order the actions were added.
    pub action: usize,
    /// The real name of the table the action addressed.
    pub table: String,
    /// The key of the item the action addressed.
    pub key: PrimaryKey,
    /// DynamoDB's reason code.
    pub code: ReasonCode,
    /// DynamoDB's message, if any.
    pub message: Option<String>,
    /// The item as it was stored, when DynamoDB returned it (for failed conditions on an
    /// existing item).
    pub item: Option<Box<Item>>,
    /// For a failed condition, the precise error the same write would have had on its own:
    /// [`Error::VersionConflict`], [`Error::AlreadyExists`], [`Error::NotFound`] or
    /// [`Error::ConditionFailed`].
    pub error: Option<Box<Error>>,
}

impl CancellationReason {
    /// Whether this action is a cause of the cancellation (its code is not `None`).
    pub fn failed(&self) -> bool {
        self.code != ReasonCode::None
    }
}

/// Whether any action of a cancelled transaction failed its condition.
pub(crate) fn any_condition_failed(reasons: &[CancellationReason]) -> bool {
    reasons.iter().any(|reason| reason.code == ReasonCode::ConditionalCheckFailed)
}

/// Whether any action of a cancelled transaction failed its version check.
pub(crate) fn any_version_conflict(reasons: &[CancellationReason]) -> bool {
    reasons.iter().any(|reason| reason.error.as_deref().is_some_and(Error::is_version_conflict))
}

/// A one-line summary of the failed actions, for the error message.
pub(crate) fn describe(reasons: &[CancellationReason]) -> String {
    let failed: Vec<String> = reasons
        .iter()
        .filter(|reason| reason.failed())
        .map(|reason| match &reason.error {
            Some(error) => format!("action {} ({}): {error}", reason.action, reason.code),
            None => match &reason.message {
                Some(message) => format!("action {} ({}): {message}", reason.action, reason.code),
                None => format!("action {} ({})", reason.action, reason.code),
            },
        })
        .collect();
    if failed.is_empty() {
        "no reason given".to_owned()
    } else {
        failed.join("; ")
    }
}
