//! The freeze of a batched backfill: existing items of the entity held unchanged while whole
//! items are put, made by the first batched worker and joined by the others.

use super::options::{token, Backfill};
use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::metadata::lease::LeaseRecord;
use crate::metadata::{now_ms, ReshardState, ShardMetadata};
use crate::reshard::view::Reshards;

impl Db {
    /// Freezes existing items for a batched backfill, or joins the freeze in force, and waits
    /// until every writer knows; returns the freeze's token. Without `batched`, lifts the freeze
    /// of a batched backfill that has been silent for the freeze lease.
    pub(super) async fn set_frozen<E: Entity>(
        &self,
        state: &ReshardState,
        options: &Backfill,
    ) -> Result<Option<String>> {
        let refuse = |reason: String| Error::Resharding { index: state.source.clone(), reason };
        let (records, key) = (Reshards::<E>::of(self).records()?, Reshards::<E>::of(self).key(&state.source));
        let now = now_ms();
        if options.batched {
            let Some(token) = records.freeze(&key, now, &token()).await? else {
                return Err(refuse("the resharding left its dual-writes phase".into()));
            };
            tracing::info!(target: "dynashard::reshard", index = state.source, "existing items frozen for a batched backfill");
            self.wait_for_writers(&records.shards, now_ms()).await?;
            return Ok(Some(token));
        }
        if !state.frozen {
            return Ok(None);
        }
        // Silent for the freeze lease as this process's own clock has watched its last renewal
        // stand still: the clocks of other machines are never compared.
        let renewal = LeaseRecord { fence: 0, beat: state.frozen_seen, ..LeaseRecord::default() };
        let shards = Reshards::<E>::of(self).metadata()?;
        if !shards.lease_expired(&format!("{key}/freeze"), Some(&renewal), options.freeze_lease) {
            return Err(refuse(
                "a batched backfill holds existing items frozen: run it again with `batched()`, or run this \
                 again once the freeze has gone without a renewal for the freeze lease"
                    .into(),
            ));
        }
        if !records.lift_freeze(&key, state.frozen_seen).await? {
            return Err(refuse("the batched backfill holding the freeze renewed it".into()));
        }
        tracing::info!(target: "dynashard::reshard", index = state.source, "freeze of a silent batched backfill lifted");
        Ok(None)
    }

    /// Waits until one metadata cache time has passed since `since` (unix ms).
    pub(super) async fn wait_for_writers(&self, shards: &ShardMetadata, since: u64) -> Result<()> {
        let cache = shards.cache_time().as_millis() as u64;
        let wait = (since + cache + 1).saturating_sub(now_ms());
        tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
        Ok(())
    }
}
