//! Reading one entity by key.

use crate::consumption::{count_read, watched};
use crate::db::Db;
use crate::entity::{Entity, Key};
use crate::error::{Error, Result};
use crate::item::{from_item, key_item, table_of};
use crate::telemetry::Operation;
use aws_sdk_dynamodb::operation::get_item::GetItemOutput;
use aws_sdk_dynamodb::types::ReturnConsumedCapacity;
use futures::future::BoxFuture;
use std::future::IntoFuture;

/// A read of one entity by key; `.await` it to send. Resolves to `None` when no item exists.
#[must_use = "a get does nothing until awaited"]
pub struct Get<'a, E: Entity> {
    db: &'a Db,
    key: Key<E>,
    consistent: bool,
    unexpired: bool,
}

impl<E: Entity> std::fmt::Debug for Get<'_, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Get")
            .field("key", &self.key)
            .field("consistent", &self.consistent)
            .field("unexpired", &self.unexpired)
            .finish_non_exhaustive()
    }
}

impl Db {
    /// Reads the entity stored under `key`.
    ///
    /// An item of another entity type under the same key gives [`Error::WrongEntityType`].
    pub fn get<E: Entity>(&self, key: Key<E>) -> Get<'_, E> {
        Get { db: self, key, consistent: false, unexpired: false }
    }
}

impl<'a, E: Entity> Get<'a, E> {
    /// Uses a strongly consistent read (twice the read capacity).
    pub fn consistent(mut self) -> Self {
        self.consistent = true;
        self
    }

    /// Reads `None` for an item past its time to live that DynamoDB has not deleted yet (its
    /// `#[ttl]` attribute at or before now), as [`crate::Query::unexpired`] leaves it out.
    pub fn unexpired(mut self) -> Self {
        self.unexpired = true;
        self
    }

    async fn execute(self) -> Result<Option<E>> {
        tracing::Span::current().record("aws.dynamodb.consistent_read", self.consistent);
        let table = self.db.table_of::<E>();
        let sending = self
            .db
            .client()
            .get_item()
            .table_name(table)
            .set_key(Some(key_item(table_of::<E>(), self.key.primary())))
            .consistent_read(self.consistent)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send();
        let (sent, throttles) = watched(sending).await;
        let result = sent.map_err(|error| Error::from_sdk("GetItem", error));
        let units = |output: &GetItemOutput| {
            output.consumed_capacity.as_ref().and_then(|consumed| consumed.capacity_units)
        };
        let place = (table, None, self.key.primary().pk.as_str());
        count_read(
            self.db.meter(),
            place,
            E::TYPE_NAME,
            result.as_ref().map(|output| units(output).unwrap_or(0.0)),
            &throttles,
        );
        let output = result?;
        let now = crate::metadata::now_ms() / 1_000;
        let expired = |item: &crate::error::Item| {
            let ttl = E::TTL.and_then(|attribute| item.get(attribute)?.as_n().ok()?.parse::<f64>().ok());
            self.unexpired && ttl.is_some_and(|ttl| ttl <= now as f64)
        };
        output.item.filter(|item| !expired(item)).map(from_item).transpose()
    }
}

impl<'a, E: Entity> IntoFuture for Get<'a, E> {
    type Output = Result<Option<E>>;
    type IntoFuture = BoxFuture<'a, Result<Option<E>>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(Operation::of::<E>(self.db, "get", "GetItem").run(self.execute()))
    }
}
