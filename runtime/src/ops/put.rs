//! Putting entities: plain, create-only, conditional and version-checked.

use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Item, Result};
use crate::expression::{Condition, Placeholders};
use crate::retry::{retrying, Attempt};
use crate::write::{next_version, Draft, Guards, Layouts, PutAction, WriteRequest};
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

    /// The request from the `Db`'s caches, as a transaction adds it: the complete item (with the
    /// next version for `#[version]` entities) and the condition; also returns the version the
    /// item will have (`0` for unversioned entities).
    pub(crate) fn request(&self) -> Result<(WriteRequest<PutAction>, u64)> {
        let layouts = Layouts::cached(self.db);
        let built = Draft::new(self.entity)?.into_built(&layouts)?;
        self.request_for(built.item, &layouts)
    }

    /// The request putting `item`: the version guard and the next version, and, while a batched
    /// backfill holds existing items of `E` frozen, the guard that makes the put create.
    fn request_for(
        &self,
        mut item: Item,
        layouts: &Layouts<'_, E>,
    ) -> Result<(WriteRequest<PutAction>, u64)> {
        let key = self.entity.primary_key()?;
        let mut stored_version = 0;
        if let (Some(attribute), Some(version)) = (E::VERSION_ATTRIBUTE, self.guards.expected_version) {
            stored_version = version.saturating_add(1);
            item.insert(attribute.to_owned(), next_version(version));
        }
        let guards = Guards { frozen: layouts.frozen(), ..self.guards };
        let action = PutAction { item };
        let condition = self.condition.clone();
        let request =
            WriteRequest::new::<E>(self.db, key, action, Placeholders::default(), guards, condition)?;
        Ok((request, stored_version))
    }

    /// Sends the put; returns the version now stored (`0` for unversioned entities).
    ///
    /// With dynamic-sharded indexes: reads the counts the cache lacks first, and when the put is
    /// throttled by a hot partition of one of them, raises its count (see
    /// [`crate::metadata::ShardMetadata`]); then retries on the new shard space, up to the `Db`'s
    /// retry policy. The item's body is built once; each attempt writes its index keys for the
    /// reshardings and shard counts as they are then.
    async fn execute(self) -> Result<u64> {
        let draft = Draft::new(self.entity)?;
        if !E::DYNAMIC_SHARDS {
            let layouts = Layouts::resolve(self.db).await?;
            let built = draft.into_built(&layouts)?;
            return self.send(built.item, &layouts).await;
        }
        let (this, draft) = (&self, &draft);
        retrying(self.db.retry_policy(), |_| async move {
            let attempt = async {
                let layouts = Layouts::resolve(this.db).await?;
                let built = draft.build(&layouts).await?;
                Ok::<_, Error>((this.send(built.item, &layouts).await, layouts, built.targets))
            };
            match attempt.await {
                Err(error) => Attempt::Done(Err(error)),
                Ok((Err(error), layouts, targets)) if error.is_throttled() => {
                    match layouts.grow_after(&error, &targets).await {
                        Ok(()) => Attempt::Again(error),
                        Err(failed) => Attempt::Done(Err(failed)),
                    }
                }
                Ok((result, _, _)) => Attempt::Done(result),
            }
        })
        .await
    }

    async fn send(&self, item: Item, layouts: &Layouts<'_, E>) -> Result<u64> {
        let db = self.db;
        let (request, stored_version) = self.request_for(item, layouts)?;
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

impl<'a, E: Entity> IntoFuture for Put<'a, E> {
    type Output = Result<()>;
    type IntoFuture = BoxFuture<'a, Result<()>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move { self.execute().await.map(|_| ()) })
    }
}
