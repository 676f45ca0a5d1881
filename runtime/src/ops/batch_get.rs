//! Reading many entities by key: `BatchGetItem` requests of up to 100 distinct keys.

use crate::batch::{KeyRead, RetryPolicy, DEFAULT_CONCURRENCY};
use crate::collection::Collection;
use crate::db::Db;
use crate::entity::{Entity, Key, PrimaryKey};
use crate::error::{Item, Result};
use crate::item::{from_item, table_of};
use crate::table::{Table, TableDefinition};
use crate::telemetry::Operation;
use futures::future::BoxFuture;
use std::future::IntoFuture;

/// A read of many entities by key; `.await` it to send. Resolves to one `Option<E>` per input
/// key, in input order (`None` where no item exists).
///
/// Repeated keys are read once and appear in the output at every position they were given. An
/// item that does not decode fails the read with [`Error::Undecodable`](crate::Error::Undecodable),
/// naming its key; [`BatchGet::per_key`] reads the others past it.
/// Keys come back from DynamoDB as unprocessed when a request hits the 16 MB response limit or
/// is throttled; they are retried per the [`RetryPolicy`].
///
/// ```no_run
/// # async fn example<E: dynashard::Entity>(db: dynashard::Db, keys: Vec<dynashard::Key<E>>) -> dynashard::Result<()> {
/// let entities: Vec<Option<E>> = db.batch_get(keys).consistent().concurrency(4).await?;
/// # Ok(()) }
/// ```
///
/// [`Db::batch_get_members`] reads items of a collection's entity types in one call, each decoded
/// as its variant.
#[must_use = "a batch get does nothing until awaited"]
pub struct BatchGet<'a, T> {
    db: &'a Db,
    table: &'static TableDefinition,
    keys: Vec<PrimaryKey>,
    decode: Decode<T>,
    consistent: bool,
    concurrency: usize,
    retry: RetryPolicy,
    /// The entity types read, for the `Db`'s totals.
    entities: &'static [&'static str],
}

/// How a read item becomes the output (`Ok(None)`: never, for the types read here).
type Decode<T> = fn(Item) -> Result<Option<T>>;

impl<T> std::fmt::Debug for BatchGet<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchGet")
            .field("keys", &self.keys)
            .field("consistent", &self.consistent)
            .field("concurrency", &self.concurrency)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

impl Db {
    /// Reads the entities stored under `keys`, aligned with the input order.
    ///
    /// An item of another entity type under one of the keys gives [`Error::WrongEntityType`](crate::Error::WrongEntityType).
    ///
    /// ```no_run
    /// # async fn example<E: dynashard::Entity>(db: dynashard::Db, a: dynashard::Key<E>, b: dynashard::Key<E>) -> dynashard::Result<()> {
    /// let found: Vec<Option<E>> = db.batch_get([a.clone(), b, a]).await?;
    /// assert_eq!(found.len(), 3); // one per input key, repeats included
    /// # Ok(()) }
    /// ```
    pub fn batch_get<E: Entity>(&self, keys: impl IntoIterator<Item = Key<E>>) -> BatchGet<'_, E> {
        let keys = keys.into_iter().map(|key| key.primary().clone()).collect();
        let decode: Decode<E> = |item| from_item::<E>(item).map(Some);
        self.batch_read(table_of::<E>(), keys, (decode, const { &[E::TYPE_NAME] }))
    }

    /// Reads items of the entity types of collection `C`, each decoded as its variant, aligned
    /// with the input order; add the keys with [`BatchGet::member`] (any member type) or
    /// [`BatchGet::members`]. An item of a type outside the collection gives
    /// [`Error::UnknownEntityType`](crate::Error::UnknownEntityType).
    ///
    /// ```no_run
    /// # use dynashard::{Collection, Db, Entity, Key};
    /// # async fn example<C: Collection, A: Entity<Table = C::Table>, B: Entity<Table = C::Table>>(
    /// #     db: Db, artist: Key<A>, albums: Vec<Key<B>>) -> dynashard::Result<()> {
    /// let found: Vec<Option<C>> = db.batch_get_members::<C>().member(artist).members(albums).await?;
    /// # Ok(()) }
    /// ```
    pub fn batch_get_members<C: Collection>(&self) -> BatchGet<'_, C> {
        let decode: Decode<C> = |item| C::from_item(item, false);
        self.batch_read(
            <C::Table as Table>::DEFINITION_REF,
            Vec::new(),
            (decode, <C as crate::query::FromItem>::TYPE_NAMES),
        )
    }

    fn batch_read<T>(
        &self,
        table: &'static TableDefinition,
        keys: Vec<PrimaryKey>,
        (decode, entities): (Decode<T>, &'static [&'static str]),
    ) -> BatchGet<'_, T> {
        BatchGet {
            db: self,
            table,
            keys,
            decode,
            consistent: false,
            concurrency: DEFAULT_CONCURRENCY,
            retry: self.retry_policy(),
            entities,
        }
    }
}

impl<C: Collection> BatchGet<'_, C> {
    /// Adds the key of one member, of any of the collection's entity types.
    pub fn member<M: Entity<Table = C::Table>>(mut self, key: Key<M>) -> Self {
        self.keys.push(key.primary().clone());
        self
    }

    /// Adds the keys of members of one entity type.
    pub fn members<M: Entity<Table = C::Table>>(mut self, keys: impl IntoIterator<Item = Key<M>>) -> Self {
        self.keys.extend(keys.into_iter().map(|key| key.primary().clone()));
        self
    }
}

impl<'a, T> BatchGet<'a, T> {
    /// Uses strongly consistent reads (twice the read capacity).
    ///
    /// ```no_run
    /// # async fn example<E: dynashard::Entity>(db: dynashard::Db, keys: Vec<dynashard::Key<E>>) -> dynashard::Result<()> {
    /// let fresh: Vec<Option<E>> = db.batch_get(keys).consistent().await?;
    /// # Ok(()) }
    /// ```
    pub fn consistent(mut self) -> Self {
        self.consistent = true;
        self
    }

    /// Sends at most `requests` requests at once (default 8; `0` counts as `1`).
    ///
    /// ```no_run
    /// # async fn example<E: dynashard::Entity>(db: dynashard::Db, keys: Vec<dynashard::Key<E>>) -> dynashard::Result<()> {
    /// let found: Vec<Option<E>> = db.batch_get(keys).concurrency(2).await?;
    /// # Ok(()) }
    /// ```
    pub fn concurrency(mut self, requests: usize) -> Self {
        self.concurrency = requests.max(1);
        self
    }

    /// Retries per `policy` instead of the `Db`'s default policy.
    ///
    /// ```no_run
    /// # async fn example<E: dynashard::Entity>(db: dynashard::Db, keys: Vec<dynashard::Key<E>>) -> dynashard::Result<()> {
    /// let policy = dynashard::RetryPolicy { max_attempts: 3, ..Default::default() };
    /// let found: Vec<Option<E>> = db.batch_get(keys).retry(policy).await?;
    /// # Ok(()) }
    /// ```
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Resolves to one `Result` per input key instead: an item that does not decode is
    /// [`Error::Undecodable`](crate::Error::Undecodable) in its key's place, and every other key
    /// still has its entity. Without it, the first such item fails the whole read.
    ///
    /// ```no_run
    /// # async fn example<E: dynashard::Entity>(db: dynashard::Db, keys: Vec<dynashard::Key<E>>) -> dynashard::Result<()> {
    /// for found in db.batch_get(keys).per_key().await? {
    ///     match found {
    ///         Ok(entity) => { /* Some(entity), or None where no item exists */ }
    ///         Err(dynashard::Error::Undecodable(bad)) => eprintln!("skipped {:?}: {}", bad.key, bad.reason),
    ///         Err(other) => return Err(other),
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    pub fn per_key(self) -> PerKey<'a, T> {
        PerKey(self)
    }

    /// Reads every key, and decodes each item found.
    async fn per_item(self) -> Result<Vec<Result<Option<T>>>> {
        let read = KeyRead {
            db: self.db,
            table: self.table,
            keys: self.keys,
            consistent: self.consistent,
            concurrency: self.concurrency,
            retry: self.retry,
            on_request: None,
            entities: self.entities,
        };
        let decode = self.decode;
        let decoded = |item: Option<Item>| Ok(item.map(decode).transpose()?.flatten());
        Ok(read.run().await?.into_iter().map(decoded).collect())
    }

    /// The read, as its span names it.
    fn operation(&self) -> Operation<'a> {
        let entity = self.entities.first().copied().unwrap_or_default();
        let table = self.db.name_of(self.table.name);
        Operation { name: "batch_get", sends: "BatchGetItem", table, entity, definition: Some(self.table) }
    }

    async fn execute(self) -> Result<Vec<Option<T>>> {
        self.per_item().await?.into_iter().collect()
    }
}

/// A [`BatchGet`] resolving to one `Result<Option<T>>` per input key, in input order: made by
/// [`BatchGet::per_key`]. `.await` it to send.
#[must_use = "a batch get does nothing until awaited"]
pub struct PerKey<'a, T>(BatchGet<'a, T>);

impl<T> std::fmt::Debug for PerKey<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("PerKey").field(&self.0).finish()
    }
}

impl<'a, T: Send + 'static> IntoFuture for PerKey<'a, T> {
    type Output = Result<Vec<Result<Option<T>>>>;
    type IntoFuture = BoxFuture<'a, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        let operation = self.0.operation();
        Box::pin(operation.run(self.0.per_item()))
    }
}

impl<'a, T: Send + 'static> IntoFuture for BatchGet<'a, T> {
    type Output = Result<Vec<Option<T>>>;
    type IntoFuture = BoxFuture<'a, Result<Vec<Option<T>>>>;

    fn into_future(self) -> Self::IntoFuture {
        let operation = self.operation();
        Box::pin(operation.run(self.execute()))
    }
}
