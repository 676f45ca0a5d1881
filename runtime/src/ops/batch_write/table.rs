//! A batch write of entities of several types stored in one table: products and their
//! inventory in one call, with the retries, leftovers and typed resend of a batch of one type.

use super::send::{self, Part};
use super::{BatchVersions, BatchWrite};
use crate::batch::{RetryPolicy, Unprocessed, DEFAULT_CONCURRENCY};
use crate::db::Db;
use crate::entity::{Entity, Key};
use crate::error::{Error, Result};
use crate::table::Table;
use crate::telemetry::Operation;
use futures::future::BoxFuture;
use std::future::IntoFuture;
use std::marker::PhantomData;

/// Puts and deletes of entities of any types stored in table `T`, in one batch call; `.await` it
/// to send. Made by [`Db::table_batch`].
///
/// Everything a [`BatchWrite`] checks is checked for every type before the first request is
/// sent (two writes to one key, of any types, give [`Error::DuplicateBatchKey`]), and the writes
/// of all types share requests of 25. When the call gives up, [`Error::BatchIncomplete`] holds
/// what was left, of every type; [`TableBatch::resend`] sends it again, typed.
///
/// ```no_run
/// # use dynashard::{Db, Entity, Table};
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Table)] #[table(name = "Shop", pk = "pk", sk = "sk")] struct Shop;
/// # #[derive(Entity, Serialize, Deserialize)] #[entity(table = Shop, pk = "{sku}", sk = "product")]
/// # struct Product { sku: String, name: String }
/// # #[derive(Entity, Serialize, Deserialize)] #[entity(table = Shop, pk = "{sku}", sk = "stock#{store}")]
/// # struct Inventory { sku: String, store: String, on_hand: u32 }
/// # async fn example(db: Db, products: Vec<Product>, stock: Vec<Inventory>) -> dynashard::Result<()> {
/// use dynashard::Error;
/// let gone = Inventory::key("sku-1", "closed-store")?;
/// let batch = db.table_batch::<Shop>().put_all(&products).put_all(&stock).delete(gone);
/// if let Err(Error::BatchIncomplete { unprocessed, .. }) = batch.await {
///     // Later: every leftover write, each as its own type.
///     db.table_batch::<Shop>().resend::<(Product, Inventory)>(&unprocessed)?.await?;
/// }
/// # Ok(()) }
/// ```
#[must_use = "a batch write does nothing until awaited"]
pub struct TableBatch<'a, T> {
    db: &'a Db,
    parts: Vec<Box<dyn Part + 'a>>,
    versions: Option<BatchVersions>,
    concurrency: usize,
    retry: RetryPolicy,
    table: PhantomData<fn() -> T>,
}

impl<T> std::fmt::Debug for TableBatch<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableBatch")
            .field("table", &std::any::type_name::<T>())
            .field("parts", &self.parts.len())
            .field("versions", &self.versions)
            .field("concurrency", &self.concurrency)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

impl Db {
    /// An empty batch write of entities of any types stored in table `T`, to add puts and
    /// deletes of each type to (see [`TableBatch`]).
    pub fn table_batch<T: Table>(&self) -> TableBatch<'_, T> {
        TableBatch {
            db: self,
            parts: Vec::new(),
            versions: None,
            concurrency: DEFAULT_CONCURRENCY,
            retry: self.retry_policy(),
            table: PhantomData,
        }
    }
}

impl<'a, T: Table> TableBatch<'a, T> {
    fn with<E: Entity<Table = T>>(mut self, part: BatchWrite<'a, E>) -> Self {
        self.parts.push(Box::new(part));
        self
    }

    /// Adds puts of `entities`, of any entity type of the table.
    pub fn put_all<E: Entity<Table = T>>(self, entities: &'a [E]) -> Self {
        let part = self.db.batch_write().put_all(entities);
        self.with(part)
    }

    /// Adds a put of `entity`.
    pub fn put<E: Entity<Table = T>>(self, entity: &'a E) -> Self {
        self.put_all(std::slice::from_ref(entity))
    }

    /// Adds deletes of `keys`, of any entity type of the table.
    pub fn delete_all<E: Entity<Table = T>>(self, keys: impl IntoIterator<Item = Key<E>>) -> Self {
        let part = self.db.batch_write().delete_all(keys);
        self.with(part)
    }

    /// Adds a delete of `key`.
    pub fn delete<E: Entity<Table = T>>(self, key: Key<E>) -> Self {
        self.delete_all([key])
    }

    /// Adds what a batch write left unprocessed (or of unknown outcome), each write as its type
    /// among `Types` (one entity type, or a tuple of up to eight): its puts built again, so that
    /// index keys and shards are those of a put made now. A write of a type outside `Types`
    /// fails with [`Error::UnknownEntityType`], and the unread keys of a batch get with
    /// [`Error::InvalidQuery`]: nothing is left out silently.
    pub fn resend<Types: EntityTypes<T>>(self, unprocessed: &Unprocessed) -> Result<Self> {
        if let Unprocessed::Keys(_) = unprocessed {
            let reason =
                "these are a batch get's unread keys: read them with batch_get(unprocessed.keys_as())";
            return Err(Error::InvalidQuery { reason: reason.into() });
        }
        let names = Types::names();
        let mut types = unprocessed.types_in(&T::DEFINITION);
        if let Some(found) = types.find(|found| !found.is_some_and(|found| names.contains(&found))) {
            return Err(Error::UnknownEntityType { expected: Types::NAMES, found: found.map(str::to_owned) });
        }
        Types::add(self, unprocessed)
    }

    /// How `#[version]` entities of every type are written ([`BatchWrite::versions`]).
    pub fn versions(mut self, versions: BatchVersions) -> Self {
        self.versions = Some(versions);
        self
    }

    /// Sends at most `requests` requests at once (default 8; `0` counts as `1`).
    pub fn concurrency(mut self, requests: usize) -> Self {
        self.concurrency = requests.max(1);
        self
    }

    /// Retries per `policy` instead of the `Db`'s default policy.
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }
}

impl<'a, T: Table> IntoFuture for TableBatch<'a, T> {
    type Output = Result<()>;
    type IntoFuture = BoxFuture<'a, Result<()>>;

    fn into_future(self) -> Self::IntoFuture {
        let (table, definition) = (self.db.table_name::<T>(), T::DEFINITION_REF);
        let operation = Operation {
            name: "batch_write",
            sends: "BatchWriteItem",
            table,
            entity: definition.name,
            definition: Some(definition),
        };
        Box::pin(operation.run(async move {
            let parts: Vec<&dyn Part> = self.parts.iter().map(|part| part.as_ref()).collect();
            send::run(self.db, table, &parts, self.versions, (self.concurrency, self.retry)).await
        }))
    }
}

/// The entity types a [`TableBatch::resend`] decodes leftover writes as: one entity type of
/// table `T`, or a tuple of up to eight.
pub trait EntityTypes<T: Table> {
    /// The types' names (the values of the entity-type attribute).
    const NAMES: &'static [&'static str];

    /// The types' names.
    #[doc(hidden)]
    fn names() -> &'static [&'static str] {
        Self::NAMES
    }

    /// Adds the leftover writes of each type to `batch`.
    #[doc(hidden)]
    fn add<'a>(batch: TableBatch<'a, T>, unprocessed: &Unprocessed) -> Result<TableBatch<'a, T>>;
}

macro_rules! entity_types {
    ($($E:ident),+) => {
        impl<T: Table, $($E: Entity<Table = T>),+> EntityTypes<T> for ($($E,)+) {
            const NAMES: &'static [&'static str] = &[$($E::TYPE_NAME),+];

            fn add<'a>(mut batch: TableBatch<'a, T>, unprocessed: &Unprocessed) -> Result<TableBatch<'a, T>> {
                $(
                    let part = batch.db.batch_write::<$E>().owned(unprocessed.puts_of::<$E>()?);
                    batch = batch.with(part.delete_all(unprocessed.deletes_of::<$E>()));
                )+
                Ok(batch)
            }
        }
    };
}

impl<T: Table, E: Entity<Table = T>> EntityTypes<T> for E {
    const NAMES: &'static [&'static str] = &[E::TYPE_NAME];

    fn add<'a>(batch: TableBatch<'a, T>, unprocessed: &Unprocessed) -> Result<TableBatch<'a, T>> {
        <(E,) as EntityTypes<T>>::add(batch, unprocessed)
    }
}

entity_types!(A);
entity_types!(A, B);
entity_types!(A, B, C);
entity_types!(A, B, C, D);
entity_types!(A, B, C, D, F);
entity_types!(A, B, C, D, F, G);
entity_types!(A, B, C, D, F, G, H);
entity_types!(A, B, C, D, F, G, H, I);
