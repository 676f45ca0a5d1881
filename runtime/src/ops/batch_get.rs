//! Reading many entities by key: `BatchGetItem` requests of up to 100 distinct keys.

use crate::batch::{
    build_error, key_of, Attempts, Failure, RetryPolicy, Tally, Unprocessed, DEFAULT_CONCURRENCY,
    MAX_GET_KEYS,
};
use crate::collection::Collection;
use crate::db::Db;
use crate::entity::{Entity, Key, PrimaryKey};
use crate::error::{Error, Item, Result};
use crate::item::{from_item, key_item, table_of};
use crate::table::{Table, TableDefinition};
use aws_sdk_dynamodb::types::KeysAndAttributes;
use futures::future::BoxFuture;
use futures::stream::{self, StreamExt};
use std::collections::HashMap;
use std::future::IntoFuture;
use std::ops::Range;
use std::sync::atomic::AtomicBool;

const OPERATION: &str = "BatchGetItem";

/// A read of many entities by key; `.await` it to send. Resolves to one `Option<E>` per input
/// key, in input order (`None` where no item exists).
///
/// Repeated keys are read once and appear in the output at every position they were given.
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
    /// An item of another entity type under one of the keys gives [`Error::WrongEntityType`].
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
        self.batch_read(table_of::<E>(), keys, decode)
    }

    /// Reads items of the entity types of collection `C`, each decoded as its variant, aligned
    /// with the input order; add the keys with [`BatchGet::member`] (any member type) or
    /// [`BatchGet::members`]. An item of a type outside the collection gives
    /// [`Error::UnknownEntityType`].
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
        self.batch_read(<C::Table as Table>::DEFINITION_REF, Vec::new(), decode)
    }

    fn batch_read<T>(
        &self,
        table: &'static TableDefinition,
        keys: Vec<PrimaryKey>,
        decode: Decode<T>,
    ) -> BatchGet<'_, T> {
        BatchGet {
            db: self,
            table,
            keys,
            decode,
            consistent: false,
            concurrency: DEFAULT_CONCURRENCY,
            retry: self.retry_policy(),
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

/// The outcome of one request and its retries.
struct Outcome {
    /// Items read, by distinct-key slot.
    found: Vec<(usize, Item)>,
    /// Slots still unread.
    pending: Vec<usize>,
    /// Keys resolved (read, or known to be absent).
    resolved: usize,
    error: Option<(Error, bool)>,
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

    async fn execute(self) -> Result<Vec<Option<T>>> {
        let mut slots: HashMap<PrimaryKey, usize> = HashMap::with_capacity(self.keys.len());
        let mut distinct: Vec<PrimaryKey> = Vec::with_capacity(self.keys.len());
        let order: Vec<usize> = self
            .keys
            .iter()
            .map(|key| {
                *slots.entry(key.clone()).or_insert_with(|| {
                    distinct.push(key.clone());
                    distinct.len() - 1
                })
            })
            .collect();

        let table = self.db.name_of(self.table.name);
        let stop = AtomicBool::new(false);
        let ranges = (0..distinct.len())
            .step_by(MAX_GET_KEYS)
            .map(|start| start..distinct.len().min(start + MAX_GET_KEYS));
        let mut outcomes = stream::iter(ranges)
            .map(|range| self.read(table, &distinct, &slots, range, &stop))
            .buffer_unordered(self.concurrency);
        let mut found: Vec<Option<Item>> = vec![None; distinct.len()];
        let mut unread: Vec<usize> = Vec::new();
        let mut tally = Tally::default();
        while let Some(outcome) = outcomes.next().await {
            for (slot, item) in outcome.found {
                found[slot] = Some(item);
            }
            unread.extend(outcome.pending);
            tally.add(outcome.resolved, outcome.error);
        }
        drop(outcomes);

        if !unread.is_empty() {
            unread.sort_unstable();
            return Err(Error::BatchIncomplete {
                operation: OPERATION,
                unprocessed: Unprocessed::Keys(
                    unread.into_iter().map(|slot| distinct[slot].clone()).collect(),
                ),
                succeeded: tally.succeeded,
                last_error: tally.last_error(),
            });
        }
        fan_out(order, found, self.decode)
    }

    /// Reads the keys of `range` (slots into `distinct`), retrying what comes back unprocessed.
    async fn read(
        &self,
        table: &str,
        distinct: &[PrimaryKey],
        slots: &HashMap<PrimaryKey, usize>,
        range: Range<usize>,
        stop: &AtomicBool,
    ) -> Outcome {
        let definition = self.table;
        let total = range.len();
        let mut pending: Vec<usize> = range.collect();
        let mut found = Vec::new();
        let mut attempts = Attempts::new(OPERATION, self.retry, stop, total);
        while attempts.begin() {
            let keys = pending.iter().map(|&slot| key_item(definition, &distinct[slot])).collect();
            match self.send(table, keys).await {
                Ok((items, unprocessed)) => {
                    let slot_of =
                        |item: &Item| key_of(definition, item).and_then(|key| slots.get(&key).copied());
                    found.extend(items.into_iter().filter_map(|item| Some((slot_of(&item)?, item))));
                    pending = unprocessed.iter().filter_map(slot_of).collect();
                }
                Err(failure) => {
                    if !attempts.failed(failure) {
                        break;
                    }
                }
            }
            if pending.is_empty() || !attempts.retry(pending.len()).await {
                break;
            }
        }
        Outcome { found, resolved: total - pending.len(), pending, error: attempts.finish() }
    }

    /// One `BatchGetItem` request: the items read and the keys left unprocessed.
    async fn send(&self, table: &str, keys: Vec<Item>) -> Result<(Vec<Item>, Vec<Item>), Failure> {
        let request = KeysAndAttributes::builder()
            .set_keys(Some(keys))
            .consistent_read(self.consistent)
            .build()
            .map_err(|error| Failure::fatal(build_error(OPERATION, error)))?;
        let output = self
            .db
            .client()
            .batch_get_item()
            .request_items(table, request)
            .send()
            .await
            .map_err(|error| Failure::from_sdk(OPERATION, error))?;
        let items = output.responses.and_then(|mut responses| responses.remove(table)).unwrap_or_default();
        let unprocessed = output
            .unprocessed_keys
            .and_then(|mut unprocessed| unprocessed.remove(table))
            .map(|request| request.keys)
            .unwrap_or_default();
        Ok((items, unprocessed))
    }
}

/// One decoded entity per input position; an item read once for a repeated key is decoded at
/// each of its positions.
fn fan_out<T>(order: Vec<usize>, mut found: Vec<Option<Item>>, decode: Decode<T>) -> Result<Vec<Option<T>>> {
    let mut last_use = vec![0; found.len()];
    for (position, &slot) in order.iter().enumerate() {
        last_use[slot] = position;
    }
    order
        .iter()
        .enumerate()
        .map(|(position, &slot)| {
            let item = if last_use[slot] == position { found[slot].take() } else { found[slot].clone() };
            Ok(item.map(decode).transpose()?.flatten())
        })
        .collect()
}

impl<'a, T: Send + 'static> IntoFuture for BatchGet<'a, T> {
    type Output = Result<Vec<Option<T>>>;
    type IntoFuture = BoxFuture<'a, Result<Vec<Option<T>>>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.execute())
    }
}
