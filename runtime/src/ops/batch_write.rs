//! Writing many entities of one type: `BatchWriteItem` requests of up to 25 puts and deletes.

use crate::batch::BeforeRetry;
use crate::batch::{
    send_requests, RetryPolicy, Sender, Unprocessed, DEFAULT_CONCURRENCY, MAX_WRITES, OPERATION,
};
use crate::db::Db;
use crate::entity::{Entity, Key};
use crate::error::{Error, Item, Result};
use crate::item::{key_item, table_of};
use crate::reshard::ReshardGuard;
use crate::write::{Draft, Layouts};
use aws_sdk_dynamodb::types::{AttributeValue, DeleteRequest, PutRequest, WriteRequest};
use futures::future::BoxFuture;
use futures::stream::{self, StreamExt};
use std::collections::HashSet;
use std::future::IntoFuture;

/// Puts and deletes of many entities of one type; `.await` it to send.
///
/// Everything is checked before the first request is sent: every item is converted with
/// [`to_item`](crate::item::to_item) (invalid keys, reserved attributes, items over 400 KB), two writes to the same key
/// give [`Error::DuplicateBatchKey`], and `#[version]` entities give
/// [`Error::VersionedBatchWrite`] (a batch write cannot check versions; use
/// [`Db::put`]/[`Db::save`] or a transaction). Writes of one call are applied in no particular
/// order, and not atomically: when the call gives up, [`Error::BatchIncomplete`] holds the writes
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
    /// conflict, say) is handed back in [`Error::BatchIncomplete`].
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
    /// [`Error::VersionedBatchWrite`]. Ignored for other entities.
    ///
    /// ```no_run
    /// # async fn example<E: dynashard::Entity>(db: dynashard::Db, first_import: Vec<E>) -> dynashard::Result<()> {
    /// use dynashard::BatchVersions;
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

    /// Checks and converts every write, the puts' complete `items` given, in requests of at most
    /// 25; sends nothing.
    fn requests(&self, items: Vec<Item>) -> Result<Vec<Vec<WriteRequest>>> {
        let count = self.puts.len() + self.owned.len() + self.deletes.len();
        let mut keys = HashSet::with_capacity(count);
        let mut requests = Vec::with_capacity(count);
        for (entity, item) in self.entities().zip(items) {
            if let Some(key) = keys.replace(entity.primary_key()?) {
                return Err(Error::DuplicateBatchKey { key });
            }
            let put = PutRequest::builder().set_item(Some(item)).build();
            let put = put.map_err(|error| Error::from_build(OPERATION, error))?;
            requests.push(WriteRequest::builder().put_request(put).build());
        }
        for key in &self.deletes {
            if let Some(key) = keys.replace(key.primary().clone()) {
                return Err(Error::DuplicateBatchKey { key });
            }
            let delete =
                DeleteRequest::builder().set_key(Some(key_item(table_of::<E>(), key.primary()))).build();
            let delete = delete.map_err(|error| Error::from_build(OPERATION, error))?;
            requests.push(WriteRequest::builder().delete_request(delete).build());
        }
        let mut chunks = Vec::with_capacity(count.div_ceil(MAX_WRITES));
        let mut requests = requests.into_iter().peekable();
        while requests.peek().is_some() {
            chunks.push(requests.by_ref().take(MAX_WRITES).collect());
        }
        Ok(chunks)
    }

    /// Every entity to put.
    fn entities(&self) -> impl Iterator<Item = &E> {
        self.puts.iter().copied().chain(&self.owned)
    }

    async fn execute(self) -> Result<()> {
        let versions = E::VERSION_ATTRIBUTE.map(|attribute| (attribute, self.versions));
        if let Some((_, None)) = versions {
            return Err(Error::VersionedBatchWrite { entity: E::TYPE_NAME });
        }
        let layouts = Layouts::resolve(self.db).await?;
        // Every put picks its shard from the counts read here; retries keep their shard.
        let mut items = Vec::with_capacity(self.puts.len() + self.owned.len());
        for entity in self.entities() {
            let mut item = Draft::new(entity)?.build(&layouts).await?.item;
            if let Some((attribute, Some(BatchVersions::FirstVersion))) = versions {
                item.insert(attribute.to_owned(), AttributeValue::N("1".to_owned()));
            }
            items.push(item);
        }
        let chunks = self.requests(items)?;
        if let Some(index) = layouts.frozen() {
            return self.each_on_its_own(Some(index), chunks.into_iter().flatten().collect()).await;
        }
        if let Some((_, Some(BatchVersions::Checked))) = versions {
            return self.each_on_its_own(None, chunks.into_iter().flatten().collect()).await;
        }
        let reshards = ReshardGuard::of::<E>(self.db);
        let sender = Sender {
            db: self.db,
            retry: self.retry,
            before_retry: reshards.as_ref().map(|guard| guard as &dyn BeforeRetry),
            on_request: None,
        };
        send_requests(&sender, self.db.table_of::<E>(), chunks, self.concurrency).await
    }

    /// Every write sent on its own, with `concurrency` batches' worth in flight: for a batch of
    /// `#[version]` entities written [`BatchVersions::Checked`], and while a batched backfill
    /// holds existing items of index `frozen` frozen, which makes every put create-only (a batch
    /// cannot check that) and refuses deletes. What was not written is returned in
    /// [`Error::BatchIncomplete`] (its last error [`Error::Frozen`] when an item existed).
    async fn each_on_its_own(&self, frozen: Option<&str>, requests: Vec<WriteRequest>) -> Result<()> {
        let puts = self.entities().map(|entity| self.db.put(entity).into_future());
        let deletes = self.deletes.iter().filter(|_| frozen.is_none());
        let deletes =
            deletes.map(|key| Box::pin(async move { self.db.delete(key.clone()).await.map(drop) }) as _);
        let writes: Vec<BoxFuture<'_, Result<()>>> = puts.chain(deletes).collect();
        let results: Vec<Result<()>> =
            stream::iter(writes).buffered(self.concurrency * MAX_WRITES).collect().await;
        let (mut puts, mut deletes, mut last_error, mut succeeded) = (Vec::new(), Vec::new(), None, 0);
        let mut results = results.into_iter();
        for request in requests {
            let result = match (&request.delete_request, frozen) {
                (Some(_), Some(index)) => {
                    Err(Error::Frozen { entity: E::TYPE_NAME, index: index.to_owned() })
                }
                _ => results.next().unwrap_or(Ok(())),
            };
            match result {
                Ok(()) => succeeded += 1,
                Err(error) => {
                    puts.extend(request.put_request.map(|put| put.item));
                    deletes.extend(request.delete_request.map(|delete| delete.key));
                    last_error = Some(Box::new(error));
                }
            }
        }
        if last_error.is_none() {
            return Ok(());
        }
        let unwritten = puts;
        Err(Error::BatchIncomplete {
            operation: OPERATION,
            unprocessed: Unprocessed::Writes { puts: unwritten, deletes },
            succeeded,
            last_error,
        })
    }
}

impl<'a, E: Entity> IntoFuture for BatchWrite<'a, E> {
    type Output = Result<()>;
    type IntoFuture = BoxFuture<'a, Result<()>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.execute())
    }
}
