//! Putting entities: plain, create-only, conditional and version-checked.

use super::conditional::{next_version, Guards};
use super::request::{PutAction, WriteRequest};
use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::expression::{Condition, Placeholders};
use crate::item::{table_of, to_item, to_item_with};
use crate::retry::{retrying, Attempt};
use crate::shard::dynamic::growth;
use crate::shard::dynamic::DynamicTarget;
use crate::shard::CachedShards;
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::types::ReturnValuesOnConditionCheckFailure;
use futures::future::BoxFuture;
use std::future::IntoFuture;

/// A put of one entity; `.await` it to send.
///
/// For `#[version]` entities the stored version must equal the entity's version (or the item must
/// not exist when the version is `0`), and the stored version becomes one higher. Use
/// [`Db::save`] to also update the version in the value.
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

    /// Puts `entity` and, on success, advances its `#[version]` field to the stored version.
    pub async fn save<E: Entity>(&self, entity: &mut E) -> Result<()> {
        let version = self.put(entity).execute().await?;
        entity.set_version(version);
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

    /// The request parts: the complete item (with the next version for `#[version]` entities)
    /// and the condition; also returns the version the item will have (`0` for unversioned
    /// entities).
    /// While a batched backfill holds existing items of `E` frozen, the put must create.
    pub(crate) fn request(&self) -> Result<(WriteRequest<PutAction>, u64)> {
        let key = self.entity.primary_key()?;
        let metadata = if E::DYNAMIC_SHARDS { self.db.metadata_of(table_of::<E>()) } else { None };
        let mut item = match metadata.as_deref() {
            Some(shards) => {
                to_item_with(self.entity, &CachedShards { shards, table: self.db.table_of::<E>() })?
            }
            None => to_item(self.entity)?,
        };
        if reshardable::<E>() {
            self.db.mirror_item::<E>(&mut item)?;
        }
        let mut stored_version = 0;
        if let (Some(attribute), Some(version)) = (E::VERSION_ATTRIBUTE, self.guards.expected_version) {
            stored_version = version.saturating_add(1);
            item.insert(attribute.to_owned(), next_version(version));
        }
        let action = PutAction { item };
        let frozen = reshardable::<E>().then(|| self.db.frozen_index::<E>()).flatten();
        let guards = Guards { frozen, ..self.guards };
        let request = WriteRequest::new::<E>(
            self.db,
            key,
            action,
            Placeholders::default(),
            guards,
            self.condition.clone(),
        )?;
        Ok((request, stored_version))
    }

    /// Sends the put; returns the version now stored (`0` for unversioned entities).
    ///
    /// With dynamic-sharded indexes: reads their counts first, and when the put is throttled by
    /// a hot partition of one of them, raises its count (see [`crate::shard::ShardMetadata`]);
    /// then retries on the new shard space, up to the `Db`'s retry policy.
    async fn execute(self) -> Result<u64> {
        if reshardable::<E>() {
            self.db.resolve_reshards::<E>().await?;
        }
        if !E::DYNAMIC_SHARDS {
            return self.send().await;
        }
        let this = &self;
        retrying(self.db.retry_policy(), |_| async move {
            // Every attempt is built for the reshardings and shard counts as they are now.
            let targets = match this.resolve().await {
                Ok(targets) => targets,
                Err(error) => return Attempt::Done(Err(error)),
            };
            match this.send().await {
                Err(error) if error.is_throttled() => match this.grow_after(&error, &targets).await {
                    Ok(()) => Attempt::Again(error),
                    Err(failed) => Attempt::Done(Err(failed)),
                },
                result => Attempt::Done(result),
            }
        })
        .await
    }

    /// The reshardings and dynamic shard counts a send of this put is built for.
    async fn resolve(&self) -> Result<Vec<DynamicTarget>> {
        if reshardable::<E>() {
            self.db.resolve_reshards::<E>().await?;
        }
        self.db.resolve_dynamic(self.entity).await
    }

    /// After `error` throttled a send to `targets`: raises the count of every dynamic-sharded
    /// partition a hot key of it names, unless the table's own limits are what throttled it.
    async fn grow_after(&self, error: &Error, targets: &[DynamicTarget]) -> Result<()> {
        let table = self.db.table_of::<E>();
        let shards = self.db.require_metadata(table_of::<E>())?;
        shards.note_caps(error);
        growth::warn_unrelieved(error, table);
        for target in growth::targets_to_grow(error, table, targets) {
            if !shards.capped(table, target.index) {
                self.db.grow_after_throttle(&shards, &target.key, target.max).await?;
            }
        }
        Ok(())
    }

    async fn send(&self) -> Result<u64> {
        let db = self.db;
        let (request, stored_version) = self.request()?;
        let explain = request.explain;
        let result = db
            .client()
            .put_item()
            .table_name(request.table)
            .set_item(Some(request.action.item))
            .set_condition_expression(request.condition)
            .set_expression_attribute_names(request.names)
            .set_expression_attribute_values(request.values)
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .send()
            .await;
        match result {
            Ok(_) => Ok(stored_version),
            Err(error) => match error.as_service_error() {
                Some(PutItemError::ConditionalCheckFailedException(failed)) => {
                    Err(explain.failure(failed.item().cloned()))
                }
                _ => Err(Error::from_sdk("PutItem", error)),
            },
        }
    }
}

/// Whether writes of `E` may have to fill a resharding's target layout: its table declares shard
/// metadata (only such a table can be resharded, so that every `Db` writing it knows where to
/// look) and `E` has hash- or range-sharded mappings.
pub(crate) fn reshardable<E: Entity>() -> bool {
    table_of::<E>().shard_metadata.is_some() && !E::shard_mappings().is_empty()
}

impl<'a, E: Entity> IntoFuture for Put<'a, E> {
    type Output = Result<()>;
    type IntoFuture = BoxFuture<'a, Result<()>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move { self.execute().await.map(|_| ()) })
    }
}
