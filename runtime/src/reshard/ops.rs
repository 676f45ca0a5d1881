//! The steps of a resharding, and what writers do while one is under way.

use super::view::Reshards;
use super::Records;
use crate::db::Db;
use crate::entity::Entity;
use crate::error::Result;
use crate::index::Index;
use crate::metadata::{now_ms, refuse, CachedReshard, Checked, Phase, ReshardState};
use crate::shard::NewLayout;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

impl Db {
    /// Starts resharding `E`'s mapping of `index` into the spare index `target` with `layout`:
    /// from now on writes fill both, and what a writer leaves out the catch-up places from the
    /// table's stream ([`Error::StreamRequired`](crate::Error::StreamRequired) when the table
    /// has none turned on). Starting the same resharding again returns its state; another one
    /// on the same index is refused.
    pub async fn start_resharding<E: Entity>(
        &self,
        index: Index<E::Table>,
        target: Index<E::Table>,
        layout: NewLayout,
    ) -> Result<ReshardState> {
        let (index, target) = (index.name(), target.name());
        let state = ReshardState {
            source: index.to_owned(),
            target: target.to_owned(),
            layout,
            phase: Phase::DualWrites,
            started: now_ms(),
            segments: BTreeMap::new(),
            frozen: false,
            frozen_seen: 0,
            scan_table: false,
        };
        Checked::new::<E>(&state)?;
        let shards = Reshards::<E>::of(self).metadata()?;
        let (records, key) =
            (Records { db: self, shards: Arc::clone(&shards) }, Reshards::<E>::of(self).key(index));
        // The catch-up's feed begins before the resharding is recorded, so that every write a
        // writer sends without seeing the record is in the part of the log it reads.
        if records.read(&key).await?.is_none() {
            let feed = Reshards::<E>::of(self).feed(index)?;
            feed.reset().await?; // what an earlier resharding of this index read
            feed.begin().await?;
        }
        let sent = Instant::now();
        if !records.create(&key, &state).await? {
            let existing = records.read(&key).await?.ok_or_else(|| refuse(index, "its record vanished"))?;
            if (&existing.target, &existing.layout) != (&state.target, &state.layout) {
                return Err(refuse(
                    index,
                    format!("another resharding (into `{}`) is under way", existing.target),
                ));
            }
            return Ok(existing);
        }
        tracing::info!(target: "dynashard::reshard", index, into = target, layout = state.layout.describe(), "dual writes started");
        shards.remember_reshard(&key, Some(CachedReshard::of::<E>(state.clone())), sent);
        Ok(state)
    }

    /// The recorded resharding of `E`'s mapping of `index`, if any.
    pub async fn resharding<E: Entity>(&self, index: Index<E::Table>) -> Result<Option<ReshardState>> {
        Reshards::<E>::of(self).state(index.name()).await
    }

    /// Moves a backfilled resharding to the cut-over, after applying the change log to its
    /// current end ([`Db::catch_up`]): queries of the source index read the target.
    pub async fn cut_over<E: Entity>(&self, index: Index<E::Table>) -> Result<ReshardState> {
        self.caught_up::<E>(index.name()).await?;
        Reshards::<E>::of(self).advance(index.name(), Phase::Backfilled, Phase::CutOver).await
    }
}
