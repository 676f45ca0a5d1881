//! What a write of an entity type must know of its shard layouts: the reshardings under way
//! (dual writes, freezes) and the dynamic shard counts, and what it does with them.

use super::reshardable;
use crate::db::Db;
use crate::dynamic::growth;
use crate::dynamic::{Choice, Counts, DynamicTarget};
use crate::entity::Entity;
use crate::error::{Error, Item, Result};
use crate::item::table_of;
use crate::metadata::ShardMetadata;
use crate::reshard::Reshards;
use crate::throttling::ThrottlingReason;
use std::marker::PhantomData;
use std::sync::Arc;

/// The shard layouts a write of `E` is built for.
pub(crate) struct Layouts<'a, E> {
    db: &'a Db,
    /// Where `E`'s dynamic counts are cached (`None` without dynamic-sharded mappings, or without
    /// shard metadata: then every count is missing).
    metadata: Option<Arc<ShardMetadata>>,
    entity: PhantomData<fn() -> E>,
}

impl<'a, E: Entity> Layouts<'a, E> {
    /// The layouts as the `Db`'s caches hold them, however old (transactions, which check their
    /// reshardings again before sending).
    pub fn cached(db: &'a Db) -> Self {
        let metadata = if E::DYNAMIC_SHARDS { db.shards.of(table_of::<E>()) } else { None };
        Layouts { db, metadata, entity: PhantomData }
    }

    /// The layouts with `E`'s reshardings read where the cache is stale.
    pub async fn resolve(db: &'a Db) -> Result<Self> {
        if reshardable::<E>() {
            Reshards::<E>::of(db).resolve().await?;
        }
        Ok(Self::cached(db))
    }

    /// A chooser of dynamic shards from the cached counts.
    pub(super) fn chooser(&self) -> Choice<'_> {
        Choice::new(self.metadata.as_deref(), self.db.table_of::<E>()).with_buckets(&self.db.bucket_affinity)
    }

    /// Reads the counts of `missing` partitions into the cache.
    pub(super) async fn resolve_counts(&self, missing: &[DynamicTarget]) -> Result<()> {
        let shards = self.db.shards.require(table_of::<E>())?;
        for target in missing {
            Counts::new(self.db, &shards).current(&target.key, target.max).await?;
        }
        Ok(())
    }

    /// Adds to `item` its place in the target layouts of the reshardings under way.
    pub(super) fn mirror(&self, item: &mut Item) -> Result<()> {
        if reshardable::<E>() {
            Reshards::<E>::of(self.db).mirror(item)?;
        }
        Ok(())
    }

    /// The index whose batched backfill holds existing items of `E` frozen, if any: a put must
    /// then create.
    pub fn frozen(&self) -> Option<&'static str> {
        reshardable::<E>().then(|| Reshards::<E>::of(self.db).frozen()).flatten()
    }

    /// Refuses a change of an existing item while a batched backfill holds them frozen.
    pub fn refuse_if_frozen(&self) -> Result<()> {
        match self.frozen() {
            Some(index) => Err(Error::Frozen { entity: E::TYPE_NAME, index: index.to_owned() }),
            None => Ok(()),
        }
    }

    /// After an update returned `item` (all its attributes): places it in the target layouts of
    /// the reshardings under way, where the update moved it in a source index.
    pub async fn follow_update(&self, item: &Item) -> Result<()> {
        if reshardable::<E>() {
            Reshards::<E>::of(self.db).follow(item).await?;
        }
        Ok(())
    }

    /// After DynamoDB throttled a write to `targets` for `reasons` (whether the write then failed
    /// or a retry of the SDK's landed it): raises the count of every dynamic-sharded partition a
    /// hot key of it names, unless the table's own limits are what throttled it.
    pub async fn grow_after(&self, reasons: &[ThrottlingReason], targets: &[DynamicTarget]) -> Result<()> {
        let table = self.db.table_of::<E>();
        let shards = self.db.shards.require(table_of::<E>())?;
        shards.note_caps(reasons);
        growth::warn_unrelieved(reasons, table);
        for target in growth::targets_to_grow(reasons, table, targets) {
            if !shards.capped(table, target.index) {
                Counts::new(self.db, &shards).grow_after_throttle(&target.key, target.max).await?;
            }
        }
        Ok(())
    }
}
