//! Updating non-key fields of a stored entity.

use crate::db::Db;
use crate::entity::{Entity, Field, Key};
use crate::error::{Error, Result};
use crate::expression::{Condition, Placeholders, RawExpression};
use crate::field_value::FieldValue;
use crate::index_keys::{FieldChanges, IndexKeyUpdate};
use crate::item::{from_item, key_item, table_of};
use crate::write::{Guards, Layouts, UpdateAction, WriteRequest};
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue, ReturnValuesOnConditionCheckFailure};
use futures::future::BoxFuture;
use serde::Serialize;
use std::future::IntoFuture;

/// Numeric field types that [`Update::add`] can increment.
pub trait Numeric: Serialize {}

macro_rules! numeric {
    ($($ty:ty),*) => {$(impl Numeric for $ty {})*};
}
numeric!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64);

/// An update of one stored entity; `.await` it to send. Resolves to the entity as stored after
/// the update.
///
/// The item must exist ([`Error::NotFound`] otherwise): an update never creates a partial item.
/// Key fields cannot be updated (their handles do not exist); `#[version]` entities get their
/// version incremented, and checked when [`Update::expect_version`] is given. Index key
/// attributes follow the fields they are built from: an update that sets a field used by an index
/// template recomputes that index's key (all of the template's non-key fields must then be set),
/// and a sparse index's key attributes are removed when an optional field they need becomes
/// `None`. Hand-written [`Update::set_raw`] actions are not analysed.
///
/// ```no_run
/// # use dynashard::{Db, Entity, Field};
/// # async fn example<E: Entity>(db: Db, key: dynashard::Key<E>, year: Field<E, u16>, plays: Field<E, u64>) -> dynashard::Result<()> {
/// let updated: E = db.update(key).set(year, 2007u16).add(plays, 1).await?;
/// # Ok(()) }
/// ```
#[must_use = "an update does nothing until awaited"]
pub struct Update<'a, E: Entity> {
    db: &'a Db,
    key: Key<E>,
    sets: Vec<(&'static str, Result<AttributeValue>)>,
    adds: Vec<(&'static str, Result<AttributeValue>)>,
    removes: Vec<&'static str>,
    raw_sets: Vec<RawExpression>,
    guards: Guards,
    condition: Option<Condition>,
}

impl<E: Entity> std::fmt::Debug for Update<'_, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Update")
            .field("key", &self.key)
            .field("sets", &self.sets)
            .field("adds", &self.adds)
            .field("removes", &self.removes)
            .field("raw_sets", &self.raw_sets)
            .field("guards", &self.guards)
            .field("condition", &self.condition)
            .finish_non_exhaustive()
    }
}

impl Db {
    /// Starts an update of the item stored under `key`.
    pub fn update<E: Entity>(&self, key: Key<E>) -> Update<'_, E> {
        Update {
            db: self,
            key,
            sets: Vec::new(),
            adds: Vec::new(),
            removes: Vec::new(),
            raw_sets: Vec::new(),
            guards: Guards { must_exist: true, ..Guards::default() },
            condition: None,
        }
    }
}

fn attribute_value<T: Serialize>(value: &T) -> Result<AttributeValue> {
    Ok(serde_dynamo::to_attribute_value(value)?)
}

impl<'a, E: Entity> Update<'a, E> {
    /// Sets `field` to `value`; a value that serializes to NULL (`None`) removes the attribute,
    /// as a put would leave it out.
    pub fn set<T: Serialize>(mut self, field: Field<E, T>, value: impl FieldValue<T>) -> Self {
        match value.to_attribute() {
            Ok(value) if value.is_null() => self.removes.push(field.name()),
            value => self.sets.push((field.name(), value)),
        }
        self
    }

    /// Adds `amount` to a numeric field (a missing field counts as 0).
    pub fn add<T: Numeric>(mut self, field: Field<E, T>, amount: T) -> Self {
        self.adds.push((field.name(), attribute_value(&amount)));
        self
    }

    /// Removes an optional field.
    pub fn remove<T>(mut self, field: Field<E, Option<T>>) -> Self {
        self.removes.push(field.name());
        self
    }

    /// Escape hatch: a hand-written `SET` action such as `#n = list_append(#n, :v)`.
    pub fn set_raw(mut self, action: RawExpression) -> Self {
        self.raw_sets.push(action);
        self
    }

    /// Updates only if `condition` holds on the stored item.
    pub fn condition(mut self, condition: Condition) -> Self {
        self.condition = Some(Condition::join(self.condition.take(), condition));
        self
    }

    /// Optimistic locking: updates only if the stored version is `version`.
    pub fn expect_version(mut self, version: u64) -> Self {
        self.guards.expected_version = Some(version);
        self
    }

    fn expression(&mut self, placeholders: &mut Placeholders) -> Result<Option<String>> {
        let sets: Vec<(&'static str, AttributeValue)> = self
            .sets
            .drain(..)
            .map(|(name, value)| value.map(|value| (name, value)))
            .collect::<Result<_>>()?;
        let adds: Vec<(&'static str, AttributeValue)> = self
            .adds
            .drain(..)
            .map(|(name, value)| value.map(|value| (name, value)))
            .collect::<Result<_>>()?;
        let mut changes = FieldChanges::default();
        sets.iter().for_each(|(name, value)| changes.set(name, value.clone()));
        self.removes.iter().for_each(|name| changes.remove(name));
        adds.iter().for_each(|(name, _)| changes.add(name));
        let index_updates = E::index_key_updates(&self.key, &changes)?;
        crate::index_key_limits::check_updates(crate::item::table_of::<E>(), &index_updates)?;

        let mut set_actions = Vec::new();
        let mut remove_actions: Vec<String> =
            self.removes.iter().map(|name| placeholders.name(name)).collect();
        for (name, value) in sets {
            set_actions.push(format!("{} = {}", placeholders.name(name), placeholders.value(value)));
        }
        for update in index_updates {
            match update {
                IndexKeyUpdate::Set(name, value) => {
                    set_actions.push(format!("{} = {}", placeholders.name(name), placeholders.value(value)))
                }
                IndexKeyUpdate::Remove(name) => remove_actions.push(placeholders.name(name)),
            }
        }
        for raw in &self.raw_sets {
            placeholders.extend_raw(raw);
            set_actions.push(raw.text().to_owned());
        }
        let mut add_actions = Vec::new();
        for (name, value) in adds {
            add_actions.push(format!("{} {}", placeholders.name(name), placeholders.value(value)));
        }
        if let Some(version) = E::VERSION_ATTRIBUTE {
            let one = placeholders.value(AttributeValue::N("1".to_owned()));
            add_actions.push(format!("{} {one}", placeholders.name(version)));
        }
        let clauses: Vec<String> = [("SET", set_actions), ("ADD", add_actions), ("REMOVE", remove_actions)]
            .into_iter()
            .filter(|(_, actions)| !actions.is_empty())
            .map(|(keyword, actions)| format!("{keyword} {}", actions.join(", ")))
            .collect();
        Ok((!clauses.is_empty()).then(|| clauses.join(" ")))
    }

    /// The request parts: key, update expression (with index-key maintenance and the version
    /// increment) and condition (the must-exist guard, versions, the caller's condition), from
    /// the `Db`'s caches (as a transaction adds it).
    pub(crate) fn request(self) -> Result<WriteRequest<UpdateAction>> {
        let layouts = Layouts::cached(self.db);
        self.request_for(&layouts)
    }

    /// The request for `layouts`: refused while a batched backfill holds the entity frozen.
    fn request_for(mut self, layouts: &Layouts<'_, E>) -> Result<WriteRequest<UpdateAction>> {
        layouts.refuse_if_frozen()?;
        let mut placeholders = Placeholders::default();
        let expression = self.expression(&mut placeholders)?;
        let action = UpdateAction { key: key_item(table_of::<E>(), self.key.primary()), expression };
        let key = self.key.primary().clone();
        WriteRequest::new::<E>(self.db, key, action, placeholders, self.guards, self.condition.take())
    }

    async fn execute(self) -> Result<E> {
        let db = self.db;
        let layouts = Layouts::resolve(db).await?;
        let request = self.request_for(&layouts)?;
        let explain = request.explain;
        let result = db
            .client()
            .update_item()
            .table_name(request.table)
            .set_key(Some(request.action.key))
            .set_update_expression(request.action.expression)
            .set_condition_expression(request.condition)
            .set_expression_attribute_names(request.names)
            .set_expression_attribute_values(request.values)
            .return_values(ReturnValue::AllNew)
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .send()
            .await;
        match result {
            Ok(output) => {
                let item = output.attributes.unwrap_or_default();
                layouts.follow_update(&item).await?;
                from_item(item)
            }
            Err(error) => match error.as_service_error() {
                Some(UpdateItemError::ConditionalCheckFailedException(failed)) => {
                    Err(explain.failure(failed.item().cloned()))
                }
                _ => Err(Error::from_sdk("UpdateItem", error)),
            },
        }
    }
}

impl<'a, E: Entity> IntoFuture for Update<'a, E> {
    type Output = Result<E>;
    type IntoFuture = BoxFuture<'a, Result<E>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.execute())
    }
}
