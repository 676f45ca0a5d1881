//! The one error type of dynashard, and the errors and records it carries.
//!
//! A leaf of the crate: it depends only on plain data ([`PrimaryKey`], [`ThrottlingReason`]),
//! never on the modules that return its errors.

mod cancel;
mod cursor;
mod key;
mod kind;
mod predicates;
pub(crate) mod sdk;
mod undecodable;
mod unprocessed;

pub use cancel::{CancellationReason, ReasonCode};
pub use cursor::CursorError;
pub use key::{KeyError, KeyPartDecodeError};
pub use undecodable::Undecodable;
pub use unprocessed::Unprocessed;

pub(crate) use predicates::is_throttling_code;

use crate::primary_key::PrimaryKey;
use crate::throttling::ThrottlingReason;
use std::error::Error as StdError;

impl AsRef<Error> for Error {
    fn as_ref(&self) -> &Error {
        self
    }
}

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

    /// A key value of a global secondary index is empty or over DynamoDB's size limit (2,048
    /// bytes for a partition key, 1,024 for a sort key), counted after the shard suffix, time
    /// bucket or range sort key is added; nothing was sent.
    #[error("invalid key for index `{index}`, attribute `{attribute}`: {reason}")]
    InvalidIndexKey {
        /// The index.
        index: &'static str,
        /// The index key attribute.
        attribute: &'static str,
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

    /// An update would grow the item past DynamoDB's 400 KB limit: DynamoDB refused it, and
    /// nothing was stored. (An item written whole is checked before sending; what an update
    /// makes of the stored item only DynamoDB knows.)
    #[error("the update would grow the item past DynamoDB's limit of {max} bytes; nothing was stored")]
    UpdatedItemTooLarge {
        /// DynamoDB's limit of an item's size (409,600 bytes).
        max: usize,
    },

    /// An expression a write builds is longer than DynamoDB's limit (a put that keeps
    /// `#[created_at]` names every attribute in one update expression); nothing was sent.
    #[error("the update expression is {bytes} bytes, over DynamoDB's limit of {max} bytes")]
    ExpressionTooLarge {
        /// The expression's length.
        bytes: usize,
        /// The limit (4,096 bytes).
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

    /// An `add` or `subtract` would take a number out of its field's type (past `u32::MAX`,
    /// below zero for an unsigned field, below `i64::MIN`): DynamoDB refused it by a condition
    /// the update carried, and nothing was stored.
    #[error("`{attribute}` holds {stored}: changing it by {change} would leave the range of `{ty}`")]
    Overflow {
        /// The attribute (or the path of the value nested in one).
        attribute: String,
        /// The number stored there, as DynamoDB returned it.
        stored: String,
        /// The change asked for: `+5`, `-3`.
        change: String,
        /// The field's type.
        ty: &'static str,
    },

    /// A number DynamoDB cannot store (`NaN`, an infinity, more than 38 significant digits, a
    /// magnitude past 9.99E+125 or below 1E-130) in a value a write or a condition would send:
    /// refused before anything was sent.
    #[error("`{attribute}` holds {value}, which DynamoDB cannot store: {reason}")]
    InvalidNumber {
        /// The attribute (or the path of the value nested in one).
        attribute: String,
        /// The number as it would have been sent (its first 64 characters).
        value: String,
        /// Why DynamoDB would refuse it.
        reason: &'static str,
    },

    /// Two actions of one update change one value, or one a value within the other's (`append`
    /// and `prepend` of one list, `set` twice, `add_to` and `delete_from` of one set): DynamoDB
    /// refuses such a request, so it is refused before sending. Make them one action, or two
    /// updates.
    #[error(
        "an update changes `{first}` and `{second}`, which overlap: make them one action, or two updates"
    )]
    OverlappingActions {
        /// The first of the two paths.
        first: String,
        /// The second.
        second: String,
    },

    /// A value written to the `#[ttl]` attribute is not epoch seconds from 1970 to the year 9999
    /// (milliseconds, a negative number, not a number): DynamoDB would keep the item forever,
    /// so it is refused before sending.
    #[error("the time-to-live attribute `{attribute}` would hold {value}: {reason}")]
    InvalidTtl {
        /// The time-to-live attribute.
        attribute: String,
        /// The value (its first 64 characters).
        value: String,
        /// Why it cannot be a time to live.
        reason: &'static str,
    },

    /// An update names an element past the end of a list (`remove_at`, or a value set inside an
    /// element): refused by a condition the update carried (or before sending, for an index no
    /// list can reach), and nothing was stored.
    #[error("`{list}` has no element {index}{}", held(.length))]
    ListIndexOutOfRange {
        /// The list (its attribute, or the path of a list nested in one).
        list: String,
        /// The index asked for.
        index: usize,
        /// How many elements the stored list holds (`None`: no list is stored there, or the
        /// index was refused before sending).
        length: Option<usize>,
    },

    /// A table name given at run time ([`Db::with_table_name`](crate::Db::with_table_name)) that
    /// DynamoDB would refuse: 3 to 255 characters of `a-z A-Z 0-9 _ - .`.
    #[error("`{name}` cannot be a table name: {reason}")]
    InvalidTableName {
        /// The name given.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
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

    /// A live index holds less than its declaration says: its items lack an attribute the
    /// declared projection holds (the entity-type attribute, which every read of the index
    /// needs). The table was created otherwise, or changed since; [`Db::verify_table`] lists
    /// every way it differs.
    ///
    /// [`Db::verify_table`]: crate::Db::verify_table
    #[error(
        "index `{index}` does not hold `{attribute}`, which its declaration projects: the live index \
         is narrower than declared (`Db::verify_table` lists how it differs)"
    )]
    IndexNarrowerThanDeclared {
        /// The index.
        index: String,
        /// The attribute its items lack.
        attribute: String,
    },

    /// An item that was read does not decode as the type asked for (see [`Undecodable`]); reads
    /// of many items go on past it.
    #[error(transparent)]
    Undecodable(Box<Undecodable>),

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

    /// DynamoDB throttled the request (`ProvisionedThroughputExceededException`,
    /// `ThrottlingException`, `RequestLimitExceeded`), with the reasons it gave: which table or
    /// index, reads or writes, and which limit ([`ThrottlingReason`]). An endpoint that gives no
    /// reasons (older DynamoDB Local, other emulators) leaves `reasons` empty.
    #[error(
        "DynamoDB {operation} was throttled ({code}){}: {message}",
        predicates::describe_reasons(reasons)
    )]
    Throttled {
        /// The API operation, e.g. `PutItem`.
        operation: &'static str,
        /// The error code, e.g. `ProvisionedThroughputExceededException`.
        code: String,
        /// DynamoDB's description.
        message: String,
        /// Why, per throttled resource; empty when the endpoint gave no reasons.
        reasons: Vec<ThrottlingReason>,
        /// The SDK error.
        #[source]
        source: Box<dyn StdError + Send + Sync>,
    },

    /// DynamoDB did not answer in time ([`Timeouts`](crate::Timeouts) of the client): the
    /// endpoint is unreachable, frozen or overloaded. A write that timed out may or may not have
    /// been applied.
    #[error("DynamoDB {operation} timed out: {message}")]
    Timeout {
        /// The API operation, e.g. `GetItem`.
        operation: &'static str,
        /// What timed out (connecting, one attempt, the whole request).
        message: String,
        /// The SDK error.
        #[source]
        source: Box<dyn StdError + Send + Sync>,
    },

    /// An update changes part of an index key but not all of it; nothing was sent.
    #[error("cannot update index `{index}`: field `{field}`: {reason}")]
    IndexKeyIncomplete {
        /// The index whose key the update would change.
        index: &'static str,
        /// The field at fault.
        field: &'static str,
        /// What is wrong.
        reason: &'static str,
    },

    /// An upsert does not set a field that a new item of the entity needs; nothing was sent.
    #[error("an upsert of `{entity}` must set field `{field}`: an item it creates needs it")]
    UpsertIncomplete {
        /// The entity type.
        entity: &'static str,
        /// The attribute of the field the upsert leaves unset.
        field: &'static str,
    },

    /// The entity has no range-sharded mapping of this index, so it has no boundaries to read or
    /// replace.
    #[error("entity `{entity}` has no range-sharded index `{index}`")]
    NotRangeSharded {
        /// The entity type.
        entity: &'static str,
        /// The index asked for.
        index: String,
    },

    /// The shard metadata table does not exist.
    #[error(
        "the shard metadata table `{table}` does not exist: create it with `Db::create_table` (of a table declaring it) or `Db::create_shard_metadata_table`"
    )]
    ShardMetadataMissing {
        /// The table's name.
        table: String,
    },

    /// A shard metadata item cannot be read.
    #[error("shard metadata of `{partition}` is malformed: {reason}")]
    ShardMetadataMalformed {
        /// The metadata key.
        partition: String,
        /// What is wrong.
        reason: String,
    },

    /// A shard count is 0 or above the index's maximum (stored, or asked for).
    #[error("shard count {count} of `{partition}` is outside 1..={max}")]
    InvalidShardCount {
        /// The metadata key.
        partition: String,
        /// The count.
        count: u64,
        /// The index's maximum.
        max: u32,
    },

    /// The entity has a dynamic-sharded index, and neither its table declares a shard metadata
    /// table nor the `Db` was given one.
    #[error("dynamic shards need a metadata table: declare one with `#[table(shard_metadata = \"...\")]` or configure one with `Db::with_shard_metadata`")]
    ShardMetadataNotConfigured,

    /// A resharding of a table that declares no shard metadata table: a process writing the
    /// table could not know of the resharding, and would skip its dual writes.
    #[error("resharding `{table}` needs its shard metadata table declared with it (`#[table(shard_metadata = \"...\")]`), so that every process writing it fills the new layout")]
    ShardMetadataUndeclared {
        /// The table's declared name.
        table: &'static str,
    },

    /// A write of an entity whose index may be under resharding was built before the
    /// resharding's state was read (in a transaction, call `Db::resolve_shards` first).
    #[error("the resharding state of index `{index}` is not known here: write the entity with `Db::put` or `Db::batch_put`, or call `Db::resolve_shards` first")]
    ReshardingUnresolved {
        /// The index.
        index: &'static str,
    },

    /// An item of a dynamic-sharded index was built without its shard count at hand (outside a
    /// put or batch write, or in a transaction before the count was read).
    #[error("the shard count of `{partition}` in index `{index}` is not known here: write the entity with `Db::put` or `Db::batch_put`, or call `Db::resolve_shards` first")]
    DynamicShardsUnresolved {
        /// The index.
        index: &'static str,
        /// The logical partition key.
        partition: String,
    },

    /// A resharding step cannot be taken.
    #[error("cannot reshard index `{index}`: {reason}")]
    Resharding {
        /// The index being resharded.
        index: String,
        /// Why.
        reason: String,
    },

    /// A query of a mapping declared `added` (`#[gsi(Index(..., added))]`) before the migration
    /// that gives every existing item its keys has cut over: the index does not hold every item
    /// yet. Nothing was read. Run the migration ([`Migration::add_mapping`]), or accept a
    /// partial answer ([`Query::accept_partial`](crate::Query::accept_partial)).
    ///
    /// [`Migration::add_mapping`]: crate::reshard::Migration::add_mapping
    #[error("index `{index}` of `{entity}` does not hold every item yet: {reason}")]
    MappingIncomplete {
        /// The index.
        index: &'static str,
        /// The entity type whose mapping it is.
        entity: &'static str,
        /// Where its migration stands.
        reason: String,
    },

    /// A write that would change or delete an existing item of `entity` while a batched backfill
    /// of its index `index` runs ([`Backfill::batched`](crate::reshard::Backfill::batched)).
    /// The write changed nothing; new items can still be created. Retry after the backfill.
    #[error("items of `{entity}` that exist cannot change while a batched backfill of index `{index}` runs; retry after it")]
    Frozen {
        /// The entity type.
        entity: &'static str,
        /// The index being backfilled.
        index: String,
    },

    /// The table has no stream turned on, and what was asked reads it (a
    /// [`ChangeFeed`](crate::changes::ChangeFeed), or a resharding's catch-up).
    #[error("table `{table}` has no stream: declare one with `#[table(stream = \"new_image\")]` (or any view type) and turn it on with `Db::create_table` or `Db::enable_stream`")]
    StreamRequired {
        /// The table.
        table: String,
    },

    /// A change feed missed records: its stream trimmed them (24 hours after they were written)
    /// before the feed read them, or the table's stream was replaced. Nothing past the gap was
    /// handed over; [`ChangeFeed::reset`](crate::changes::ChangeFeed::reset) starts the feed
    /// again at the oldest records the stream holds (a resharding's catch-up:
    /// [`Db::restart_catch_up`](crate::Db::restart_catch_up)).
    #[error("change feed `{consumer}` missed records: {reason}")]
    ChangeFeedGap {
        /// The feed's consumer name.
        consumer: String,
        /// What it missed.
        reason: String,
    },

    /// A stream record is not one of the table's changes (see [`crate::changes`]).
    #[error("invalid change record{}: {reason}", record_named(.event_id, .sequence_number))]
    InvalidChangeRecord {
        /// What is wrong.
        reason: String,
        /// The record's `eventID`, when it came in a Lambda event that gave one.
        event_id: Option<String>,
        /// The record's sequence number, when known: a Lambda handler's `itemIdentifier` in
        /// `batchItemFailures`.
        sequence_number: Option<String>,
    },

    /// A query cannot run as built; nothing was sent.
    #[error("invalid query: {reason}")]
    InvalidQuery {
        /// What is wrong.
        reason: String,
    },

    /// A time-bucketed query's window covers more partitions (buckets times shards) than the
    /// query may read ([`Query::max_partitions`](crate::Query::max_partitions)); nothing was sent.
    #[error(
        "the time window covers {partitions} partitions (buckets times shards), over the bound of {max}: \
         narrow the window, or raise it with Query::max_partitions"
    )]
    WindowTooWide {
        /// The partitions the window covers.
        partitions: u128,
        /// The query's bound.
        max: u64,
    },

    /// A [merged query](crate::Query::merge) has more partition keys than its bound; nothing was
    /// sent.
    #[error(
        "the merged query reads {keys} partition keys, over the bound of {max}: read fewer, or raise it \
         with Query::max_keys"
    )]
    TooManyKeys {
        /// The distinct keys the merge reads.
        keys: usize,
        /// The query's bound.
        max: usize,
    },

    /// A cursor was rejected; nothing was sent.
    #[error("invalid cursor: {reason}")]
    InvalidCursor {
        /// Why it was rejected.
        reason: CursorError,
    },

    /// A stored key does not decode with its template.
    #[error(transparent)]
    KeyDecode(#[from] KeyPartDecodeError),

    /// A collection read an item whose entity type is not one of its variants.
    #[error("item of unknown entity type {found:?} in a collection of {expected:?}")]
    UnknownEntityType {
        /// The entity types the collection knows.
        expected: &'static [&'static str],
        /// The entity-type attribute found on the item.
        found: Option<String>,
    },

    /// A background request task failed (it panicked or was cancelled).
    #[error("a background request failed: {message}")]
    Background {
        /// What the task reported.
        message: String,
    },

    /// A table did not become active in time.
    #[error("table `{table}` did not become active within {seconds} s")]
    TableNotActive {
        /// The table name.
        table: String,
        /// How long dynashard waited.
        seconds: u64,
    },

    /// Two writes of one batch call address the same key; nothing was sent. DynamoDB refuses
    /// such a request, and applying only one of the writes would silently lose the other.
    #[error("the batch writes key {key:?} more than once")]
    DuplicateBatchKey {
        /// The key written more than once.
        key: PrimaryKey,
    },

    /// A batch write of an entity type with a `#[version]` field that does not say how to write
    /// versions; nothing was sent. `BatchWriteItem` cannot check versions: choose
    /// `.versions(BatchVersions::FirstVersion)` (unchecked, version 1) or
    /// `.versions(BatchVersions::Checked)` (one checked put each).
    #[error(
        "entity type `{entity}` has a #[version] field, which BatchWriteItem cannot check; choose \
         .versions(BatchVersions::FirstVersion) or .versions(BatchVersions::Checked)"
    )]
    VersionedBatchWrite {
        /// The entity type.
        entity: &'static str,
    },

    /// A batch call gave up (retry bound exhausted, or an error that is not retried) with work
    /// left. Nothing is dropped: every write or key is counted in `succeeded`, or listed in
    /// `unprocessed` or `unknown`.
    #[error(
        "{operation} gave up with {} unprocessed{} ({succeeded} succeeded)",
        unprocessed.len(),
        unprocessed::unknown_part(unknown)
    )]
    BatchIncomplete {
        /// The API operation, `BatchWriteItem` or `BatchGetItem`.
        operation: &'static str,
        /// What was certainly not processed: never sent, or refused by DynamoDB.
        unprocessed: Unprocessed,
        /// Writes sent whose outcome is unknown: DynamoDB did not answer in time, the answer
        /// was lost, or it reported an internal error ([`Error::outcome_unknown`]). Each may or
        /// may not be stored; a plain put or delete can be resent as it is, a checked one
        /// ([`BatchVersions::Checked`](crate::ops::BatchVersions::Checked)) should be read first.
        /// Always empty for a batch get (reading again is harmless: its keys are unprocessed).
        unknown: Box<Unprocessed>,
        /// How many writes, or distinct keys, were certainly processed.
        succeeded: usize,
        /// The last error of a request, if any request failed.
        #[source]
        last_error: Option<Box<Error>>,
    },

    /// DynamoDB cancelled a transaction; nothing was written. Holds one reason per action, in
    /// the order the actions were added.
    #[error("the transaction was cancelled: {}", cancel::describe(reasons))]
    TransactionCanceled {
        /// Per action: its item, DynamoDB's reason code, and for a failed condition the precise
        /// error (version conflict, already exists, not found, condition failed).
        reasons: Vec<CancellationReason>,
    },

    /// A transaction has more actions than DynamoDB allows; nothing was sent.
    #[error("the transaction has {actions} actions, over DynamoDB's limit of {max}")]
    TransactionTooLarge {
        /// The number of actions.
        actions: usize,
        /// The limit (100).
        max: usize,
    },

    /// A transaction's items, keys and expressions add up to more than DynamoDB's 4 MB limit;
    /// nothing was sent.
    #[error("the transaction is {bytes} bytes, over DynamoDB's limit of {max} bytes")]
    TransactionTooBig {
        /// The transaction's size, counted as DynamoDB counts item sizes.
        bytes: usize,
        /// The limit (4 MB).
        max: usize,
    },

    /// Two actions of one transaction address the same item, which DynamoDB refuses; nothing was
    /// sent.
    #[error("the transaction addresses key {key:?} of table `{table}` more than once")]
    DuplicateTransactionKey {
        /// The real table name.
        table: String,
        /// The key addressed more than once.
        key: PrimaryKey,
    },
}

/// Shorthand for results with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// " (it holds n)" for a list's length, when known.
fn held(length: &Option<usize>) -> String {
    length.map(|length| format!(" (it holds {length})")).unwrap_or_default()
}

/// " (event …, sequence number …)" for a stream record, as far as it is known.
fn record_named(event_id: &Option<String>, sequence_number: &Option<String>) -> String {
    match (event_id, sequence_number) {
        (None, None) => String::new(),
        (Some(id), None) => format!(" (event {id})"),
        (None, Some(number)) => format!(" (sequence number {number})"),
        (Some(id), Some(number)) => format!(" (event {id}, sequence number {number})"),
    }
}
