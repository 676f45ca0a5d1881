//! The dynamic shard count of the partition a query reads: looked up when the query runs, read
//! and set by hand.

use super::{Query, QueryPlan};
use crate::db::Db;
use crate::dynamic::Counts;
use crate::error::{Error, Result};
use crate::metadata::{ShardMetadata, ShardState};
use crate::shard::Read;
use std::sync::Arc;

impl Db {
    /// The metadata key and maximum of a query on a dynamic-sharded index.
    fn dynamic_target(&self, plan: &QueryPlan) -> Result<(String, u32)> {
        let max = plan.shards.as_ref().and_then(|shards| shards.layout.dynamic_max());
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

    /// The shard state recorded in the shard metadata table `metadata_table` for the logical
    /// partition `partition` of index `index` of the table named `table` (as stored), without
    /// knowing its entity type: what `dynashard inspect --metadata-table` reads. `None` when
    /// nothing is recorded (a partition never written).
    ///
    /// ```no_run
    /// # async fn example(db: dynashard::Db) -> dynashard::Result<()> {
    /// let state = db.recorded_shard_state("ShardMetadata", "Logs", "ByFile", "file#report.pdf").await?;
    /// println!("{:?} shards may hold items", state.map(|state| state.readable()));
    /// # Ok(()) }
    /// ```
    pub async fn recorded_shard_state(
        &self,
        metadata_table: &str,
        table: &str,
        index: &str,
        partition: &str,
    ) -> Result<Option<ShardState>> {
        let metadata = crate::metadata::table::MetadataTable { db: self.into(), table: metadata_table };
        metadata.read(&ShardMetadata::key(table, index, partition), crate::shard::MAX_SHARDS).await
    }

    /// The shard state of the partition `query` reads (a strongly consistent read).
    pub async fn shard_state<E, F>(&self, query: &Query<E, F>) -> Result<ShardState> {
        let (key, max) = self.dynamic_target(&query.plan)?;
        let shards = self.shards.require(query.plan.table)?;
        shards.forget(&key);
        Counts::new(self, &shards).current(&key, max).await
    }

    /// Sets the shard count of the partition `query` reads to `count` (1 to the index's
    /// maximum, else [`Error::InvalidShardCount`]). Lowering it retires shards for writes;
    /// readers keep reading them, as the history records them.
    pub async fn set_shard_count<E, F>(&self, query: &Query<E, F>, count: u32) -> Result<ShardState> {
        let (key, max) = self.dynamic_target(&query.plan)?;
        if count == 0 || count > max {
            return Err(Error::InvalidShardCount { partition: key, count: u64::from(count), max });
        }
        let shards = self.shards.require(query.plan.table)?;
        Counts::new(self, &shards).set(&key, count, max).await
    }

    /// Raises the shard count of the partition `query` reads by one, regardless of the cooldown
    /// (at most to the index's maximum).
    pub async fn raise_shard_count<E, F>(&self, query: &Query<E, F>) -> Result<ShardState> {
        let current = self.shard_state(query).await?;
        self.set_shard_count(query, current.count + 1).await
    }

    /// A copy of `plan` whose dynamic layout lists every shard that may hold items.
    pub(super) async fn resolve_dynamic_plan(&self, plan: Arc<QueryPlan>) -> Result<Arc<QueryPlan>> {
        let Some(declared) = plan.shards.as_ref().filter(|shards| shards.layout.awaits_count()) else {
            return Ok(plan);
        };
        let (key, max) = self.dynamic_target(&plan)?;
        let shards = self.shards.require(plan.table)?;
        let state = Counts::new(self, &shards).readable(&key, max).await?;
        // Planned by the layout with its count: every shard that may hold items.
        let layout = declared.layout.with_readable(state.readable());
        let planned = layout.map(|layout| layout.plan(Read::whole(&plan.partition_value)));
        let mut plan = (*plan).clone();
        plan.shards = planned.or(plan.shards);
        Ok(Arc::new(plan))
    }
}
