//! Sending batch calls: many keys or items per call ([`BatchGet`](crate::ops::BatchGet),
//! [`BatchWrite`](crate::BatchWrite)), split into requests
//! of DynamoDB's size (100 keys per `BatchGetItem`, 25 writes per `BatchWriteItem`), sent with
//! bounded concurrency, and retried (unprocessed items, throttling, transient failures) with
//! exponential backoff and full jitter. Nothing is dropped silently: a call that gives up fails
//! with [`Error::BatchIncomplete`](crate::Error::BatchIncomplete), which carries what is left.
//!
//! ```no_run
//! # async fn example<E: dynashard::Entity>(db: dynashard::Db, items: Vec<E>, keys: Vec<dynashard::Key<E>>) -> dynashard::Result<()> {
//! db.batch_put(&items).concurrency(16).await?;
//! let found: Vec<Option<E>> = db.batch_get(keys.clone()).consistent().await?; // input order
//! db.batch_delete(keys).await?;
//! # Ok(()) }
//! ```

mod attempts;
mod get;
mod send;

pub use crate::error::Unprocessed;
pub use crate::retry::RetryPolicy;
pub(crate) use attempts::{Attempts, Failure, Tally};
pub(crate) use get::{KeyRead, OnRequest};
pub(crate) use send::{send_requests, BeforeRetry, Sender, Writes, OPERATION};

use crate::entity::PrimaryKey;
use crate::error::Item;
use crate::table::TableDefinition;

/// DynamoDB's limit of keys per `BatchGetItem` request.
pub(crate) const MAX_GET_KEYS: usize = 100;

/// DynamoDB's limit of writes per `BatchWriteItem` request.
pub(crate) const MAX_WRITES: usize = 25;

/// Requests in flight at once per call, unless set with `.concurrency(n)`.
pub(crate) const DEFAULT_CONCURRENCY: usize = 8;

/// The primary key of an item (or key item) of `table`, when its key attributes are strings.
pub(crate) fn key_of(table: &TableDefinition, item: &Item) -> Option<PrimaryKey> {
    let pk = item.get(table.partition_key)?.as_s().ok()?.clone();
    let sk = match table.sort_key {
        Some(name) => Some(item.get(name)?.as_s().ok()?.clone()),
        None => None,
    };
    Some(PrimaryKey { pk, sk })
}
