//! The parts of one conditional write (table, item or key, update expression, condition,
//! placeholders, guards), built once and sent either on their own (`PutItem`, `UpdateItem`,
//! `DeleteItem`) or as one action of a transaction.

use super::guards::Guards;
use crate::consumption::refused_write;
use crate::consumption::{count_write, item_keys, watched, EntityType};
use crate::db::Db;
use crate::entity::{Entity, Key, PrimaryKey};
use crate::error::{Error, Item, Result};
use crate::expression::{Condition, Placeholders};
use crate::item::{key_item, table_of};
use crate::table::TableDefinition;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{ReturnConsumedCapacity, ReturnValue, ReturnValuesOnConditionCheckFailure};
use std::collections::HashMap;

/// A put: the complete item to store.
pub(crate) struct PutAction {
    pub item: Item,
}

/// An update: the key of the item and its update expression (`None`: nothing to change, only
/// the condition to check).
pub(crate) struct UpdateAction {
    pub key: Item,
    pub expression: Option<String>,
}

/// A delete: the key of the item.
pub(crate) struct DeleteAction {
    pub key: Item,
}

/// A condition check (transactions only): the key of the item.
pub(crate) struct CheckAction {
    pub key: Item,
}

/// One conditional write, ready to send.
pub(crate) struct WriteRequest<A> {
    /// The real table name.
    pub table: String,
    /// The table's definition.
    pub definition: &'static TableDefinition,
    /// The entity type written.
    pub entity: EntityType,
    /// The item's primary key.
    pub key: PrimaryKey,
    /// What the write does.
    pub action: A,
    /// The rendered condition: guards and the caller's condition.
    pub condition: Option<String>,
    /// Attribute-name placeholders of the update expression and the condition.
    pub names: Option<HashMap<String, String>>,
    /// Value placeholders of the update expression and the condition.
    pub values: Option<Item>,
    /// Explains a failed condition.
    pub explain: Explain,
    /// The time-bucket partitions to record in their directories before it is sent.
    pub buckets: super::Buckets,
}

impl<A> WriteRequest<A> {
    /// Joins the guards with the caller's condition and renders it with the placeholders the
    /// action already registered.
    pub fn new<E: Entity>(
        db: &Db,
        key: PrimaryKey,
        action: A,
        mut placeholders: Placeholders,
        guards: Guards,
        condition: Option<Condition>,
    ) -> Result<Self> {
        let condition = guards
            .condition::<E>(condition)
            .map(|condition| condition.render(&mut placeholders))
            .transpose()?;
        Ok(Self {
            table: db.table_of::<E>().to_owned(),
            definition: table_of::<E>(),
            entity: EntityType::of::<E>(),
            key,
            action,
            condition,
            names: placeholders.take_names(),
            values: placeholders.take_values(),
            explain: Explain { guards, failure: Guards::failure::<E>, refusal: None },
            buckets: super::Buckets::default(),
        })
    }

    /// The request, recording `buckets` in their directories before it is sent.
    pub fn recording(self, buckets: super::Buckets) -> Self {
        Self { buckets, ..self }
    }
}

/// The guards of a write and the entity type they apply to: turns a failed condition into the
/// precise error, on its own or in a transaction.
#[derive(Clone)]
pub(crate) struct Explain {
    guards: Guards,
    failure: fn(&Guards, Option<Item>) -> Error,
    /// What else the write's condition guards (an update's list elements and numbers' room),
    /// told from the stored item when the guards explain nothing.
    refusal: Option<Refusal>,
}

/// An update's own reason for a failed condition, given the stored item.
pub(crate) type Refusal = std::sync::Arc<dyn Fn(Option<&Item>) -> Option<Error> + Send + Sync>;

impl Explain {
    /// The error for the failed condition, given the stored item DynamoDB returned.
    pub fn failure(&self, current: Option<Item>) -> Error {
        match ((self.failure)(&self.guards, current), &self.refusal) {
            (Error::ConditionFailed { current }, Some(refusal)) => {
                refusal(current.as_deref()).unwrap_or(Error::ConditionFailed { current })
            }
            (error, _) => error,
        }
    }
}

impl<A> WriteRequest<A> {
    /// The same request doing `action` instead.
    pub fn with_action<B>(self, action: B) -> WriteRequest<B> {
        let WriteRequest {
            table, definition, entity, key, condition, names, values, explain, buckets, ..
        } = self;
        WriteRequest { table, definition, entity, key, action, condition, names, values, explain, buckets }
    }

    /// Explains a failed condition the guards do not explain with `refusal` too.
    pub fn refused_by(mut self, refusal: Refusal) -> Self {
        self.explain.refusal = Some(refusal);
        self
    }
}

impl WriteRequest<UpdateAction> {
    /// Sends it as an `UpdateItem`; returns the attributes `return_values` asks for, or the
    /// precise error for a failed condition.
    pub async fn send(self, db: &Db, return_values: ReturnValue) -> Result<Item> {
        let explain = self.explain;
        // A write its condition refuses consumes units too, which no response reports.
        let mut refused = None;
        let sending = db
            .client()
            .update_item()
            .table_name(&self.table)
            .set_key(Some(self.action.key))
            .set_update_expression(self.action.expression)
            .set_condition_expression(self.condition)
            .set_expression_attribute_names(self.names)
            .set_expression_attribute_values(self.values)
            .return_values(return_values)
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send();
        let (sent, throttles) = watched(sending).await;
        let result = sent.map_err(|error| match error.as_service_error() {
            Some(UpdateItemError::ConditionalCheckFailedException(failed)) => {
                refused = Some(refused_write(failed.item()));
                explain.failure(failed.item().cloned())
            }
            _ => Error::from_sdk("UpdateItem", error),
        });
        // The attributes returned name the index keys the update took units on, when they hold
        // them.
        let returned = result.as_ref().ok().and_then(|output| output.attributes.as_ref());
        let keys = item_keys(db.meter(), (self.definition, self.entity), returned);
        let consumed = match &refused {
            Some(refused) => Ok(Some(refused)),
            None => result.as_ref().map(|output| output.consumed_capacity.as_ref()),
        };
        count_write(db.meter(), (&self.table, &self.key.pk), self.entity.name, &keys, consumed, &throttles);
        Ok(result?.attributes.unwrap_or_default())
    }
}

/// A condition check of the item stored under `key`.
pub(crate) fn condition_check<E: Entity>(
    db: &Db,
    key: &Key<E>,
    condition: Condition,
) -> Result<WriteRequest<CheckAction>> {
    let action = CheckAction { key: key_item(table_of::<E>(), key.primary()) };
    let placeholders = Placeholders::default();
    WriteRequest::new::<E>(
        db,
        key.primary().clone(),
        action,
        placeholders,
        Guards::default(),
        Some(condition),
    )
}
