//! Updating non-key fields of a stored entity.

mod actions;
mod arithmetic;
mod elements;

use crate::db::Db;
use crate::entity::{Entity, Field, Key};
use crate::error::{Item, Result};
use crate::expression::{Condition, FieldPath, Placeholders, RawExpression};
use crate::field_value::FieldValue;
use crate::index_keys::IndexKeyUpdate;
use crate::item::{from_item, key_item, table_of};
use crate::key_fields::DecodeKeyFields;
use crate::sets::SetField;
use crate::telemetry::Operation;
use crate::write::{Buckets, Guards, Layouts, UpdateAction, WriteRequest};
use actions::Actions;
pub use arithmetic::Numeric;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};
use futures::future::BoxFuture;
use serde::Serialize;
use std::future::IntoFuture;

/// An update of one stored entity; `.await` it to send. Resolves to the entity as stored after
/// the update.
///
/// The item must exist ([`Error::NotFound`](crate::Error::NotFound) otherwise): an update never creates a partial item.
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
    actions: Actions,
    /// For an upsert: the attributes of the key fields, read back from the key, which an item it
    /// creates needs.
    creates: Option<Result<Item>>,
    guards: Guards,
    condition: Option<Condition>,
}

impl<E: Entity> std::fmt::Debug for Update<'_, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Update")
            .field("key", &self.key)
            .field("actions", &self.actions)
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
            actions: Actions::default(),
            creates: None,
            guards: Guards { must_exist: true, ..Guards::default() },
            condition: None,
        }
    }

    /// Starts an upsert of the item under `key`: an update that creates the item when it is
    /// missing, from its key fields (read back from the key) and the values the upsert sets.
    ///
    /// Every field a new item needs must be set ([`Entity::REQUIRED`]: the fields that are not key
    /// fields, `Option`s, sets or `#[serde(default)]`), or the upsert fails with
    /// [`Error::UpsertIncomplete`](crate::Error::UpsertIncomplete) before anything is sent. Index keys and shard placement follow
    /// the key fields and the values set, as for a put; an index key field can only be set whole.
    /// [`Update::set_if_not_exists`] keeps a value an existing item has (a creation time, say).
    ///
    /// ```no_run
    /// # use dynashard::{Db, Entity, Table};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Table)] #[table(name = "Music", pk = "pk", sk = "sk")] struct Music;
    /// #[derive(Entity, Serialize, Deserialize)]
    /// #[entity(table = Music, pk = "{artist}", sk = "artist")]
    /// struct Artist { artist: String, country: String, first_seen: u64, #[serde(default)] plays: u64 }
    ///
    /// # async fn example(db: Db) -> dynashard::Result<()> {
    /// let f = Artist::fields();
    /// let artist = db
    ///     .upsert(Artist::key("Solar Fields")?)
    ///     .set(f.country, "SE")
    ///     .set_if_not_exists(f.first_seen, 1_700_000_000)
    ///     .add(f.plays, 1)
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn upsert<E: Entity>(&self, key: Key<E>) -> Update<'_, E>
    where
        E::KeyFields: DecodeKeyFields,
    {
        let creates = Some(E::KeyFields::decode(E::KEY_FIELDS, key.primary()));
        Update { creates, guards: Guards::default(), ..self.update(key) }
    }
}

fn attribute_value<T: Serialize>(value: &T) -> Result<AttributeValue> {
    Ok(serde_dynamo::to_attribute_value(value)?)
}

fn elements<T, V: FieldValue<T>>(values: impl IntoIterator<Item = V>) -> Result<Vec<AttributeValue>> {
    values.into_iter().map(|value| value.to_attribute()).collect()
}

impl<'a, E: Entity> Update<'a, E> {
    /// Sets `field` (or a value nested in one) to `value`. A value that serializes to NULL
    /// (`None`) removes the attribute, as a put would leave it out; a set field is stored as a
    /// DynamoDB set, and removed when empty.
    pub fn set<T: Serialize>(mut self, field: impl FieldPath<E, T>, value: impl FieldValue<T>) -> Self {
        self.actions.set(field.update_target().path, value.to_attribute(), E::SETS);
        self
    }

    /// Sets `field` to `value` unless it holds a value already (`if_not_exists`).
    pub fn set_if_not_exists<T: Serialize>(
        mut self,
        field: impl FieldPath<E, T>,
        value: impl FieldValue<T>,
    ) -> Self {
        self.actions.set_if_not_exists(field.update_target().path, value.to_attribute());
        self
    }

    /// Adds `amount` to a numeric field (a missing field counts as 0). The update carries a
    /// condition that keeps the result within the field's type: a result past it (`u32::MAX`,
    /// `i64::MIN`, 38 digits for the 128-bit types, `f32::MAX`) fails with [`Error::Overflow`](crate::Error::Overflow),
    /// and nothing is stored. An amount no stored number leaves room for fails before sending.
    pub fn add<T: Numeric>(mut self, field: impl FieldPath<E, T>, amount: T) -> Self {
        let change = (amount.headroom(false), std::any::type_name::<T>());
        self.actions.add(field.update_target().path, attribute_value(&amount), change);
        self
    }

    /// Subtracts `amount` from a numeric field (a missing field counts as 0), kept within the
    /// field's type as [`add`](Self::add) is: below zero on an unsigned field, or past the
    /// type's range, it fails with [`Error::Overflow`](crate::Error::Overflow) and nothing is stored.
    pub fn subtract<T: Numeric>(mut self, field: impl FieldPath<E, T>, amount: T) -> Self {
        let change = (amount.headroom(true), std::any::type_name::<T>());
        self.actions.subtract(field.update_target().path, attribute_value(&amount), change);
        self
    }

    /// Appends `values` to a list field (a missing list counts as empty).
    pub fn append<T: Serialize, V: FieldValue<T>>(
        mut self,
        field: impl FieldPath<E, Vec<T>>,
        values: impl IntoIterator<Item = V>,
    ) -> Self {
        self.actions.extend_list(field.update_target().path, elements(values), true);
        self
    }

    /// Puts `values` before the elements of a list field (a missing list counts as empty).
    pub fn prepend<T: Serialize, V: FieldValue<T>>(
        mut self,
        field: impl FieldPath<E, Vec<T>>,
        values: impl IntoIterator<Item = V>,
    ) -> Self {
        self.actions.extend_list(field.update_target().path, elements(values), false);
        self
    }

    /// Removes the element at `index` (from 0) of a list field; the elements after it move up.
    /// An index past the end fails with [`Error::ListIndexOutOfRange`](crate::Error::ListIndexOutOfRange) (the update carries the
    /// condition that the element exists), and nothing is stored; so does a value set inside an
    /// element past the end.
    pub fn remove_at<T>(mut self, field: impl FieldPath<E, Vec<T>>, index: usize) -> Self {
        self.actions.remove_at(field.update_target().path, index);
        self
    }

    /// Adds `elements` to a set field (`ADD`; a missing set counts as empty). No elements: no
    /// action. DynamoDB changes sets in place only at the top level: a set inside a nested
    /// struct is stored as a list, and is [`set`](Update::set) whole.
    pub fn add_to<S: SetField, V: FieldValue<S::Element>>(
        mut self,
        field: Field<E, S>,
        elements: impl IntoIterator<Item = V>,
    ) -> Self {
        self.actions.change_set(field.update_target().path, self::elements(elements), true);
        self
    }

    /// Deletes `elements` from a set field (`DELETE`); deleting the last one removes the
    /// attribute, which reads back as an empty set. No elements: no action.
    pub fn delete_from<S: SetField, V: FieldValue<S::Element>>(
        mut self,
        field: Field<E, S>,
        elements: impl IntoIterator<Item = V>,
    ) -> Self {
        self.actions.change_set(field.update_target().path, self::elements(elements), false);
        self
    }

    /// Removes an optional field (or an optional value nested in one).
    pub fn remove<T>(mut self, field: impl FieldPath<E, Option<T>>) -> Self {
        self.actions.remove(field.update_target().path);
        self
    }

    /// Escape hatch: a hand-written `SET` action such as `#n = list_append(#n, :v)`.
    pub fn set_raw(mut self, action: RawExpression) -> Self {
        self.actions.set_raw(action);
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
        let creates = self.creates.is_some();
        if let Some(key_fields) = self.creates.take() {
            self.actions.create::<E>(key_fields?)?;
        }
        self.actions.stamp::<E>(creates)?;
        self.actions.check_ttl(E::TTL)?;
        let index_updates = E::index_key_updates(&self.key, self.actions.changes())?;
        let sets = index_updates.iter().filter_map(|update| match update {
            IndexKeyUpdate::Set(name, value) => Some((*name, value)),
            IndexKeyUpdate::Remove(_) => None,
        });
        crate::index_key_limits::check_updates(table_of::<E>(), sets)?;
        let buckets = Buckets::of_updates::<E>(&index_updates);
        let condition = self.actions.guard(self.condition.take());
        // A list element missing, or a stored number without room for the change: say which.
        let (arithmetic, elements) = (self.actions.arithmetic().to_vec(), self.actions.elements());
        let mut placeholders = Placeholders::default();
        let expression = self.actions.render(index_updates, E::VERSION_ATTRIBUTE, &mut placeholders)?;
        let action = UpdateAction { key: key_item(table_of::<E>(), self.key.primary()), expression };
        let key = self.key.primary().clone();
        let refusal = move |stored: Option<&Item>| {
            let missing = elements.iter().find_map(|element| element.refusal(stored));
            missing.or_else(|| arithmetic.iter().find_map(|change| change.refusal(stored)))
        };
        let request = WriteRequest::new::<E>(self.db, key, action, placeholders, self.guards, condition)?;
        Ok(request.refused_by(std::sync::Arc::new(refusal)).recording(buckets))
    }

    async fn execute(self) -> Result<E> {
        let db = self.db;
        let layouts = Layouts::resolve(db).await?;
        let request = self.request_for(&layouts)?;
        db.record_buckets(&request.buckets).await?;
        let item = request.send(db, ReturnValue::AllNew).await?;
        layouts.follow_update(&item).await?;
        from_item(item)
    }
}

impl<'a, E: Entity> IntoFuture for Update<'a, E> {
    type Output = Result<E>;
    type IntoFuture = BoxFuture<'a, Result<E>>;

    fn into_future(self) -> Self::IntoFuture {
        let name = if self.creates.is_some() { "upsert" } else { "update" };
        Box::pin(Operation::of::<E>(self.db, name, "UpdateItem").run(self.execute()))
    }
}
