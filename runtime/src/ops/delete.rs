//! Deleting one entity by key.

use crate::consumption::refused_write;
use crate::consumption::{count_write, item_keys, watched, EntityType};
use crate::db::Db;
use crate::entity::{Entity, Key};
use crate::error::{Error, Result};
use crate::expression::{Condition, Placeholders};
use crate::item::{from_item, key_item, table_of};
use crate::telemetry::Operation;
use crate::write::{DeleteAction, Guards, Layouts, WriteRequest};
use aws_sdk_dynamodb::operation::delete_item::DeleteItemError;
use aws_sdk_dynamodb::types::{ReturnConsumedCapacity, ReturnValue, ReturnValuesOnConditionCheckFailure};
use futures::future::BoxFuture;
use std::future::IntoFuture;

/// A delete of one entity by key; `.await` it to send. Resolves to the deleted entity, if any.
#[must_use = "a delete does nothing until awaited"]
pub struct Delete<'a, E: Entity> {
    db: &'a Db,
    key: Key<E>,
    guards: Guards,
    condition: Option<Condition>,
}

impl<E: Entity> std::fmt::Debug for Delete<'_, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Delete")
            .field("key", &self.key)
            .field("guards", &self.guards)
            .field("condition", &self.condition)
            .finish_non_exhaustive()
    }
}

impl Db {
    /// Deletes the item stored under `key`; deleting a missing item is not an error.
    pub fn delete<E: Entity>(&self, key: Key<E>) -> Delete<'_, E> {
        Delete { db: self, key, guards: Guards::default(), condition: None }
    }
}

impl<'a, E: Entity> Delete<'a, E> {
    /// Deletes only if `condition` holds on the stored item.
    pub fn condition(mut self, condition: Condition) -> Self {
        self.condition = Some(Condition::join(self.condition.take(), condition));
        self
    }

    /// Optimistic locking: deletes only if the stored version is `version`
    /// ([`Error::VersionConflict`] otherwise, [`Error::NotFound`] when there is no item).
    pub fn expect_version(mut self, version: u64) -> Self {
        self.guards.expected_version = Some(version);
        self.guards.must_exist = true;
        self
    }

    /// The request parts: key and condition (versions, the caller's condition), from the `Db`'s
    /// caches (as a transaction adds it).
    pub(crate) fn request(self) -> Result<WriteRequest<DeleteAction>> {
        let layouts = Layouts::cached(self.db);
        self.request_for(&layouts)
    }

    /// The request for `layouts`: refused while a batched backfill holds the entity frozen.
    fn request_for(self, layouts: &Layouts<'_, E>) -> Result<WriteRequest<DeleteAction>> {
        layouts.refuse_if_frozen()?;
        let action = DeleteAction { key: key_item(table_of::<E>(), self.key.primary()) };
        let key = self.key.primary().clone();
        WriteRequest::new::<E>(self.db, key, action, Placeholders::default(), self.guards, self.condition)
    }

    async fn execute(self) -> Result<Option<E>> {
        let db = self.db;
        let layouts = Layouts::resolve(db).await?;
        let request = self.request_for(&layouts)?;
        let explain = request.explain;
        let (table, pk) = (request.table, request.key.pk);
        // A write its condition refuses consumes units too, which no response reports.
        let mut refused = None;
        let sending = db
            .client()
            .delete_item()
            .table_name(&table)
            .set_key(Some(request.action.key))
            .set_condition_expression(request.condition)
            .set_expression_attribute_names(request.names)
            .set_expression_attribute_values(request.values)
            .return_values(ReturnValue::AllOld)
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send();
        let (sent, throttles) = watched(sending).await;
        let result = sent.map_err(|error| match error.as_service_error() {
            Some(DeleteItemError::ConditionalCheckFailedException(failed)) => {
                refused = Some(refused_write(failed.item()));
                explain.failure(failed.item().cloned())
            }
            _ => Error::from_sdk("DeleteItem", error),
        });
        // The old item says which index keys the delete took units on.
        let old = result.as_ref().ok().and_then(|output| output.attributes.as_ref());
        let keys = item_keys(db.meter(), (table_of::<E>(), EntityType::of::<E>()), old);
        let consumed = match &refused {
            Some(refused) => Ok(Some(refused)),
            None => result.as_ref().map(|output| output.consumed_capacity.as_ref()),
        };
        count_write(db.meter(), (&table, &pk), E::TYPE_NAME, &keys, consumed, &throttles);
        result?.attributes.map(from_item).transpose()
    }
}

impl<'a, E: Entity> IntoFuture for Delete<'a, E> {
    type Output = Result<Option<E>>;
    type IntoFuture = BoxFuture<'a, Result<Option<E>>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(Operation::of::<E>(self.db, "delete", "DeleteItem").run(self.execute()))
    }
}
