//! The shard metadata table: one item per logical partition key, read, created and changed
//! with conditional writes.
//!
//! | attribute | type | meaning |
//! |---|---|---|
//! | `partition` (key) | S | `<table>/<index>/<logical partition key>` |
//! | `shards` | N | the current count |
//! | `last_changed` | N | unix milliseconds of the last change: the optimistic lock |
//! | `history` | SS | `"<unix ms>:<count>"` for every change |

use super::store::Store;
use crate::error::{Error, Item, Result};
use crate::metadata::{HistoryEntry, ShardState};
use crate::table::{Billing, TableDefinition};
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::types::AttributeValue;
use std::collections::HashMap;

/// The metadata table's key attribute.
pub const PARTITION: &str = "partition";
const SHARDS: &str = "shards";
const LAST_CHANGED: &str = "last_changed";
const HISTORY: &str = "history";

/// The metadata table's shape (its name is configured at run time).
pub(crate) const DEFINITION: TableDefinition = TableDefinition {
    name: "",
    partition_key: PARTITION,
    sort_key: None,
    type_attribute: "_type",
    indexes: &[],
    billing: Billing::PayPerRequest,
    shard_metadata: None,
    ttl: None,
    stream: None,
    deletion_protection: false,
    point_in_time_recovery: false,
    warm_throughput: None,
    tags: &[],
};

/// The outcome of a conditional change.
pub(crate) enum Change {
    /// The change was written; the new state.
    Written(ShardState),
    /// Another writer changed the item first.
    Lost,
}

/// Reads and writes the metadata items of one table.
pub(crate) struct MetadataTable<'a> {
    pub db: Store<'a>,
    pub table: &'a str,
}

/// The error of a failed request to the metadata table `table`: a missing table is
/// [`Error::ShardMetadataMissing`].
pub(crate) fn metadata_error<E>(
    table: &str,
    operation: &'static str,
    error: aws_sdk_dynamodb::error::SdkError<E, aws_sdk_dynamodb::config::http::HttpResponse>,
) -> Error
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
{
    if error.code() == Some("ResourceNotFoundException") {
        return Error::ShardMetadataMissing { table: table.to_owned() };
    }
    Error::from_sdk(operation, error)
}

/// The answer of a conditional write, or `None` when its condition did not hold (other errors
/// as they are).
pub(crate) fn unless_condition_failed<T, E, R>(
    result: std::result::Result<T, SdkError<E, R>>,
) -> std::result::Result<Option<T>, SdkError<E, R>>
where
    E: ProvideErrorMetadata,
{
    match result {
        Ok(output) => Ok(Some(output)),
        Err(error) if error.code() == Some("ConditionalCheckFailedException") => Ok(None),
        Err(error) => Err(error),
    }
}

/// Writes `item` under `key` in the metadata table `table` unless an item is there; returns
/// whether it was written.
pub(crate) async fn put_new<'s>(
    db: impl Into<Store<'s>>,
    table: &str,
    key: &str,
    mut item: Item,
) -> Result<bool> {
    let db = db.into();
    item.insert(PARTITION.to_owned(), AttributeValue::S(key.to_owned()));
    let result = db
        .client()
        .put_item()
        .table_name(table)
        .set_item(Some(item))
        .condition_expression("attribute_not_exists(#key)")
        .expression_attribute_names("#key", PARTITION)
        .send()
        .await;
    let written = unless_condition_failed(result).map_err(|error| metadata_error(table, "PutItem", error))?;
    Ok(written.is_some())
}

/// The metadata item under `key` in `table`, if any (a strongly consistent read).
pub(crate) async fn read_item<'s>(db: impl Into<Store<'s>>, table: &str, key: &str) -> Result<Option<Item>> {
    let db = db.into();
    let output = db
        .client()
        .get_item()
        .table_name(table)
        .key(PARTITION, AttributeValue::S(key.to_owned()))
        .consistent_read(true)
        .send()
        .await
        .map_err(|error| metadata_error(table, "GetItem", error))?;
    Ok(output.item)
}

/// Runs `attempt`, waiting out throttling under `db`'s retry policy: the metadata table can be
/// throttled too.
pub(crate) async fn retrying<'s, T, F, Fut>(db: impl Into<Store<'s>>, attempt: F) -> Result<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T>>,
{
    crate::retry::retrying_throttled(db.into().retry_policy(), attempt).await
}

impl MetadataTable<'_> {
    /// The stored state of `key`, if any (a strongly consistent read).
    pub async fn read(&self, key: &str, max: u32) -> Result<Option<ShardState>> {
        retrying(self.db, || self.read_once(key, max)).await
    }

    async fn read_once(&self, key: &str, max: u32) -> Result<Option<ShardState>> {
        let item = read_item(self.db, self.table, key).await?;
        item.map(|item| parse(key, &item, max)).transpose()
    }

    /// Stores `state` for `key` unless an item exists; `Lost` when one does.
    pub async fn create(&self, key: &str, state: &ShardState) -> Result<Change> {
        retrying(self.db, || self.create_once(key, state)).await
    }

    async fn create_once(&self, key: &str, state: &ShardState) -> Result<Change> {
        let result = self
            .db
            .client()
            .put_item()
            .table_name(self.table)
            .item(PARTITION, AttributeValue::S(key.to_owned()))
            .item(SHARDS, number(state.count))
            .item(LAST_CHANGED, number(state.last_changed))
            .item(HISTORY, AttributeValue::Ss(state.history.iter().map(HistoryEntry::encode).collect()))
            .condition_expression("attribute_not_exists(#p)")
            .expression_attribute_names("#p", PARTITION)
            .send()
            .await;
        match unless_condition_failed(result).map_err(|error| metadata_error(self.table, "PutItem", error))? {
            Some(_) => Ok(Change::Written(state.clone())),
            None => Ok(Change::Lost),
        }
    }

    /// Sets `key`'s count to `count` at `now`, if its last change is still `expected` (or
    /// unconditionally with `None`); `Lost` when another writer changed it first.
    pub async fn change(
        &self,
        key: &str,
        count: u32,
        now: u64,
        expected: Option<u64>,
        max: u32,
    ) -> Result<Change> {
        retrying(self.db, || self.change_once(key, count, now, expected, max)).await
    }

    async fn change_once(
        &self,
        key: &str,
        count: u32,
        now: u64,
        expected: Option<u64>,
        max: u32,
    ) -> Result<Change> {
        let entry = HistoryEntry { at: now, count };
        let mut request = self
            .db
            .client()
            .update_item()
            .table_name(self.table)
            .key(PARTITION, AttributeValue::S(key.to_owned()))
            .update_expression("SET #s = :count, #l = :now ADD #h :entry")
            .expression_attribute_names("#s", SHARDS)
            .expression_attribute_names("#l", LAST_CHANGED)
            .expression_attribute_names("#h", HISTORY)
            .expression_attribute_values(":count", number(count))
            .expression_attribute_values(":now", number(now))
            .expression_attribute_values(":entry", AttributeValue::Ss(vec![entry.encode()]))
            .return_values(aws_sdk_dynamodb::types::ReturnValue::AllNew);
        if let Some(expected) = expected {
            request = request
                .condition_expression("#l = :expected")
                .expression_attribute_values(":expected", number(expected));
        }
        match unless_condition_failed(request.send().await)
            .map_err(|error| metadata_error(self.table, "UpdateItem", error))?
        {
            Some(output) => Ok(Change::Written(parse(key, &output.attributes.unwrap_or_default(), max)?)),
            None => Ok(Change::Lost),
        }
    }
}

fn number(value: impl ToString) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

/// Reads a metadata item, checking its count against `max`.
pub(crate) fn parse(key: &str, item: &HashMap<String, AttributeValue>, max: u32) -> Result<ShardState> {
    let malformed =
        |what: &str| Error::ShardMetadataMalformed { partition: key.to_owned(), reason: what.to_owned() };
    let number = |name: &str| -> Result<u64> {
        let value = item.get(name).and_then(|value| value.as_n().ok()).ok_or_else(|| malformed(name))?;
        value.parse::<u64>().map_err(|_| malformed(name))
    };
    let count = number(SHARDS)?;
    if count == 0 || count > u64::from(max) {
        return Err(Error::InvalidShardCount { partition: key.to_owned(), count, max });
    }
    let last_changed = number(LAST_CHANGED)?;
    let mut history: Vec<HistoryEntry> = match item.get(HISTORY) {
        None => Vec::new(),
        Some(AttributeValue::Ss(entries)) => entries
            .iter()
            .map(|entry| HistoryEntry::decode(entry).ok_or_else(|| malformed(HISTORY)))
            .collect::<Result<_>>()?,
        Some(_) => return Err(malformed(HISTORY)),
    };
    history.sort();
    Ok(ShardState { count: count as u32, last_changed, history })
}
