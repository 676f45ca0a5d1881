//! Many metadata items at once: read or deleted in batches (a hundred keys a `BatchGetItem`,
//! twenty-five deletes a `BatchWriteItem`), the batches at once, so that the leases of a scan of
//! a thousand segments, or the records of a verification, take a round trip or two rather than
//! one each. A throttled request, and what DynamoDB leaves unprocessed, are sent again under the
//! retry policy; when it gives up on the unprocessed, [`Error::BatchIncomplete`] says what is left.

use super::store::Store;
use super::table::{metadata_error, retrying, PARTITION};
use crate::error::{Error, Item, Result, Unprocessed};
use crate::primary_key::PrimaryKey;
use aws_sdk_dynamodb::types::{AttributeValue, DeleteRequest, KeysAndAttributes, WriteRequest};
use futures::stream::{self, StreamExt, TryStreamExt};
use std::collections::HashMap;

/// Keys a `BatchGetItem` reads at most.
const READ_BATCH: usize = 100;
/// Deletes a `BatchWriteItem` makes at most.
const DELETE_BATCH: usize = 25;
/// Batches of deletes in flight at once.
const DELETES_AT_ONCE: usize = 16;

/// The items under `keys` in the metadata table `table` (strongly consistent), by key; absent
/// ones are left out. Every batch is sent at once.
pub(crate) async fn read_items<'s>(
    db: impl Into<Store<'s>>,
    table: &str,
    keys: &[String],
) -> Result<HashMap<String, Item>> {
    let db = db.into();
    let batches = keys.chunks(READ_BATCH).map(|batch| read_batch(db, table, batch));
    let found = futures::future::try_join_all(batches).await?;
    Ok(found.into_iter().flatten().collect())
}

/// [`read_items`] of at most a hundred keys.
async fn read_batch(db: Store<'_>, table: &str, keys: &[String]) -> Result<Vec<(String, Item)>> {
    let mut found = Vec::with_capacity(keys.len());
    let mut pending: Vec<Item> = keys.iter().map(|key| key_item(key)).collect();
    let mut retry = crate::retry::Retry::new(db.retry_policy());
    while !pending.is_empty() {
        let request = KeysAndAttributes::builder().set_keys(Some(pending)).consistent_read(true).build();
        let request = request.map_err(|error| Error::from_build("BatchGetItem", error))?;
        let output = retrying(db, || {
            let send = db.client().batch_get_item().request_items(table, request.clone()).send();
            async move { send.await.map_err(|error| metadata_error(table, "BatchGetItem", error)) }
        })
        .await?;
        let read = output.responses.and_then(|mut tables| tables.remove(table)).unwrap_or_default();
        let progressed = !read.is_empty();
        found.extend(read.into_iter().filter_map(|item| Some((key_of(&item)?, item))));
        pending = output
            .unprocessed_keys
            .and_then(|mut tables| tables.remove(table))
            .map(|left| left.keys)
            .unwrap_or_default();
        if pending.is_empty() {
            break;
        }
        match retry.after_failure(progressed) {
            Some(delay) => tokio::time::sleep(delay).await,
            None => {
                let left = pending.iter().filter_map(key_of).map(|pk| PrimaryKey { pk, sk: None }).collect();
                return Err(incomplete("BatchGetItem", Unprocessed::Keys(left), found.len()));
            }
        }
    }
    Ok(found)
}

/// Deletes the items under `keys` in the metadata table `table` (absent ones are no error).
pub(crate) async fn delete_items<'k, 's>(
    db: impl Into<Store<'s>>,
    table: &str,
    keys: impl IntoIterator<Item = &'k str>,
) -> Result<()> {
    let db = db.into();
    let keys: Vec<Item> = keys.into_iter().map(key_item).collect();
    // Owned batches: a future that borrows from the closure that made it is not `Send` for every
    // lifetime, which tasks spawned around this need.
    let batches: Vec<Vec<Item>> = keys.chunks(DELETE_BATCH).map(<[Item]>::to_vec).collect();
    let table = table.to_owned();
    let deletes: Vec<_> = batches.into_iter().map(|batch| delete_batch(db, table.clone(), batch)).collect();
    stream::iter(deletes).buffer_unordered(DELETES_AT_ONCE).try_collect().await
}

/// [`delete_items`] of at most twenty-five keys.
async fn delete_batch(db: Store<'_>, table: String, keys: Vec<Item>) -> Result<()> {
    let table = table.as_str();
    let delete = |key: Item| {
        let request = DeleteRequest::builder().set_key(Some(key)).build();
        request.map(|delete| WriteRequest::builder().delete_request(delete).build())
    };
    let mut pending = keys
        .into_iter()
        .map(delete)
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|error| Error::from_build("BatchWriteItem", error))?;
    let mut retry = crate::retry::Retry::new(db.retry_policy());
    let mut deleted = 0;
    while !pending.is_empty() {
        let sent = pending.len();
        let output = retrying(db, || {
            let send = db.client().batch_write_item().request_items(table, pending.clone()).send();
            async move { send.await.map_err(|error| metadata_error(table, "BatchWriteItem", error)) }
        })
        .await?;
        pending = output.unprocessed_items.and_then(|mut tables| tables.remove(table)).unwrap_or_default();
        deleted += sent - pending.len();
        if pending.is_empty() {
            break;
        }
        match retry.after_failure(pending.len() < sent) {
            Some(delay) => tokio::time::sleep(delay).await,
            None => {
                let deletes =
                    pending.into_iter().filter_map(|request| Some(request.delete_request?.key)).collect();
                let left = Unprocessed::Writes { puts: Vec::new(), deletes };
                return Err(incomplete("BatchWriteItem", left, deleted));
            }
        }
    }
    Ok(())
}

/// The key item of the metadata item under `key`.
fn key_item(key: &str) -> Item {
    [(PARTITION.to_owned(), AttributeValue::S(key.to_owned()))].into_iter().collect()
}

/// The key a metadata item is stored under.
fn key_of(item: &Item) -> Option<String> {
    item.get(PARTITION)?.as_s().ok().cloned()
}

/// The error of a batch the retry policy gave up on, `unprocessed` left.
fn incomplete(operation: &'static str, unprocessed: Unprocessed, succeeded: usize) -> Error {
    let unknown = Box::new(match &unprocessed {
        Unprocessed::Keys(_) => Unprocessed::Keys(Vec::new()),
        Unprocessed::Writes { .. } => Unprocessed::Writes { puts: Vec::new(), deletes: Vec::new() },
    });
    Error::BatchIncomplete { operation, unprocessed, unknown, succeeded, last_error: None }
}
