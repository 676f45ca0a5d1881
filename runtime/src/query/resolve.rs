//! Queries during a resharding: after the cut-over, a query of the source index reads the target
//! index, whose items are laid out by the new layout.

use super::QueryPlan;
use crate::db::Db;
use crate::error::{Error, Result};
use crate::index_keys::find_index;
use crate::metadata::{reshard_key, string_keys, CachedReshard, MigrationKind, Phase, ReshardState};
use crate::reshard::Records;
use crate::shard::{Read, ShardMode, Shards};
use futures::future::{BoxFuture, FutureExt};
use std::sync::Arc;

impl Db {
    /// Whether running `plan` may involve shard metadata (a resharding or a dynamic count).
    pub(super) fn plan_needs_metadata(&self, plan: &QueryPlan) -> bool {
        let dynamic = plan.shards.as_ref().is_some_and(|shards| shards.layout.dynamic_max().is_some());
        let gated = plan.added && !plan.accept_partial;
        dynamic
            || gated
            || (plan.table.shard_metadata.is_some() && plan.index.is_some() && plan.shards.is_some())
    }

    /// `plan` as it runs now: redirected to a resharding's target after its cut-over, and with
    /// the shards of a dynamic count listed. Boxed, so that a caller's future holding a read
    /// stays shallow: the compiler computes the layout of every future nested in it, to a depth.
    pub(super) fn resolve_plan(&self, plan: Arc<QueryPlan>) -> BoxFuture<'_, Result<Arc<QueryPlan>>> {
        async move {
            self.check_added(&plan).await?;
            let plan = self.redirect_plan(plan).await?;
            self.resolve_dynamic_plan(plan).await
        }
        .boxed()
    }

    /// Fails a query of a mapping declared `added` whose migration has not cut over
    /// ([`Error::MappingIncomplete`]), unless it accepts a partial answer: the index holds only
    /// the items written since the mapping was declared, and those the backfill reached.
    async fn check_added(&self, plan: &QueryPlan) -> Result<()> {
        let Some(index) = plan.index.filter(|_| plan.added && !plan.accept_partial) else { return Ok(()) };
        let incomplete = |reason: &str| Error::MappingIncomplete {
            index: index.name,
            entity: plan.type_name,
            reason: reason.to_owned(),
        };
        let state = self.migration_of(plan, false).await?.map(|cached| cached.state.clone());
        match state {
            Some(state) if state.kind == MigrationKind::AddMapping && state.phase >= Phase::CutOver => Ok(()),
            Some(state) if state.kind == MigrationKind::AddMapping => Err(incomplete(&format!(
                "its migration is in phase {:?}; it answers once cut over",
                state.phase
            ))),
            _ => Err(incomplete("no migration adding it was started (`Migration::add_mapping`)")),
        }
    }

    async fn redirect_plan(&self, plan: Arc<QueryPlan>) -> Result<Arc<QueryPlan>> {
        let cached = self.resharding_of(&plan, false).await?;
        let state = cached.as_ref().map(|cached| &cached.state);
        let redirected =
            state.filter(|state| state.phase >= Phase::CutOver).and_then(|state| redirected(&plan, state));
        Ok(redirected.map_or(plan, Arc::new))
    }

    /// The plan of the layout that `plan` (as declared) does not read now, while a resharding
    /// keeps both filled: the source after the cut-over, the target before it (or after a
    /// reverse). `None` without a resharding, and once it is done: the source is being emptied.
    /// `fresh`: by a consistent read of the record, not the cache.
    pub(super) async fn other_layout(&self, plan: &QueryPlan, fresh: bool) -> Result<Option<QueryPlan>> {
        let Some(cached) = self.resharding_of(plan, fresh).await? else { return Ok(None) };
        let state = &cached.state;
        Ok(match state.phase {
            Phase::Done => None,
            Phase::CutOver => Some(plan.clone()),
            Phase::DualWrites | Phase::Backfilled => redirected(plan, state),
        })
    }

    /// The resharding of the index `plan` reads, if one is recorded (cached like every
    /// resharding record, unless `fresh`).
    async fn resharding_of(&self, plan: &QueryPlan, fresh: bool) -> Result<Option<Arc<CachedReshard>>> {
        if plan.shards.is_none() {
            return Ok(None);
        }
        let cached = self.migration_of(plan, fresh).await?;
        Ok(cached.filter(|cached| cached.state.kind == MigrationKind::Reshard))
    }

    /// The migration of the index `plan` reads, if one is recorded (cached like every migration
    /// record, unless `fresh`).
    async fn migration_of(&self, plan: &QueryPlan, fresh: bool) -> Result<Option<Arc<CachedReshard>>> {
        let (Some(_), Some(index)) = (plan.table.shard_metadata, plan.index) else {
            return Ok(None);
        };
        let shards = self.shards.require(plan.table)?;
        let key = reshard_key(self.name_of(plan.table.name), index.name, plan.type_name);
        let state = match shards.fresh_reshard(&key).filter(|_| !fresh) {
            Some(state) => state,
            None => {
                let sent = std::time::Instant::now();
                let records = Records { db: self.into(), shards: Arc::clone(&shards) };
                let state = records.read(&key).await?.map(CachedReshard::unchecked);
                shards.remember_reshard(&key, state.clone(), sent);
                state
            }
        };
        Ok(state)
    }
}

/// `plan` reading the target of the resharding `state` with its new layout (every shard: shard
/// pruning by conditions returns with the new declaration).
fn redirected(plan: &QueryPlan, state: &ReshardState) -> Option<QueryPlan> {
    let target = find_index(plan.table.indexes, &state.target)?;
    let (partition_attribute, sort_attribute) = string_keys(target)?;
    let mut plan = plan.clone();
    plan.index = Some(target);
    plan.partition_attribute = partition_attribute;
    plan.sort_attribute = Some(sort_attribute);
    plan.routing = None;
    // Planned by the new layout, key by key: every shard of each.
    let planned: Vec<Shards> = plan.keys().iter().map(|key| state.layout.plan(Read::whole(key))).collect();
    // A merge's keys with ranges of their own keep them, on every shard.
    plan.lane_ranges = plan
        .key_ranges
        .iter()
        .zip(&planned)
        .flat_map(|(range, shards)| std::iter::repeat_n(range.clone(), shards.partitions.len()))
        .collect();
    // A merge's keys are merged whatever their layout: one after another would be out of order.
    let mode = match planned.as_slice() {
        [one] => one.mode,
        _ => ShardMode::Merge,
    };
    let partitions = planned.into_iter().flat_map(|shards| shards.partitions).collect();
    let shards = Shards::of(partitions, mode, state.layout.clone());
    plan.shards = Some(Shards { target: Some(state.target.clone()), ..shards });
    Some(plan)
}
