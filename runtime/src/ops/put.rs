//! Putting entities: plain, create-only, conditional and version-checked.

use crate::consumption::refused_write;
use crate::consumption::{count_write, item_keys, watched, EntityType};
use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Item, Result};
use crate::expression::{Condition, Placeholders};
use crate::item::table_of;
use crate::retry::{retrying, Attempt};
use crate::telemetry::Operation;
use crate::write::{
    keeping_created, next_version, Buckets, Built, Draft, Guards, Layouts, PutAction, UpdateAction,
    WriteRequest,
};
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::types::{
    AttributeValue, ReturnConsumedCapacity, ReturnValue, ReturnValuesOnConditionCheckFailure,
};
use futures::future::BoxFuture;
use std::future::IntoFuture;

/// A put of one entity; `.await` it to send.
///
/// For `#[version]` entities the stored version must equal the entity's version (or the item must
/// not exist when the version is `0`), and the stored version becomes one higher. Use
/// [`Db::save`] to also update the version in the value.
///
/// A `#[updated_at]` field is written as the current time. For an entity with a `#[created_at]`
/// field the put is sent as an `UpdateItem` that stores the item as a put would, but keeps the
/// creation time an existing item has (the current time when it creates the item): every
/// attribute is set, and the entity's attributes and the table's index keys the new item lacks
/// are removed.
#[must_use = "a put does nothing until awaited"]
pub struct Put<'a, E: Entity> {
    db: &'a Db,
    entity: &'a E,
    guards: Guards,
    condition: Option<Condition>,
}

impl<E: Entity> std::fmt::Debug for Put<'_, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Put")
            .field("entity", &std::any::type_name::<E>())
            .field("guards", &self.guards)
            .field("condition", &self.condition)
            .finish_non_exhaustive()
    }
}

impl Db {
    /// Writes `entity`, replacing any item with the same key.
    ///
    /// ```no_run
    /// # async fn example(db: dynashard::Db, album: impl dynashard::Entity) -> dynashard::Result<()> {
    /// db.put(&album).await?;                 // insert or replace
    /// db.put(&album).create_only().await?;   // fails with Error::AlreadyExists if present
    /// # Ok(()) }
    /// ```
    pub fn put<'a, E: Entity>(&'a self, entity: &'a E) -> Put<'a, E> {
        let expected_version = E::VERSION_ATTRIBUTE.map(|_| entity.version());
        Put { db: self, entity, guards: Guards { expected_version, ..Guards::default() }, condition: None }
    }

    /// Puts `entity` and, on success, advances its `#[version]` field to the stored version and
    /// sets its `#[created_at]` and `#[updated_at]` fields to the stored times. (A stored time
    /// that does not read back as the field's type, written by other code, leaves the field as it
    /// is, with a warning logged: the write itself succeeded.)
    pub async fn save<E: Entity>(&self, entity: &mut E) -> Result<()> {
        let stored = self.put(entity).execute().await?;
        entity.set_version(stored.version);
        read_back_timestamps(entity, &stored.timestamps);
        Ok(())
    }
}

impl<'a, E: Entity> Put<'a, E> {
    /// Fails with [`Error::AlreadyExists`] when an item with the same key exists.
    pub fn create_only(mut self) -> Self {
        self.guards.create_only = true;
        self
    }

    /// Writes only if `condition` holds on the stored item ([`Error::ConditionFailed`] otherwise).
    pub fn condition(mut self, condition: Condition) -> Self {
        self.condition = Some(Condition::join(self.condition.take(), condition));
        self
    }

    /// The request from the `Db`'s caches, as a transaction adds it: the complete item (with the
    /// next version for `#[version]` entities) and the condition; also returns the version the
    /// item will have (`0` for unversioned entities).
    pub(crate) fn request(&self) -> Result<PutParts> {
        let layouts = Layouts::cached(self.db);
        let built = Draft::new(self.entity)?.into_built(&layouts)?;
        self.request_for(built, &layouts)
    }

    /// The request putting `built`: the version guard and the next version, and, while a batched
    /// backfill holds existing items of `E` frozen, the guard that makes the put create. An
    /// entity with a `#[created_at]` field is put through an update that keeps it.
    fn request_for(&self, built: Built, layouts: &Layouts<'_, E>) -> Result<PutParts> {
        let Built { mut item, created_now, .. } = built;
        let buckets = Buckets::of_item::<E>(&item);
        let key = self.entity.primary_key()?;
        let mut stored_version = 0;
        if let (Some(attribute), Some(version)) = (E::VERSION_ATTRIBUTE, self.guards.expected_version) {
            stored_version = version.saturating_add(1);
            item.insert(attribute.to_owned(), next_version(version));
        }
        let guards = Guards { frozen: layouts.frozen(), ..self.guards };
        let condition = self.condition.clone();
        let updated = E::UPDATED_AT
            .and_then(|name| Some((name.to_owned(), item.get(name)?.clone())))
            .into_iter()
            .collect();
        let mut placeholders = Placeholders::default();
        let request = match E::CREATED_AT.zip(created_now) {
            Some(created) => {
                let action = keeping_created::<E>(item, created, &mut placeholders)?;
                PutRequest::Update(
                    WriteRequest::new::<E>(self.db, key, action, placeholders, guards, condition)?
                        .recording(buckets),
                )
            }
            None => {
                let action = PutAction { item };
                PutRequest::Put(
                    WriteRequest::new::<E>(self.db, key, action, placeholders, guards, condition)?
                        .recording(buckets),
                )
            }
        };
        Ok(PutParts { request, version: stored_version, updated })
    }

    /// Sends the put; returns the version now stored (`0` for unversioned entities) and the
    /// timestamps.
    ///
    /// With dynamic-sharded indexes: reads the counts the cache lacks first, and when the put is
    /// throttled by a hot partition of one of them, raises its count (see
    /// [`crate::metadata::ShardMetadata`]); then retries on the new shard space, up to the `Db`'s
    /// retry policy. The item's body is built once; each attempt writes its index keys for the
    /// reshardings and shard counts as they are then.
    async fn execute(self) -> Result<Stored> {
        let draft = Draft::new(self.entity)?;
        if !E::DYNAMIC_SHARDS {
            let layouts = Layouts::resolve(self.db).await?;
            let built = draft.into_built(&layouts)?;
            return self.send(built, &layouts).await;
        }
        let (this, draft) = (&self, &draft);
        retrying(self.db.retry_policy(), |_| async move {
            let attempt = async {
                let layouts = Layouts::resolve(this.db).await?;
                let mut built = draft.build(&layouts).await?;
                let targets = std::mem::take(&mut built.targets);
                let (result, throttles) = watched(this.send(built, &layouts)).await;
                Ok::<_, Error>((result, throttles, layouts, targets))
            };
            match attempt.await {
                Err(error) => Attempt::Done(Err(error)),
                Ok((Err(error), throttles, layouts, targets)) if error.is_throttled() => {
                    let reasons = match throttles.is_empty() {
                        true => error.throttling_reasons().to_vec(),
                        false => throttles.reasons(),
                    };
                    match layouts.grow_after(&reasons, &targets).await {
                        Ok(()) => Attempt::Again(error),
                        Err(failed) => Attempt::Done(Err(failed)),
                    }
                }
                // Throttled and sent again by the SDK until it landed: the key is as hot as if
                // the put had failed. It stands; a count that could not be raised is logged.
                Ok((Ok(stored), throttles, layouts, targets)) if !throttles.is_empty() => {
                    if let Err(error) = layouts.grow_after(&throttles.reasons(), &targets).await {
                        tracing::warn!(target: "dynashard::shards", %error, "a shard count was not raised");
                    }
                    Attempt::Done(Ok(stored))
                }
                Ok((result, ..)) => Attempt::Done(result),
            }
        })
        .await
    }

    async fn send(&self, built: Built, layouts: &Layouts<'_, E>) -> Result<Stored> {
        let PutParts { request, version, .. } = self.request_for(built, layouts)?;
        let buckets = match &request {
            PutRequest::Put(request) => &request.buckets,
            PutRequest::Update(request) => &request.buckets,
        };
        self.db.record_buckets(buckets).await?;
        let timestamps = match request {
            PutRequest::Put(request) => self.send_put(request).await?,
            PutRequest::Update(request) => self.send_update(request).await?,
        };
        Ok(Stored { version, timestamps })
    }

    /// Sends a `PutItem`; returns the timestamps it wrote.
    async fn send_put(&self, request: WriteRequest<PutAction>) -> Result<Item> {
        let explain = request.explain;
        let timestamps = timestamps::<E>(&request.action.item);
        let keys =
            item_keys(self.db.meter(), (table_of::<E>(), EntityType::of::<E>()), Some(&request.action.item));
        // A write its condition refuses consumes units too, which no response reports.
        let mut refused = None;
        let sending = self
            .db
            .client()
            .put_item()
            .table_name(&request.table)
            .set_item(Some(request.action.item))
            .set_condition_expression(request.condition)
            .set_expression_attribute_names(request.names)
            .set_expression_attribute_values(request.values)
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send();
        let (sent, throttles) = watched(sending).await;
        let result = sent.map_err(|error| match error.as_service_error() {
            Some(PutItemError::ConditionalCheckFailedException(failed)) => {
                refused = Some(refused_write(failed.item()));
                explain.failure(failed.item().cloned())
            }
            _ => Error::from_sdk("PutItem", error),
        });
        let consumed = match &refused {
            Some(refused) => Ok(Some(refused)),
            None => result.as_ref().map(|output| output.consumed_capacity.as_ref()),
        };
        count_write(
            self.db.meter(),
            (&request.table, &request.key.pk),
            E::TYPE_NAME,
            &keys,
            consumed,
            &throttles,
        );
        result.map(|_| timestamps)
    }

    /// Sends the `UpdateItem` a put keeping `#[created_at]` is; returns the timestamps stored.
    async fn send_update(&self, request: WriteRequest<UpdateAction>) -> Result<Item> {
        let updated = request.send(self.db, ReturnValue::UpdatedNew).await?;
        Ok(timestamps::<E>(&updated))
    }
}

/// What a put sends: a `PutItem`, or for an entity with a `#[created_at]` field the `UpdateItem`
/// that keeps it.
pub(crate) enum PutRequest {
    Put(WriteRequest<PutAction>),
    Update(WriteRequest<UpdateAction>),
}

/// A put's request, with what the saved value follows.
pub(crate) struct PutParts {
    pub request: PutRequest,
    /// The version the item will have (`0` for unversioned entities).
    pub version: u64,
    /// The `#[updated_at]` attribute as written (empty without one).
    pub updated: Item,
}

/// What a put stored that the saved value follows.
struct Stored {
    /// The version now stored (`0` for unversioned entities).
    version: u64,
    /// The `#[created_at]` and `#[updated_at]` attributes as stored.
    timestamps: Item,
}

/// Sets `entity`'s timestamps from those a write stored; one that does not read back is logged,
/// not an error: the write succeeded.
pub(crate) fn read_back_timestamps<E: Entity>(entity: &mut E, timestamps: &Item) {
    if let Err(error) = entity.set_timestamps(timestamps) {
        tracing::warn!(entity = E::TYPE_NAME, %error, "written; its stored times do not read back into the value");
    }
}

/// The `#[created_at]` and `#[updated_at]` attributes of `item`.
fn timestamps<E: Entity>(item: &std::collections::HashMap<String, AttributeValue>) -> Item {
    [E::CREATED_AT, E::UPDATED_AT]
        .into_iter()
        .flatten()
        .filter_map(|name| Some((name.to_owned(), item.get(name)?.clone())))
        .collect()
}

impl<'a, E: Entity> IntoFuture for Put<'a, E> {
    type Output = Result<()>;
    type IntoFuture = BoxFuture<'a, Result<()>>;

    fn into_future(self) -> Self::IntoFuture {
        let operation = Operation::of::<E>(self.db, "put", "PutItem");
        Box::pin(operation.run(async move { self.execute().await.map(|_| ()) }))
    }
}
