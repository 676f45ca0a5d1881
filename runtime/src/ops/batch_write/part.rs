//! The writes of one entity type, as a batch call sends them: checked and converted (shards
//! picked, versions set), then sent together with the call's other writes, or one at a time
//! where a single write's checks are needed.

use super::send::{Alone, Part, Prepared};
use super::{BatchVersions, BatchWrite};
use crate::batch::{Writes, OPERATION};
use crate::consumption::EntityType;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::item::{key_item, table_of};
use crate::reshard::ReshardGuard;
use crate::write::{Buckets, Draft, Layouts};
use aws_sdk_dynamodb::types::{AttributeValue, DeleteRequest, PutRequest, WriteRequest};
use futures::future::BoxFuture;
use futures::stream::{self, StreamExt};
use std::future::IntoFuture;

impl<E: Entity> Part for BatchWrite<'_, E> {
    fn prepare(&self, versions: Option<BatchVersions>) -> BoxFuture<'_, Result<Prepared>> {
        Box::pin(async move {
            let versions = E::VERSION_ATTRIBUTE.map(|attribute| (attribute, versions.or(self.versions)));
            if let Some((_, None)) = versions {
                return Err(Error::VersionedBatchWrite { entity: E::TYPE_NAME });
            }
            let layouts = Layouts::resolve(self.db).await?;
            // Every put picks its shard from the counts read here; retries keep their shard.
            let mut requests = Vec::with_capacity(self.puts.len() + self.owned.len() + self.deletes.len());
            let mut buckets = Buckets::default();
            for entity in self.entities() {
                let mut item = Draft::new(entity)?.build(&layouts).await?.item;
                buckets.extend(Buckets::of_item::<E>(&item));
                if let Some((attribute, Some(BatchVersions::FirstVersion))) = versions {
                    item.insert(attribute.to_owned(), AttributeValue::N("1".to_owned()));
                }
                let put = PutRequest::builder().set_item(Some(item)).build();
                let put = put.map_err(|error| Error::from_build(OPERATION, error))?;
                requests.push((entity.primary_key()?, WriteRequest::builder().put_request(put).build()));
            }
            for key in &self.deletes {
                let key = key.primary();
                let delete = DeleteRequest::builder().set_key(Some(key_item(table_of::<E>(), key))).build();
                let delete = delete.map_err(|error| Error::from_build(OPERATION, error))?;
                requests.push((key.clone(), WriteRequest::builder().delete_request(delete).build()));
            }
            // Every partition the batch puts an item in is in its directory before any is sent.
            self.db.record_buckets(&buckets).await?;
            let alone = match (layouts.frozen(), versions) {
                (Some(index), _) => Some(Alone::Frozen(index)),
                (None, Some((_, Some(BatchVersions::Checked)))) => Some(Alone::Checked),
                _ => None,
            };
            let entity = (EntityType::of::<E>(), table_of::<E>());
            Ok(Prepared { requests, alone, guard: ReshardGuard::of::<E>(self.db), entity })
        })
    }

    /// Every write sent on its own: for `#[version]` entities written
    /// [`BatchVersions::Checked`], and while a batched backfill holds existing items of an index
    /// frozen, which makes every put create-only (a batch cannot check that) and refuses
    /// deletes. What was not written is returned in [`Error::BatchIncomplete`] (its last error
    /// [`Error::Frozen`] when an item existed).
    fn each_on_its_own<'s>(
        &'s self,
        alone: Alone,
        requests: Vec<WriteRequest>,
        in_flight: usize,
    ) -> BoxFuture<'s, Result<()>> {
        let frozen = match alone {
            Alone::Frozen(index) => Some(index),
            Alone::Checked => None,
        };
        Box::pin(async move {
            let puts = self.entities().map(|entity| self.db.put(entity).into_future());
            let deletes = self.deletes.iter().filter(|_| frozen.is_none());
            let deletes =
                deletes.map(|key| Box::pin(async move { self.db.delete(key.clone()).await.map(drop) }) as _);
            let writes: Vec<BoxFuture<'_, Result<()>>> = puts.chain(deletes).collect();
            let results: Vec<Result<()>> = stream::iter(writes).buffered(in_flight.max(1)).collect().await;
            let (mut unprocessed, mut unknown) = (Writes::default(), Writes::default());
            let (mut last_error, mut succeeded) = (None, 0);
            let mut results = results.into_iter();
            for request in requests {
                let result = match (&request.delete_request, frozen) {
                    (Some(_), Some(index)) => {
                        Err(Error::Frozen { entity: E::TYPE_NAME, index: index.to_owned() })
                    }
                    _ => results.next().unwrap_or(Ok(())),
                };
                match result {
                    Ok(()) => succeeded += 1,
                    Err(error) => {
                        let into = if error.outcome_unknown() { &mut unknown } else { &mut unprocessed };
                        into.add(request);
                        last_error = Some(Box::new(error));
                    }
                }
            }
            if last_error.is_none() {
                return Ok(());
            }
            Err(Error::BatchIncomplete {
                operation: OPERATION,
                unprocessed: unprocessed.into(),
                unknown: Box::new(unknown.into()),
                succeeded,
                last_error,
            })
        })
    }
}

impl<E: Entity> BatchWrite<'_, E> {
    /// Every entity to put.
    pub(super) fn entities(&self) -> impl Iterator<Item = &E> {
        self.puts.iter().copied().chain(&self.owned)
    }
}
