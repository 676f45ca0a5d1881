//! Dynamic shard counts at run time: resolving them for writes and reads, raising them after
//! throttling, and setting them by hand.

use super::metadata::{Change, MetadataTable, DEFINITION};
use super::state::{now_ms, ShardState};
use super::ShardMetadata;
use crate::db::Db;
use crate::error::{Error, Result};
use crate::query::{Query, QueryPlan, ShardLayout};
use crate::shard::shard_partition;
use crate::table::TableDefinition;
use rand::RngExt;
use std::sync::{Arc, PoisonError};
use std::time::{Duration, Instant};

impl Db {
    /// Keeps shard metadata (dynamic shard counts, resharding phases) as `metadata` describes,
    /// for every table this `Db` writes: its table name replaces the one a table declares
    /// (`#[table(shard_metadata = "...")]`), so give every process of a deployment the same.
    pub fn with_shard_metadata(mut self, metadata: ShardMetadata) -> Self {
        self.metadata = Some(Arc::new(metadata));
        self
    }

    /// The shard metadata this `Db` was given; [`Error::ShardMetadataNotConfigured`] without one.
    pub fn shard_metadata(&self) -> Result<&ShardMetadata> {
        self.metadata.as_deref().ok_or(Error::ShardMetadataNotConfigured)
    }

    /// The shard metadata of `table`: the one this `Db` was given, else the one the table
    /// declares (with default settings), else none.
    pub(crate) fn metadata_of(&self, table: &TableDefinition) -> Option<Arc<ShardMetadata>> {
        if let Some(metadata) = &self.metadata {
            return Some(Arc::clone(metadata));
        }
        let name = table.shard_metadata?;
        let mut declared = self.declared_metadata.lock().unwrap_or_else(PoisonError::into_inner);
        Some(Arc::clone(declared.entry(name).or_insert_with(|| Arc::new(ShardMetadata::new(name)))))
    }

    /// [`Db::metadata_of`], or [`Error::ShardMetadataNotConfigured`].
    pub(crate) fn require_metadata(&self, table: &TableDefinition) -> Result<Arc<ShardMetadata>> {
        self.metadata_of(table).ok_or(Error::ShardMetadataNotConfigured)
    }

    /// Creates the shard metadata table this `Db` was given unless it exists (on-demand
    /// capacity), and waits until it is active. ([`Db::create_table`] creates the one a table
    /// declares.)
    pub async fn create_shard_metadata_table(&self) -> Result<()> {
        let table = self.shard_metadata()?.table().to_owned();
        self.create_table_named(&table, &DEFINITION).await
    }

    /// Creates the shard metadata table of `table`, if it has one, unless it exists.
    pub(crate) async fn create_metadata_table_of(&self, table: &TableDefinition) -> Result<()> {
        match self.metadata_of(table) {
            Some(metadata) => self.create_table_named(metadata.table(), &DEFINITION).await,
            None => Ok(()),
        }
    }

    /// The state of `key` in `shards`: cached if fresh, else read, and created with one shard if
    /// missing.
    pub(crate) async fn current_state(
        &self,
        shards: &ShardMetadata,
        key: &str,
        max: u32,
    ) -> Result<ShardState> {
        let metadata = MetadataTable { db: self, table: shards.table() };
        if let Some(state) = shards.fresh(key) {
            return Ok(state);
        }
        let sent = Instant::now();
        let state = match metadata.read(key, max).await? {
            Some(state) => state,
            None => match metadata.create(key, &ShardState::first(now_ms())).await? {
                Change::Written(state) => state,
                Change::Lost => {
                    metadata.read(key, max).await?.ok_or_else(|| Error::ShardMetadataMalformed {
                        partition: key.to_owned(),
                        reason: "created by another writer, then gone".to_owned(),
                    })?
                }
            },
        };
        shards.remember(key, &state, sent);
        Ok(state)
    }

    /// After a throttled write to `key`'s shards: waits a random back-off, then raises the count
    /// by one unless it changed since it was read, changed within the cooldown, or is at `max`.
    pub(crate) async fn grow_after_throttle(
        &self,
        shards: &ShardMetadata,
        key: &str,
        max: u32,
    ) -> Result<()> {
        let metadata = MetadataTable { db: self, table: shards.table() };
        let observed = match shards.cached(key) {
            Some(state) => state,
            None => self.current_state(shards, key, max).await?,
        };
        let cooldown = shards.cooldown.as_millis() as u64;
        if observed.count >= max || !observed.cooled_down(now_ms(), cooldown) {
            return Ok(());
        }
        let backoff = shards.backoff.as_millis() as u64;
        if backoff > 0 {
            let wait = rand::rng().random_range(0..=backoff);
            tokio::time::sleep(Duration::from_millis(wait)).await;
        }
        let read_sent = Instant::now();
        let Some(current) = metadata.read(key, max).await? else { return Ok(()) };
        shards.remember(key, &current, read_sent);
        let now = now_ms();
        if current.last_changed != observed.last_changed || !current.cooled_down(now, cooldown) {
            return Ok(()); // another writer raised it, or it changed recently
        }
        if current.count >= max {
            tracing::warn!(target: "dynashard::shards", key, count = current.count, max, "shard count at its maximum");
            return Ok(());
        }
        let next = current.count + 1;
        let change_sent = Instant::now();
        match metadata.change(key, next, now, Some(current.last_changed), max).await? {
            Change::Written(state) => {
                tracing::info!(target: "dynashard::shards", key, from = current.count, to = next, "raised shard count after throttling");
                shards.remember(key, &state, change_sent);
            }
            Change::Lost => {
                let sent = Instant::now();
                if let Some(state) = metadata.read(key, max).await? {
                    shards.remember(key, &state, sent);
                }
            }
        }
        Ok(())
    }

    /// The metadata key and maximum of a query on a dynamic-sharded index.
    fn dynamic_target(&self, plan: &QueryPlan) -> Result<(String, u32)> {
        let max = plan.shards.as_ref().and_then(|shards| shards.dynamic);
        let (Some(max), Some(index)) = (max, plan.index) else {
            return Err(Error::InvalidQuery {
                reason: "the query's index is not dynamically sharded".into(),
            });
        };
        if let Some(error) = &plan.error {
            return Err(error.clone().into_error());
        }
        let key = ShardMetadata::key(self.name_of(plan.table.name), index.name, &plan.partition_value);
        Ok((key, max))
    }

    /// The shard state of the partition `query` reads (a strongly consistent read).
    pub async fn shard_state<E, F>(&self, query: &Query<E, F>) -> Result<ShardState> {
        let (key, max) = self.dynamic_target(&query.plan)?;
        let shards = self.require_metadata(query.plan.table)?;
        shards.forget(&key);
        self.current_state(&shards, &key, max).await
    }

    /// Sets the shard count of the partition `query` reads to `count` (1 to the index's
    /// maximum, else [`Error::InvalidShardCount`]). Lowering it retires shards for writes;
    /// readers keep reading them, as the history records them.
    pub async fn set_shard_count<E, F>(&self, query: &Query<E, F>, count: u32) -> Result<ShardState> {
        let (key, max) = self.dynamic_target(&query.plan)?;
        if count == 0 || count > max {
            return Err(Error::InvalidShardCount { partition: key, count: u64::from(count), max });
        }
        let shards = self.require_metadata(query.plan.table)?;
        self.current_state(&shards, &key, max).await?;
        let metadata = MetadataTable { db: self, table: shards.table() };
        let sent = Instant::now();
        let state = match metadata.change(&key, count, now_ms(), None, max).await? {
            Change::Written(state) => state,
            Change::Lost => unreachable_lost(&key)?,
        };
        tracing::info!(target: "dynashard::shards", key, to = count, "set shard count");
        shards.remember(&key, &state, sent);
        Ok(state)
    }

    /// Raises the shard count of the partition `query` reads by one, regardless of the cooldown
    /// (at most to the index's maximum).
    pub async fn raise_shard_count<E, F>(&self, query: &Query<E, F>) -> Result<ShardState> {
        let current = self.shard_state(query).await?;
        self.set_shard_count(query, current.count + 1).await
    }

    /// A copy of `plan` whose dynamic layout lists every shard that may hold items.
    pub(crate) async fn resolve_dynamic_plan(&self, plan: Arc<QueryPlan>) -> Result<Arc<QueryPlan>> {
        if plan.shards.as_ref().is_none_or(|shards| shards.dynamic.is_none()) {
            return Ok(plan);
        }
        let (key, max) = self.dynamic_target(&plan)?;
        let shards = self.require_metadata(plan.table)?;
        let metadata = MetadataTable { db: self, table: shards.table() };
        let state = match shards.fresh(&key) {
            Some(state) => state,
            // Reads do not create metadata: a key never written has one shard.
            None => metadata.read(&key, max).await?.unwrap_or_else(|| ShardState::first(0)),
        };
        let mut plan = (*plan).clone();
        if let Some(shards) = &mut plan.shards {
            let readable = state.readable();
            shards.partitions =
                (0..readable).map(|shard| shard_partition(&plan.partition_value, shard)).collect();
            shards.layout = ShardLayout::Dynamic { readable: Some(readable) };
        }
        Ok(Arc::new(plan))
    }
}

fn unreachable_lost(key: &str) -> Result<ShardState> {
    Err(Error::ShardMetadataMalformed {
        partition: key.to_owned(),
        reason: "an unconditional change reported a lost race".to_owned(),
    })
}

impl ShardMetadata {
    /// Drops `key`'s cached state.
    pub(crate) fn forget(&self, key: &str) {
        self.lock().remove(key);
    }
}
