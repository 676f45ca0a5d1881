//! The steps of a resharding, and what writers do while one is under way.

use super::view::Reshards;
use super::{Migration, Records};
use crate::db::Db;
use crate::entity::Entity;
use crate::error::Result;
use crate::index::Index;
use crate::metadata::{now_ms, refuse, CachedReshard, Checked, Phase, ReshardState, Verified};
use crate::shard::Layout;
use crate::telemetry::Operation;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

impl Db {
    /// Starts resharding `E`'s mapping of `index` into the spare index `target` with `layout`:
    /// from now on writes fill both, and what a writer leaves out the catch-up places from the
    /// table's stream ([`Error::StreamRequired`](crate::Error::StreamRequired) when the table
    /// has none turned on). Starting the same resharding again returns its state; another one
    /// on the same index is refused. The same as
    /// `db.start_migration::<E>(Migration::reshard(index, target, layout))`.
    pub async fn start_resharding<E: Entity>(
        &self,
        index: Index<E::Table>,
        target: Index<E::Table>,
        layout: Layout,
    ) -> Result<ReshardState> {
        self.start_migration::<E>(Migration::reshard(index, target, layout)).await
    }

    /// Starts `migration` of `E`'s stored items: a mapping added to existing items
    /// ([`Migration::add_mapping`]) or a resharding ([`Migration::reshard`]). From now on the
    /// catch-up places what writers leave out, from the table's stream
    /// ([`Error::StreamRequired`](crate::Error::StreamRequired) when it has none turned on);
    /// then [`Db::backfill`], [`Db::verify_resharding`], [`Db::cut_over`] and
    /// [`Db::finish_resharding`] take it on, naming [`Migration::index`]. Starting the same
    /// migration again returns its state; another one of the same index is refused.
    ///
    /// ```no_run
    /// # use dynashard::{Db, Entity, Table};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Table)]
    /// # #[table(name = "App", pk = "pk", sk = "sk", shard_metadata = "AppMeta", stream = "new_image")]
    /// # #[gsi(ByEmail(pk = "gsi1pk", sk = "gsi1sk"))]
    /// # struct App;
    /// #[derive(Entity, Serialize, Deserialize)]
    /// #[entity(table = App, pk = "user#{id}", sk = "profile")]
    /// #[gsi(ByEmail(pk = "email#{email}", sk = "user", added))]
    /// struct User { id: String, email: String }
    ///
    /// # async fn example(db: Db) -> dynashard::Result<()> {
    /// use dynashard::reshard::{Backfill, Migration, Verify};
    ///
    /// db.start_migration::<User>(Migration::add_mapping(App::BY_EMAIL)).await?;
    /// db.backfill::<User>(App::BY_EMAIL, Backfill::default()).await?;
    /// db.verify_resharding::<User>(App::BY_EMAIL, Verify::default().repair()).await?;
    /// db.cut_over::<User>(App::BY_EMAIL).await?; // queries of ByEmail answer from here on
    /// db.finish_resharding::<User>(App::BY_EMAIL, Backfill::default()).await?;
    /// # Ok(()) }
    /// ```
    pub async fn start_migration<E: Entity>(&self, migration: Migration<E::Table>) -> Result<ReshardState> {
        let operation = Operation::of::<E>(self, "start_migration", "");
        operation
            .run(async move {
                let (index, target) = (migration.index().name(), migration.target().name());
                let state = ReshardState {
                    kind: migration.kind(),
                    source: index.to_owned(),
                    target: target.to_owned(),
                    layout: migration.layout().clone(),
                    phase: Phase::DualWrites,
                    started: now_ms(),
                    segments: BTreeMap::new(),
                    frozen: false,
                    frozen_seen: 0,
                    scan: None,
                    verified: None,
                    caught_up: 0,
                };
                Checked::new::<E>(&state)?;
                let shards = Reshards::<E>::of(self).metadata()?;
                let (records, key) =
                    (Records { db: self.into(), shards: Arc::clone(&shards) }, Reshards::<E>::of(self).key(index));
                // The catch-up's feed begins before the migration is recorded, so that every write a
                // writer sends without seeing the record is in the part of the log it reads.
                if records.read(&key).await?.is_none() {
                    let feed = Reshards::<E>::of(self).feed(index)?;
                    feed.reset().await?; // what an earlier migration of this index read
                    feed.begin().await?;
                    Reshards::<E>::of(self).checks_clear(index).await?;
                }
                let sent = Instant::now();
                if !records.create(&key, &state).await? {
                    let existing = records.read(&key).await?.ok_or_else(|| refuse(index, "its record vanished"))?;
                    let same = (existing.kind, &existing.target, &existing.layout) == (state.kind, &state.target, &state.layout);
                    if !same {
                        return Err(refuse(
                            index,
                            format!("another migration ({:?}, into `{}`) is under way", existing.kind, existing.target),
                        ));
                    }
                    return Ok(existing);
                }
                tracing::info!(target: "dynashard::reshard", index, into = target, kind = ?state.kind, layout = state.layout.describe(), "migration started");
                shards.remember_reshard(&key, Some(CachedReshard::of::<E>(state.clone())), sent);
                Ok(state)
            })
            .await
    }

    /// The recorded resharding of `E`'s mapping of `index`, if any, with the progress of its
    /// backfill's (or cleanup's) segments.
    pub async fn resharding<E: Entity>(&self, index: Index<E::Table>) -> Result<Option<ReshardState>> {
        match Reshards::<E>::of(self).state(index.name()).await? {
            Some(state) => Ok(Some(self.with_progress::<E>(state).await?)),
            None => Ok(None),
        }
    }

    /// Moves a backfilled resharding to the cut-over, after applying the change log to its
    /// current end ([`Db::catch_up`]): queries of the source index read the target. Refused
    /// without a clean verification ([`Db::verify_resharding`]) of the last hour; see
    /// [`Db::cut_over_with`].
    pub async fn cut_over<E: Entity>(&self, index: Index<E::Table>) -> Result<ReshardState> {
        self.cut_over_with::<E>(index, CutOver::default()).await
    }

    /// [`Db::cut_over`], with the verification it requires set by `options`.
    pub async fn cut_over_with<E: Entity>(
        &self,
        index: Index<E::Table>,
        options: CutOver,
    ) -> Result<ReshardState> {
        let operation = Operation::of::<E>(self, "cut_over_with", "");
        operation
            .run(async move {
                let name = index.name();
                let state = Reshards::<E>::of(self).state(name).await?.ok_or_else(|| super::not_started(name))?;
                if let Err(reason) = options.admits(state.verified, now_ms()) {
                    if !options.force {
                        return Err(refuse(name, reason));
                    }
                    tracing::warn!(target: "dynashard::reshard", index = name, reason, "cut over without a verification, as forced");
                }
                self.caught_up::<E>(name).await?;
                Reshards::<E>::of(self).advance(name, Phase::Backfilled, Phase::CutOver).await
            })
            .await
    }

    /// Reverses a cut-over: queries read the source layout again, while writes go on filling
    /// both (and the catch-up the target), so that [`Db::cut_over`] can be made again.
    /// The verification is forgotten: a cut-over reversed for what was found after it is made
    /// again only after a new one.
    pub async fn reverse_cut_over<E: Entity>(&self, index: Index<E::Table>) -> Result<ReshardState> {
        let operation = Operation::of::<E>(self, "reverse_cut_over", "");
        operation
            .run(async move {
                let reversed =
                    Reshards::<E>::of(self).advance(index.name(), Phase::CutOver, Phase::Backfilled).await?;
                Reshards::<E>::of(self).forget_verification(index.name()).await?;
                Ok(ReshardState { verified: None, ..reversed })
            })
            .await
    }
}

/// What a cut-over requires of the verification before it. `CutOver::default()`: a clean one
/// ([`Verification::is_clean`](crate::reshard::Verification::is_clean)) that finished within the
/// last hour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CutOver {
    within: Duration,
    force: bool,
}

impl Default for CutOver {
    fn default() -> Self {
        Self { within: Duration::from_secs(3_600), force: false }
    }
}

impl CutOver {
    /// Accepts a clean verification that finished within `age` (by the clocks of the processes
    /// that verified and cut over).
    pub fn verified_within(mut self, age: Duration) -> Self {
        self.within = age;
        self
    }

    /// Cuts over without a clean, recent verification (logged as a warning).
    pub fn force(mut self) -> Self {
        self.force = true;
        self
    }

    /// Whether `verified` admits a cut-over at `now` (unix ms); otherwise why not.
    fn admits(&self, verified: Option<Verified>, now: u64) -> std::result::Result<(), String> {
        let how =
            "run `Db::verify_resharding` (with `Verify::repair` to repair what it finds), or cut over with \
                   `CutOver::default().force()`";
        match verified {
            None => Err(format!("it has no verification since its backfill: {how}")),
            Some(verified) if !verified.clean => {
                Err(format!("its last verification found faults it did not repair: {how}"))
            }
            Some(verified) if now.saturating_sub(verified.at) > self.within.as_millis() as u64 => {
                Err(format!(
                    "its last clean verification is {} s old, over {} s: {how}",
                    now.saturating_sub(verified.at) / 1_000,
                    self.within.as_secs()
                ))
            }
            Some(_) => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_over_needs_a_recent_clean_verification() {
        let options = CutOver::default();
        assert!(options.admits(None, 10).unwrap_err().contains("no verification"));
        let dirty = Verified { at: 10, clean: false };
        assert!(options.admits(Some(dirty), 10).unwrap_err().contains("did not repair"));
        let clean = Verified { at: 10, clean: true };
        assert_eq!(options.admits(Some(clean), 10 + 3_600_000), Ok(()));
        assert!(options.admits(Some(clean), 11 + 3_600_000).unwrap_err().contains("over 3600 s"));
        let short = options.verified_within(Duration::from_secs(1));
        assert!(short.admits(Some(clean), 1_010).is_ok() && short.admits(Some(clean), 1_011).is_err());
    }
}
