//! Writing many entities of one type: `BatchWriteItem` requests of up to 25 puts and deletes.

use crate::batch::BeforeRetry;
use crate::batch::{
    build_error, send_requests, RetryPolicy, Sender, Unprocessed, DEFAULT_CONCURRENCY, MAX_WRITES, OPERATION,
};
use crate::db::Db;
use crate::entity::{Entity, Key};
use crate::error::{Error, Item, Result};
use crate::item::{key_item, table_of};
use crate::reshard::ReshardGuard;
use crate::write::{Draft, Layouts};
use aws_sdk_dynamodb::types::{DeleteRequest, PutRequest, WriteRequest};
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
    deletes: Vec<Key<E>>,
    concurrency: usize,
    retry: RetryPolicy,
}

impl<E: Entity> std::fmt::Debug for BatchWrite<'_, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchWrite")
            .field("entity", &std::any::type_name::<E>())
            .field("puts", &self.puts.len())
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
            deletes: Vec::new(),
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
        let count = self.puts.len() + self.deletes.len();
        let mut keys = HashSet::with_capacity(count);
        let mut requests = Vec::with_capacity(count);
        for (entity, item) in self.puts.iter().zip(items) {
            if let Some(key) = keys.replace(entity.primary_key()?) {
                return Err(Error::DuplicateBatchKey { key });
            }
            let put = PutRequest::builder().set_item(Some(item)).build();
            let put = put.map_err(|error| build_error(OPERATION, error))?;
            requests.push(WriteRequest::builder().put_request(put).build());
        }
        for key in &self.deletes {
            if let Some(key) = keys.replace(key.primary().clone()) {
                return Err(Error::DuplicateBatchKey { key });
            }
            let delete =
                DeleteRequest::builder().set_key(Some(key_item(table_of::<E>(), key.primary()))).build();
            let delete = delete.map_err(|error| build_error(OPERATION, error))?;
            requests.push(WriteRequest::builder().delete_request(delete).build());
        }
        let mut chunks = Vec::with_capacity(count.div_ceil(MAX_WRITES));
        let mut requests = requests.into_iter().peekable();
        while requests.peek().is_some() {
            chunks.push(requests.by_ref().take(MAX_WRITES).collect());
        }
        Ok(chunks)
    }

    async fn execute(self) -> Result<()> {
        if E::VERSION_ATTRIBUTE.is_some() {
            return Err(Error::VersionedBatchWrite { entity: E::TYPE_NAME });
        }
        let layouts = Layouts::resolve(self.db).await?;
        // Every put picks its shard from the counts read here; retries keep their shard.
        let mut items = Vec::with_capacity(self.puts.len());
        for entity in &self.puts {
            items.push(Draft::new(*entity)?.build(&layouts).await?.item);
        }
        let chunks = self.requests(items)?;
        if let Some(index) = layouts.frozen() {
            return self.create_each(index, chunks.into_iter().flatten().collect()).await;
        }
        let reshards = ReshardGuard::of::<E>(self.db);
        let sender = Sender {
            db: self.db,
            retry: self.retry,
            before_retry: reshards.as_ref().map(|guard| guard as &dyn BeforeRetry),
        };
        send_requests(&sender, self.db.table_of::<E>(), chunks, self.concurrency).await
    }

    /// The writes while a batched backfill holds existing items frozen: every put is sent as a
    /// put of its own, which the freeze makes create-only (a batch cannot check that), with
    /// `concurrency` batches' worth in flight; deletes are refused. What was not written is
    /// returned in [`Error::BatchIncomplete`] (its last error [`Error::Frozen`] when an item
    /// existed).
    async fn create_each(&self, index: &str, requests: Vec<WriteRequest>) -> Result<()> {
        let puts: Vec<_> = self.puts.iter().map(|entity| self.db.put(*entity).into_future()).collect();
        let results: Vec<Result<()>> =
            stream::iter(puts).buffered(self.concurrency * MAX_WRITES).collect().await;
        let (mut unwritten, mut last_error, mut succeeded) = (Vec::new(), None, 0);
        for (request, result) in requests.iter().zip(results) {
            match result {
                Ok(()) => succeeded += 1,
                Err(error) => {
                    unwritten.extend(request.put_request.as_ref().map(|put| put.item.clone()));
                    last_error = Some(Box::new(error));
                }
            }
        }
        let deletes: Vec<_> = requests
            .into_iter()
            .filter_map(|request| request.delete_request.map(|delete| delete.key))
            .collect();
        if !deletes.is_empty() {
            last_error = Some(Box::new(Error::Frozen { entity: E::TYPE_NAME, index: index.to_owned() }));
        }
        if last_error.is_none() {
            return Ok(());
        }
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
