//! Reads of up to 100 items, of any entity types and tables, served from one snapshot:
//! `TransactGetItems`.

use super::limits::MAX_TRANSACTION_ACTIONS;
use crate::collection::Collection;
use crate::consumption::{count_actions, Action, EntityType, Kind};
use crate::db::Db;
use crate::entity::{Entity, Key, PrimaryKey};
use crate::error::{CancellationReason, Error, Item, ReasonCode, Result};
use crate::item::{from_item, key_item, table_of};
use crate::table::TableDefinition;
use crate::telemetry::Operation;
use aws_sdk_dynamodb::operation::transact_get_items::TransactGetItemsError;
use aws_sdk_dynamodb::types::{self, ReturnConsumedCapacity, TransactGetItem};
use futures::future::BoxFuture;
use std::collections::HashSet;
use std::future::IntoFuture;
use std::marker::PhantomData;

/// Reads that DynamoDB serves from one snapshot: no write commits between them. `.await` it to
/// send one `TransactGetItems` request; it resolves to `T`, a tuple with one `Option` per
/// [`get`](TransactGet::get) in order (from [`Db::transact_get`]), or one value of a collection
/// per [`member`](TransactGet::member) (from [`Db::transact_get_members`]). `None` means no item
/// under that key.
///
/// Checked before anything is sent: more than [`MAX_TRANSACTION_ACTIONS`] reads is
/// [`Error::TransactionTooLarge`], two reads of one item [`Error::DuplicateTransactionKey`], an
/// invalid key its own error. A read that DynamoDB cancels (a write transaction in progress on
/// one of the items, throttling) fails with [`Error::TransactionCanceled`], which says, per read,
/// why. An item of another entity type under a key fails with [`Error::WrongEntityType`]. Reads
/// without keys send nothing.
///
/// ```no_run
/// # use dynashard::{Db, Entity, Key};
/// # async fn example<A: Entity, S: Entity>(db: Db, artist: Key<A>, song: Key<S>) -> dynashard::Result<()> {
/// let (artist, song): (Option<A>, Option<S>) = db.transact_get().get(artist).get(song).await?;
/// # Ok(()) }
/// ```
#[must_use = "a transactional read does nothing until awaited"]
pub struct TransactGet<'a, T> {
    db: &'a Db,
    reads: Vec<Read>,
    error: Option<Error>,
    marker: PhantomData<fn() -> T>,
}

/// One read: where, and the request.
struct Read {
    table: String,
    key: PrimaryKey,
    get: TransactGetItem,
    /// The table's declaration and the entity type read, for the `Db`'s totals.
    place: (&'static TableDefinition, EntityType),
}

impl<T> std::fmt::Debug for TransactGet<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys: Vec<(&str, &PrimaryKey)> =
            self.reads.iter().map(|read| (read.table.as_str(), &read.key)).collect();
        f.debug_struct("TransactGet")
            .field("reads", &keys)
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

/// What a [`TransactGet`] resolves to: a tuple of `Option<E>` (one per read, up to 12), or a
/// `Vec<Option<C>>` of a collection `C`.
pub trait TransactReads: Sized {
    #[doc(hidden)]
    fn decode(items: Vec<Option<Item>>) -> Result<Self>;
}

/// The tuple of reads with one more, of entity type `E`.
pub trait Append<E> {
    /// The longer tuple.
    type Output;
}

impl Db {
    /// Starts reads of items of any entity types, served from one snapshot; add each with
    /// [`TransactGet::get`].
    pub fn transact_get(&self) -> TransactGet<'_, ()> {
        TransactGet { db: self, reads: Vec::new(), error: None, marker: PhantomData }
    }

    /// Starts reads of items of the collection `C`'s entity types, served from one snapshot,
    /// each decoded as its variant; add each with [`TransactGet::member`].
    pub fn transact_get_members<C: Collection>(&self) -> TransactGet<'_, Vec<Option<C>>> {
        TransactGet { db: self, reads: Vec::new(), error: None, marker: PhantomData }
    }
}

impl<'a, T> TransactGet<'a, T> {
    fn push<E: Entity, U>(mut self, key: Key<E>) -> TransactGet<'a, U> {
        let table = self.db.table_of::<E>().to_owned();
        let get = types::Get::builder()
            .table_name(table.clone())
            .set_key(Some(key_item(table_of::<E>(), key.primary())))
            .build();
        match get {
            Ok(get) => {
                let get = TransactGetItem::builder().get(get).build();
                let place = (table_of::<E>(), EntityType::of::<E>());
                self.reads.push(Read { table, key: key.primary().clone(), get, place });
            }
            Err(error) => {
                self.error.get_or_insert(Error::Service {
                    operation: "TransactGetItems",
                    code: None,
                    message: error.to_string(),
                    source: Box::new(error),
                });
            }
        }
        TransactGet { db: self.db, reads: self.reads, error: self.error, marker: PhantomData }
    }

    /// Checks the reads, sends them, and returns the items in the order they were added.
    async fn fetch(self) -> Result<Vec<Option<Item>>> {
        if let Some(error) = self.error {
            return Err(error);
        }
        if self.reads.len() > MAX_TRANSACTION_ACTIONS {
            return Err(Error::TransactionTooLarge {
                actions: self.reads.len(),
                max: MAX_TRANSACTION_ACTIONS,
            });
        }
        let mut seen = HashSet::with_capacity(self.reads.len());
        for read in &self.reads {
            if !seen.insert((read.table.as_str(), &read.key)) {
                return Err(Error::DuplicateTransactionKey {
                    table: read.table.clone(),
                    key: read.key.clone(),
                });
            }
        }
        if self.reads.is_empty() {
            return Ok(Vec::new());
        }
        let mut gets = Vec::with_capacity(self.reads.len());
        let mut targets = Vec::with_capacity(self.reads.len());
        let mut places = Vec::with_capacity(self.reads.len());
        for read in self.reads {
            gets.push(read.get);
            targets.push((read.table, read.key));
            places.push(read.place);
        }
        let result = self
            .db
            .client()
            .transact_get_items()
            .set_transact_items(Some(gets))
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await;
        match result {
            Ok(output) => {
                let responses = output.responses.unwrap_or_default();
                let counted: Vec<Action> = targets
                    .iter()
                    .zip(&places)
                    .enumerate()
                    .map(|(read, ((table, key), (definition, entity)))| {
                        let place = (table.as_str(), *definition, *entity);
                        match responses.get(read).and_then(|response| response.item.as_ref()) {
                            Some(item) if !item.is_empty() => Action::new(place, item, true),
                            _ => Action::new(place, &key_item(definition, key), false),
                        }
                    })
                    .collect();
                let consumed = output.consumed_capacity.as_deref().unwrap_or_default();
                count_actions(self.db.meter(), Kind::Read, &counted, consumed);
                let items = (0..targets.len())
                    .map(|read| responses.get(read).and_then(|response| response.item.clone()))
                    .map(|item| item.filter(|item| !item.is_empty()))
                    .collect();
                Ok(items)
            }
            Err(error) => match error.as_service_error() {
                Some(TransactGetItemsError::TransactionCanceledException(canceled)) => {
                    Err(canceled_error(targets, canceled.cancellation_reasons()))
                }
                _ => Err(Error::from_sdk("TransactGetItems", error)),
            },
        }
    }
}

impl<'a, T> TransactGet<'a, T> {
    /// Adds a read of the entity stored under `key`.
    pub fn get<E: Entity>(self, key: Key<E>) -> TransactGet<'a, T::Output>
    where
        T: Append<E>,
    {
        self.push(key)
    }
}

impl<'a, C: Collection> TransactGet<'a, Vec<Option<C>>> {
    /// Adds a read of the member stored under `key`, decoded as its variant of `C`.
    pub fn member<M: Entity<Table = C::Table>>(self, key: Key<M>) -> Self {
        self.push(key)
    }
}

impl<'a, T: TransactReads + Send + 'a> IntoFuture for TransactGet<'a, T> {
    type Output = Result<T>;
    type IntoFuture = BoxFuture<'a, Result<T>>;

    fn into_future(self) -> Self::IntoFuture {
        let first = self.reads.first();
        let traced = Operation {
            name: "transact_get",
            sends: "TransactGetItems",
            table: first.map(|read| read.table.as_str()).unwrap_or_default(),
            entity: first.map(|read| read.place.1.name).unwrap_or_default(),
            definition: first.map(|read| read.place.0),
        }
        .traced();
        Box::pin(traced.run(async move { T::decode(self.fetch().await?) }))
    }
}

/// Pairs DynamoDB's reasons (one per read, in order) with the reads.
fn canceled_error(targets: Vec<(String, PrimaryKey)>, reasons: &[types::CancellationReason]) -> Error {
    let reasons = targets
        .into_iter()
        .enumerate()
        .map(|(action, (table, key))| {
            let reason = reasons.get(action);
            let code = ReasonCode::parse(reason.and_then(types::CancellationReason::code));
            let item =
                reason.and_then(types::CancellationReason::item).filter(|item| !item.is_empty()).cloned();
            let message = reason.and_then(types::CancellationReason::message).map(str::to_owned);
            CancellationReason { action, table, key, code, message, item: item.map(Box::new), error: None }
        })
        .collect();
    Error::TransactionCanceled { reasons }
}

impl<C: Collection> TransactReads for Vec<Option<C>> {
    fn decode(items: Vec<Option<Item>>) -> Result<Self> {
        items
            .into_iter()
            .map(|item| Ok(item.map(|item| C::from_item(item, false)).transpose()?.flatten()))
            .collect()
    }
}

/// One slot of a tuple: the entity under its key, if any.
fn one<E: Entity>(item: Option<Option<Item>>) -> Result<Option<E>> {
    item.flatten().map(from_item::<E>).transpose()
}

macro_rules! tuples {
    ($($name:ident)*) => {
        impl<$($name: Entity,)*> TransactReads for ($(Option<$name>,)*) {
            #[allow(unused_mut, unused_variables)]
            fn decode(items: Vec<Option<Item>>) -> Result<Self> {
                let mut items = items.into_iter();
                Ok(($(one::<$name>(items.next())?,)*))
            }
        }
    };
}

macro_rules! appends {
    ($($name:ident)*) => {
        impl<$($name: Entity,)* Next: Entity> Append<Next> for ($(Option<$name>,)*) {
            type Output = ($(Option<$name>,)* Option<Next>,);
        }
    };
}

tuples!();
tuples!(A);
tuples!(A B);
tuples!(A B C);
tuples!(A B C D);
tuples!(A B C D E);
tuples!(A B C D E F);
tuples!(A B C D E F G);
tuples!(A B C D E F G H);
tuples!(A B C D E F G H I);
tuples!(A B C D E F G H I J);
tuples!(A B C D E F G H I J K);
tuples!(A B C D E F G H I J K L);
appends!();
appends!(A);
appends!(A B);
appends!(A B C);
appends!(A B C D);
appends!(A B C D E);
appends!(A B C D E F);
appends!(A B C D E F G);
appends!(A B C D E F G H);
appends!(A B C D E F G H I);
appends!(A B C D E F G H I J);
appends!(A B C D E F G H I J K);

/// Held by no type: a thirteenth typed read asks for it, so that the compiler says the limit and
/// the way out where that read is added.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a `transact_get` resolves to a tuple of at most 12 typed reads",
    label = "a 13th `.get(...)`",
    note = "DynamoDB serves up to 100 reads from one snapshot: read items of one collection's types with \
            `db.transact_get_members::<C>()` (a `Vec<Option<C>>` of up to 100), or split the reads in two \
            `transact_get`s where they need not share a snapshot"
)]
pub trait AtMostTwelveTypedReads {}

impl<A, B, C, D, E, F, G, H, I, J, K, L, Next: Entity + AtMostTwelveTypedReads> Append<Next>
    for (
        Option<A>,
        Option<B>,
        Option<C>,
        Option<D>,
        Option<E>,
        Option<F>,
        Option<G>,
        Option<H>,
        Option<I>,
        Option<J>,
        Option<K>,
        Option<L>,
    )
{
    type Output = ();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancellation_names_each_read_and_its_reason() {
        let targets = vec![
            ("Music".to_owned(), PrimaryKey { pk: "a".into(), sk: Some("artist".into()) }),
            ("Counters".to_owned(), PrimaryKey { pk: "counter#1".into(), sk: None }),
        ];
        let reasons = [
            types::CancellationReason::builder().code("None").build(),
            types::CancellationReason::builder().code("TransactionConflict").message("in progress").build(),
        ];
        let Error::TransactionCanceled { reasons } = canceled_error(targets, &reasons) else {
            panic!("cancelled")
        };
        assert_eq!(reasons.len(), 2);
        assert_eq!((reasons[0].action, reasons[0].code.clone()), (0, ReasonCode::None));
        assert_eq!(reasons[1].table, "Counters");
        assert_eq!(reasons[1].code, ReasonCode::TransactionConflict);
        assert_eq!(reasons[1].message.as_deref(), Some("in progress"));
        assert!(reasons.iter().all(|reason| reason.error.is_none() && reason.item.is_none()));
    }
}
