//! Writing many entities: `BatchWriteItem` requests of up to 25 puts and deletes, of one entity
//! type ([`BatchWrite`]) or of several in one table ([`TableBatch`]).

mod part;
mod send;
mod table;

pub use table::{EntityTypes, TableBatch};

use crate::batch::{RetryPolicy, DEFAULT_CONCURRENCY};
use crate::db::Db;
use crate::entity::{Entity, Key};
use crate::error::Result;
use crate::telemetry::Operation;
use futures::future::BoxFuture;
use std::future::IntoFuture;

/// Puts and deletes of many entities of one type; `.await` it to send.
///
/// Everything is checked before the first request is sent: every item is converted with
/// [`to_item`](crate::item::to_item) (invalid keys, reserved attributes, items over 400 KB), two writes to the same key
/// give [`Error::DuplicateBatchKey`](crate::Error::DuplicateBatchKey), and `#[version]` entities give
/// [`Error::VersionedBatchWrite`](crate::Error::VersionedBatchWrite) (a batch write cannot check versions; use
/// [`Db::put`]/[`Db::save`] or a transaction). Writes of one call are applied in no particular
/// order, and not atomically: when the call gives up, [`Error::BatchIncomplete`](crate::Error::BatchIncomplete) holds the writes
/// that were not applied.
///
/// ```no_run
/// # async fn example<E: dynashard::Entity>(db: dynashard::Db, new: Vec<E>, old: Vec<dynashard::Key<E>>) -> dynashard::Result<()> {
/// db.batch_write().put_all(&new).delete_all(old).concurrency(16).await?;
/// # Ok(()) }
/// ```
#[must_use = "a batch write does nothing until awaited"]
pub struct BatchWrite<'a, E: Entity> {
    db: &'a Db,
    puts: Vec<&'a E>,
    /// Puts of entities the batch owns (decoded from unprocessed writes).
    owned: Vec<E>,
    deletes: Vec<Key<E>>,
    versions: Option<BatchVersions>,
    concurrency: usize,
    retry: RetryPolicy,
}

/// How a batch writes `#[version]` entities, which `BatchWriteItem` cannot version-check
/// ([`BatchWrite::versions`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BatchVersions {
    /// Every item is written at version 1 with `BatchWriteItem`, unchecked: an item stored under
    /// the same key is replaced whatever its version. For imports into an empty table or a new
    /// copy, where nothing can be overwritten; the fastest and cheapest.
    FirstVersion,
    /// Every put is sent on its own as [`Db::put`] sends it, checked against the stored version
    /// (a value at version 0 is created only if missing), and every delete as [`Db::delete`]:
    /// one request per item, with `concurrency` batches' worth in flight. What fails (a version
    /// conflict, say) is handed back in [`Error::BatchIncomplete`](crate::Error::BatchIncomplete).
    Checked,
}

impl<E: Entity> std::fmt::Debug for BatchWrite<'_, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchWrite")
            .field("entity", &std::any::type_name::<E>())
            .field("puts", &(self.puts.len() + self.owned.len()))
            .field("versions", &self.versions)
            .field("deletes", &self.deletes)
            .field("concurrency", &self.concurrency)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

impl Db {
    /// Writes `entities`, replacing any items with the same keys.
    ///
    /// ```no_run
    /// # async fn example<E: dynashard::Entity>(db: dynashard::Db, songs: Vec<E>) -> dynashard::Result<()> {
    /// db.batch_put(&songs).await?;
    /// # Ok(()) }
    /// ```
    pub fn batch_put<'a, E: Entity>(&'a self, entities: &'a [E]) -> BatchWrite<'a, E> {
        self.batch_write().put_all(entities)
    }

    /// Deletes the items stored under `keys`; deleting a missing item is not an error.
    ///
    /// ```no_run
    /// # async fn example<E: dynashard::Entity>(db: dynashard::Db, keys: Vec<dynashard::Key<E>>) -> dynashard::Result<()> {
    /// db.batch_delete(keys).await?;
    /// # Ok(()) }
    /// ```
    pub fn batch_delete<E: Entity>(&self, keys: impl IntoIterator<Item = Key<E>>) -> BatchWrite<'_, E> {
        self.batch_write().delete_all(keys)
    }

    /// An empty batch write of entity type `E`, to add puts and deletes to.
    ///
    /// ```no_run
    /// # async fn example<E: dynashard::Entity>(db: dynashard::Db, new: Vec<E>, old: dynashard::Key<E>) -> dynashard::Result<()> {
    /// db.batch_write().put_all(&new).delete_all([old]).await?;
    /// # Ok(()) }
    /// ```
    pub fn batch_write<E: Entity>(&self) -> BatchWrite<'_, E> {
        BatchWrite {
            db: self,
            puts: Vec::new(),
            owned: Vec::new(),
            deletes: Vec::new(),
            versions: None,
            concurrency: DEFAULT_CONCURRENCY,
            retry: self.retry_policy(),
        }
    }
}

impl<'a, E: Entity> BatchWrite<'a, E> {
    /// Adds puts of `entities`.
    ///
    /// ```no_run
    /// # async fn example<E: dynashard::Entity>(db: dynashard::Db, a: Vec<E>, b: Vec<E>) -> dynashard::Result<()> {
    /// db.batch_write().put_all(&a).put_all(&b).await?;
    /// # Ok(()) }
    /// ```
    pub fn put_all(mut self, entities: &'a [E]) -> Self {
        self.puts.extend(entities);
        self
    }

    /// Adds puts of entities the batch owns.
    pub(crate) fn owned(mut self, entities: Vec<E>) -> Self {
        self.owned.extend(entities);
        self
    }

    /// Adds deletes of `keys`.
    ///
    /// ```no_run
    /// # async fn example<E: dynashard::Entity>(db: dynashard::Db, keys: Vec<dynashard::Key<E>>) -> dynashard::Result<()> {
    /// db.batch_write().delete_all(keys).await?;
    /// # Ok(()) }
    /// ```
    pub fn delete_all(mut self, keys: impl IntoIterator<Item = Key<E>>) -> Self {
        self.deletes.extend(keys);
        self
    }

    /// How `#[version]` entities are written: without it, a batch of them is refused with
    /// [`Error::VersionedBatchWrite`](crate::Error::VersionedBatchWrite). Ignored for other entities.
    ///
    /// ```no_run
    /// # async fn example<E: dynashard::Entity>(db: dynashard::Db, first_import: Vec<E>) -> dynashard::Result<()> {
    /// use dynashard::ops::BatchVersions;
    /// db.batch_put(&first_import).versions(BatchVersions::FirstVersion).await?;
    /// # Ok(()) }
    /// ```
    pub fn versions(mut self, versions: BatchVersions) -> Self {
        self.versions = Some(versions);
        self
    }

    /// Sends at most `requests` requests at once (default 8; `0` counts as `1`).
    ///
    /// ```no_run
    /// # async fn example<E: dynashard::Entity>(db: dynashard::Db, songs: Vec<E>) -> dynashard::Result<()> {
    /// db.batch_put(&songs).concurrency(32).await?;
    /// # Ok(()) }
    /// ```
    pub fn concurrency(mut self, requests: usize) -> Self {
        self.concurrency = requests.max(1);
        self
    }

    /// Retries per `policy` instead of the `Db`'s default policy.
    ///
    /// ```no_run
    /// # async fn example<E: dynashard::Entity>(db: dynashard::Db, songs: Vec<E>) -> dynashard::Result<()> {
    /// let policy = dynashard::RetryPolicy { max_attempts: 20, ..Default::default() };
    /// db.batch_put(&songs).retry(policy).await?;
    /// # Ok(()) }
    /// ```
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }
}

impl<'a, E: Entity> IntoFuture for BatchWrite<'a, E> {
    type Output = Result<()>;
    type IntoFuture = BoxFuture<'a, Result<()>>;

    fn into_future(self) -> Self::IntoFuture {
        let operation = Operation::of::<E>(self.db, "batch_write", "BatchWriteItem");
        Box::pin(operation.run(async move {
            let (db, concurrency, retry) = (self.db, self.concurrency, self.retry);
            send::run(db, db.table_of::<E>(), &[&self], None, (concurrency, retry)).await
        }))
    }
}
