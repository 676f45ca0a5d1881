//! Writes that are sent some time after they were built (transactions, retried batch requests)
//! check first that the reshardings they were built for are still the ones recorded: otherwise a
//! write built before dual writes began, or before a batched backfill froze existing items, could
//! land after the backfill read the item.

use super::view::Reshards;
use crate::batch::BeforeRetry;
use crate::db::Db;
use crate::entity::{Entity, PrimaryKey};
use crate::error::{Error, Result};
use crate::item::{key_item, table_of};
use crate::metadata::{mappings, Phase};
use futures::future::BoxFuture;

/// What a write saw of its entity's reshardings when it was built: per sharded mapping, the
/// phase and freeze of the resharding under way, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Seen(Vec<Option<(Phase, bool)>>);

type Check = for<'a> fn(&'a Db, &'a Seen) -> BoxFuture<'a, Result<()>>;
pub(crate) type FollowUp = for<'a> fn(&'a Db, &'a PrimaryKey) -> BoxFuture<'a, Result<()>>;

/// The check of one entity type's reshardings, type-erased so that a transaction or batch of
/// several entity types can hold it.
#[derive(Debug, Clone)]
pub(crate) struct ReshardGuard {
    check: Check,
    seen: Seen,
}

impl ReshardGuard {
    /// The guard of a write of `E` built now; `None` when `E`'s writes never fill a resharding.
    pub fn of<E: Entity>(db: &Db) -> Option<Self> {
        super::reshardable::<E>().then(|| Self { check: check::<E>, seen: Reshards::<E>::of(db).seen() })
    }

    /// Reads the reshardings again where the cache is stale; fails with [`Error::Resharding`]
    /// when one of them is not what the write was built with (send it again: it is then built
    /// for the current state).
    pub async fn check(&self, db: &Db) -> Result<()> {
        (self.check)(db, &self.seen).await
    }
}

impl BeforeRetry for ReshardGuard {
    fn check<'a>(&'a self, db: &'a Db) -> BoxFuture<'a, Result<()>> {
        (self.check)(db, &self.seen)
    }
}

fn check<'a, E: Entity>(db: &'a Db, seen: &'a Seen) -> BoxFuture<'a, Result<()>> {
    Box::pin(async move {
        Reshards::<E>::of(db).resolve().await?;
        let now = Reshards::<E>::of(db).seen();
        match mappings::<E>().zip(now.0.iter().zip(&seen.0)).find(|(_, (now, then))| now != then) {
            Some((mapping, _)) => Err(Error::Resharding {
                index: mapping.index.to_owned(),
                reason: "its resharding moved on after this write was built; nothing more of it was sent, \
                         send it again"
                    .into(),
            }),
            None => Ok(()),
        }
    })
}

/// After an update of `E` in a transaction: the work [`Reshards::follow`] does after a single
/// update (the transaction does not return the item, so it is read, strongly consistent).
pub(crate) fn follow_up<E: Entity>() -> Option<FollowUp> {
    super::reshardable::<E>().then_some(place_updated::<E> as FollowUp)
}

fn place_updated<'a, E: Entity>(db: &'a Db, key: &'a PrimaryKey) -> BoxFuture<'a, Result<()>> {
    Box::pin(async move {
        let read = db
            .client()
            .get_item()
            .table_name(db.table_of::<E>())
            .set_key(Some(key_item(table_of::<E>(), key)))
            .consistent_read(true)
            .send()
            .await
            .map_err(|error| Error::from_sdk("GetItem", error))?;
        match read.item {
            Some(item) => Reshards::<E>::of(db).follow(&item).await,
            None => Ok(()), // deleted since: nothing to place
        }
    })
}

impl<E: Entity> Reshards<'_, E> {
    /// What the cache holds of `E`'s reshardings, however old.
    pub(crate) fn seen(&self) -> Seen {
        let Some(shards) = self.cache() else { return Seen(Vec::new()) };
        Seen(
            mappings::<E>()
                .map(|mapping| {
                    let cached = shards.cached_reshard(&self.key(mapping.index)).flatten()?;
                    Some((cached.state.phase, cached.state.frozen))
                })
                .collect(),
        )
    }
}
