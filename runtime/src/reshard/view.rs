//! `E`'s reshardings as one `Db` sees them: their records and cache, and what a write of `E`
//! does while one is under way (dual writes, freezes).

use super::Records;
use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Item, Result};
use crate::item::table_of;
use crate::metadata::{mappings, refuse, reshard_key, CachedReshard, Phase, ReshardState, ShardMetadata};
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Instant;

/// The reshardings of entity type `E` through one `Db`.
pub(crate) struct Reshards<'a, E> {
    pub(super) db: &'a Db,
    entity: PhantomData<fn() -> E>,
}

impl<'a, E: Entity> Reshards<'a, E> {
    /// `E`'s reshardings through `db`.
    pub fn of(db: &'a Db) -> Self {
        Reshards { db, entity: PhantomData }
    }

    /// The metadata key of `E`'s resharding of `index`.
    pub fn key(&self, index: &str) -> String {
        reshard_key(self.db.table_of::<E>(), index, E::TYPE_NAME)
    }

    /// The shard metadata `E`'s reshardings are recorded in: the one its table declares (or the
    /// one this `Db` was given in its place). A table that declares none cannot be resharded.
    pub fn metadata(&self) -> Result<Arc<ShardMetadata>> {
        let table = table_of::<E>();
        match table.shard_metadata {
            Some(_) => self.db.shards.require(table),
            None => Err(Error::ShardMetadataUndeclared { table: table.name }),
        }
    }

    /// The records of `E`'s reshardings.
    pub fn records(&self) -> Result<Records<'a>> {
        Ok(Records { db: self.db.into(), shards: self.metadata()? })
    }

    /// The cache of `E`'s reshardings, if its table can be resharded at all.
    pub fn cache(&self) -> Option<Arc<ShardMetadata>> {
        self.metadata().ok()
    }

    /// The recorded resharding of `E`'s mapping of the index called `index`, if any.
    pub async fn state(&self, index: &str) -> Result<Option<ReshardState>> {
        let shards = self.metadata()?;
        let (key, sent) = (self.key(index), Instant::now());
        let state = Records { db: self.db.into(), shards: Arc::clone(&shards) }.read(&key).await?;
        shards.remember_reshard(&key, state.clone().map(CachedReshard::of::<E>), sent);
        Ok(state)
    }

    pub async fn advance(&self, index: &str, from: Phase, to: Phase) -> Result<ReshardState> {
        let shards = self.metadata()?;
        let (records, key) = (Records { db: self.db.into(), shards: Arc::clone(&shards) }, self.key(index));
        if !records.advance(&key, from, to).await? {
            let found = records.read(&key).await?.map(|state| state.phase);
            return Err(refuse(index, format!("expected phase {from:?} to move to {to:?}, found {found:?}")));
        }
        tracing::info!(target: "dynashard::reshard", index, phase = ?to, "resharding moved on");
        let state = self.state(index).await?;
        state.ok_or_else(|| refuse(index, "its record vanished"))
    }

    /// [`Reshards::advance`], or the state as it is when another worker moved it to `to` (or
    /// past it) first.
    pub async fn advance_shared(&self, index: &str, from: Phase, to: Phase) -> Result<ReshardState> {
        match self.advance(index, from, to).await {
            Err(error) => match self.state(index).await? {
                Some(state) if state.phase >= to => Ok(state),
                _ => Err(error),
            },
            moved => moved,
        }
    }

    /// Reads the resharding records of `E`'s sharded mappings into the cache, where stale.
    pub async fn resolve(&self) -> Result<()> {
        let Some(shards) = self.cache() else { return Ok(()) };
        for mapping in mappings::<E>() {
            let key = self.key(mapping.index);
            if shards.fresh_reshard(&key).is_none() {
                let sent = Instant::now();
                let state = Records { db: self.db.into(), shards: Arc::clone(&shards) }.read(&key).await?;
                shards.remember_reshard(&key, state.map(CachedReshard::of::<E>), sent);
            }
        }
        Ok(())
    }

    /// Places `item` in the target layouts of `E`'s reshardings under way (from the cache); the
    /// caller checks the complete item's index keys.
    pub fn mirror(&self, item: &mut Item) -> Result<()> {
        let Some(shards) = self.cache() else { return Ok(()) };
        for mapping in mappings::<E>() {
            let key = self.key(mapping.index);
            match shards.cached_reshard(&key) {
                Some(Some(cached)) => {
                    cached.with_checked::<E, _>(|checked| checked.mirror(item, cached.state.phase))?
                }
                Some(None) => {}
                None => return Err(Error::ReshardingUnresolved { index: mapping.index }),
            }
        }
        Ok(())
    }

    /// The index of `E` whose batched backfill holds existing items frozen, if any.
    pub fn frozen(&self) -> Option<&'static str> {
        let shards = self.cache()?;
        mappings::<E>().map(|mapping| mapping.index).find(|index| {
            matches!(shards.cached_reshard(&self.key(index)),
                Some(Some(cached)) if cached.state.frozen && cached.state.phase == Phase::DualWrites)
        })
    }
}
