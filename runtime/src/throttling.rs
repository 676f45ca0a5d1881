//! Why DynamoDB throttled a request: its `ThrottlingReasons`, typed.
//!
//! Every throttling error DynamoDB returns (`ProvisionedThroughputExceededException`,
//! `ThrottlingException`, `RequestLimitExceeded`) lists reasons, each a name such as
//! `IndexWriteKeyRangeThroughputExceeded` and the ARN of the table or index it concerns. The name
//! is three words: the resource (table or index), the operation (read or write) and the limit
//! that was hit. Only a key-range limit (one hot partition) is helped by more shards; the others
//! are limits of the whole table, index or account.

use serde::{Deserialize, Serialize};
use std::fmt;

/// What was throttled: the table itself or one of its global secondary indexes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThrottledResource {
    /// The base table.
    Table,
    /// A global secondary index.
    Index,
}

/// Which kind of operation was throttled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThrottledOperation {
    /// Reads (read capacity units).
    Read,
    /// Writes (write capacity units).
    Write,
}

/// Which limit was exceeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThrottleLimit {
    /// One partition's throughput (`KeyRangeThroughputExceeded`): a hot key, helped by sharding.
    KeyRange,
    /// The provisioned capacity of the table or index (`ProvisionedThroughputExceeded`).
    Provisioned,
    /// The account's per-table quota in on-demand mode (`AccountLimitExceeded`).
    AccountLimit,
    /// The configured on-demand maximum of the table or index (`MaxOnDemandThroughputExceeded`).
    MaxOnDemand,
}

impl ThrottleLimit {
    const ALL: [ThrottleLimit; 4] = [
        ThrottleLimit::KeyRange,
        ThrottleLimit::Provisioned,
        ThrottleLimit::AccountLimit,
        ThrottleLimit::MaxOnDemand,
    ];

    /// The limit's word in a reason name, e.g. `KeyRangeThroughputExceeded`.
    pub fn as_str(self) -> &'static str {
        match self {
            ThrottleLimit::KeyRange => "KeyRangeThroughputExceeded",
            ThrottleLimit::Provisioned => "ProvisionedThroughputExceeded",
            ThrottleLimit::AccountLimit => "AccountLimitExceeded",
            ThrottleLimit::MaxOnDemand => "MaxOnDemandThroughputExceeded",
        }
    }
}

/// A reason name split into its three words, e.g. `IndexWriteKeyRangeThroughputExceeded` is
/// (index, write, key range).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ThrottleKind {
    /// The table or an index.
    pub resource: ThrottledResource,
    /// Read or write.
    pub operation: ThrottledOperation,
    /// The limit exceeded.
    pub limit: ThrottleLimit,
}

impl ThrottleKind {
    /// Reads a reason name; `None` for a name this version does not know.
    pub fn parse(name: &str) -> Option<Self> {
        let (resource, rest) = if let Some(rest) = name.strip_prefix("Table") {
            (ThrottledResource::Table, rest)
        } else {
            (ThrottledResource::Index, name.strip_prefix("Index")?)
        };
        let (operation, rest) = if let Some(rest) = rest.strip_prefix("Read") {
            (ThrottledOperation::Read, rest)
        } else {
            (ThrottledOperation::Write, rest.strip_prefix("Write")?)
        };
        let limit = ThrottleLimit::ALL.into_iter().find(|limit| limit.as_str() == rest)?;
        Some(Self { resource, operation, limit })
    }

    /// Every reason DynamoDB defines (sixteen).
    pub fn all() -> impl Iterator<Item = ThrottleKind> {
        [ThrottledResource::Table, ThrottledResource::Index].into_iter().flat_map(|resource| {
            [ThrottledOperation::Read, ThrottledOperation::Write].into_iter().flat_map(move |operation| {
                ThrottleLimit::ALL.into_iter().map(move |limit| ThrottleKind { resource, operation, limit })
            })
        })
    }
}

impl fmt::Display for ThrottleKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let resource = match self.resource {
            ThrottledResource::Table => "Table",
            ThrottledResource::Index => "Index",
        };
        let operation = match self.operation {
            ThrottledOperation::Read => "Read",
            ThrottledOperation::Write => "Write",
        };
        write!(f, "{resource}{operation}{}", self.limit.as_str())
    }
}

/// One of the reasons DynamoDB gave for throttling a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThrottlingReason {
    reason: String,
    kind: Option<ThrottleKind>,
    arn: Option<String>,
}

impl ThrottlingReason {
    /// The reason `kind` concerning the table or index with ARN `arn`.
    pub fn new(kind: ThrottleKind, arn: impl Into<String>) -> Self {
        Self { reason: kind.to_string(), kind: Some(kind), arn: Some(arn.into()) }
    }

    /// A reason as DynamoDB sends it: its name and the resource's ARN.
    pub fn from_wire(reason: Option<&str>, arn: Option<&str>) -> Self {
        let reason = reason.unwrap_or_default().to_owned();
        Self { kind: ThrottleKind::parse(&reason), reason, arn: arn.map(str::to_owned) }
    }

    /// The reason's name, e.g. `TableWriteKeyRangeThroughputExceeded`.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// The name split into resource, operation and limit; `None` for a name this version does
    /// not know.
    pub fn kind(&self) -> Option<ThrottleKind> {
        self.kind
    }

    /// The ARN of the throttled table or index.
    pub fn arn(&self) -> Option<&str> {
        self.arn.as_deref()
    }

    /// The name of the throttled table (also for an index), read from the ARN.
    pub fn table(&self) -> Option<&str> {
        let (_, path) = self.arn.as_deref()?.split_once(":table/")?;
        path.split('/').next().filter(|name| !name.is_empty())
    }

    /// The name of the throttled index, read from the ARN; `None` for the table itself.
    pub fn index(&self) -> Option<&str> {
        let (_, path) = self.arn.as_deref()?.split_once(":table/")?;
        let mut parts = path.split('/');
        match (parts.next(), parts.next(), parts.next()) {
            (Some(_), Some("index"), Some(index)) if !index.is_empty() => Some(index),
            _ => None,
        }
    }

    /// Whether one partition key value was over its limit (a hot key): the one limit more
    /// shards relieve.
    pub fn is_key_range(&self) -> bool {
        self.kind.is_some_and(|kind| kind.limit == ThrottleLimit::KeyRange)
    }
}

impl fmt::Display for ThrottlingReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.arn {
            Some(arn) => write!(f, "{} ({arn})", self.reason),
            None => f.write_str(&self.reason),
        }
    }
}

/// The reasons of a throttling error body, as DynamoDB writes them: `ThrottlingReasons` in
/// `ProvisionedThroughputExceededException` and `RequestLimitExceeded`, `throttlingReasons` in
/// `ThrottlingException`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct WireReasons {
    #[serde(rename = "ThrottlingReasons", alias = "throttlingReasons", default)]
    pub reasons: Vec<WireReason>,
}

/// One entry of [`WireReasons`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct WireReason {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
}

impl From<&ThrottlingReason> for WireReason {
    fn from(reason: &ThrottlingReason) -> Self {
        Self { reason: Some(reason.reason.clone()), resource: reason.arn.clone() }
    }
}

/// The JSON error body DynamoDB sends for throttling: the exception's name, a message and the
/// reasons, under the key that exception uses.
#[derive(Debug, Serialize)]
struct ThrottlingBody<'a> {
    #[serde(rename = "__type")]
    exception: String,
    message: &'a str,
    #[serde(rename = "ThrottlingReasons", skip_serializing_if = "Option::is_none")]
    upper: Option<Vec<WireReason>>,
    #[serde(rename = "throttlingReasons", skip_serializing_if = "Option::is_none")]
    lower: Option<Vec<WireReason>>,
}

/// The error code DynamoDB answers throttling with `reasons`, by the limit of the first:
/// `ThrottlingException` for an on-demand maximum, `RequestLimitExceeded` for the account quota,
/// `ProvisionedThroughputExceededException` for key ranges and provisioned capacity (and when
/// there are no reasons).
pub(crate) fn throttling_code(reasons: &[ThrottlingReason]) -> &'static str {
    match reasons.first().and_then(ThrottlingReason::kind).map(|kind| kind.limit) {
        Some(ThrottleLimit::MaxOnDemand) => "ThrottlingException",
        Some(ThrottleLimit::AccountLimit) => "RequestLimitExceeded",
        _ => "ProvisionedThroughputExceededException",
    }
}

/// The body of an HTTP 400 answer to a request throttled for `reasons`, as DynamoDB writes it:
/// what an emulator or a fault injector answers so that clients read it as DynamoDB's own.
pub fn throttling_body(reasons: &[ThrottlingReason], message: &str) -> Vec<u8> {
    let code = throttling_code(reasons);
    let wire: Vec<WireReason> = reasons.iter().map(WireReason::from).collect();
    let (upper, lower) = match (code, wire.is_empty()) {
        (_, true) => (None, None),
        ("ThrottlingException", false) => (None, Some(wire)),
        (_, false) => (Some(wire), None),
    };
    let body = ThrottlingBody {
        exception: format!("com.amazonaws.dynamodb.v20120810#{code}"),
        message,
        upper,
        lower,
    };
    // A struct of strings always serializes.
    serde_json::to_vec(&body).unwrap_or_default()
}

/// The reasons in an error body; none when the body has none or is not JSON.
pub(crate) fn reasons_in_body(body: &[u8]) -> Vec<ThrottlingReason> {
    serde_json::from_slice::<WireReasons>(body)
        .map(|wire| {
            wire.reasons
                .iter()
                .map(|entry| ThrottlingReason::from_wire(entry.reason.as_deref(), entry.resource.as_deref()))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_name_round_trips() {
        let names: Vec<String> = ThrottleKind::all().map(|kind| kind.to_string()).collect();
        assert_eq!(names.len(), 16);
        assert!(names.contains(&"IndexWriteKeyRangeThroughputExceeded".to_owned()));
        assert!(names.contains(&"TableReadMaxOnDemandThroughputExceeded".to_owned()));
        for kind in ThrottleKind::all() {
            assert_eq!(ThrottleKind::parse(&kind.to_string()), Some(kind));
        }
        for unknown in
            ["", "Table", "TableWrite", "TableWriteSomethingElse", "GlobalWriteKeyRangeThroughputExceeded"]
        {
            assert_eq!(ThrottleKind::parse(unknown), None, "{unknown}");
        }
    }

    #[test]
    fn tables_and_indexes_come_from_the_arn() {
        let index = ThrottlingReason::from_wire(
            Some("IndexWriteKeyRangeThroughputExceeded"),
            Some("arn:aws:dynamodb:us-east-1:123456789012:table/Orders/index/ByCustomer"),
        );
        assert_eq!((index.table(), index.index()), (Some("Orders"), Some("ByCustomer")));
        assert!(index.is_key_range());
        let table = ThrottlingReason::from_wire(
            Some("TableWriteProvisionedThroughputExceeded"),
            Some("arn:aws:dynamodb:ddblocal:000000000000:table/Orders"),
        );
        assert_eq!((table.table(), table.index()), (Some("Orders"), None));
        assert!(!table.is_key_range());
        let bare = ThrottlingReason::from_wire(Some("Whatever"), None);
        assert_eq!((bare.table(), bare.index(), bare.kind()), (None, None, None));
    }

    #[test]
    fn bodies_of_all_three_exceptions_are_read() {
        let upper = br#"{"__type":"x#ProvisionedThroughputExceededException","message":"m",
            "ThrottlingReasons":[{"reason":"TableReadKeyRangeThroughputExceeded","resource":"arn:aws:dynamodb:r:1:table/T"}]}"#;
        let lower = br#"{"__type":"x#ThrottlingException","throttlingReasons":[{"reason":"IndexWriteMaxOnDemandThroughputExceeded"}]}"#;
        assert_eq!(reasons_in_body(upper)[0].table(), Some("T"));
        assert_eq!(reasons_in_body(lower)[0].kind().map(|kind| kind.limit), Some(ThrottleLimit::MaxOnDemand));
        assert!(reasons_in_body(b"{}").is_empty());
        for kind in ThrottleKind::all() {
            let reason = ThrottlingReason::new(kind, "arn:aws:dynamodb:r:1:table/T/index/I");
            let body = throttling_body(std::slice::from_ref(&reason), "slow down");
            assert_eq!(reasons_in_body(&body), std::slice::from_ref(&reason), "{kind}");
            let text = String::from_utf8(body).unwrap();
            assert!(text.contains(throttling_code(&[reason])), "{text}");
        }
        assert!(reasons_in_body(b"not json").is_empty());
    }
}
