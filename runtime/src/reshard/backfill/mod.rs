//! The backfill and the cleanup of a resharding: parallel scans of the source index that give
//! every item its place in the target layout, or take it out of the source, shared out among
//! any number of workers (processes, Lambda invocations) by leases on their scan segments.
//!
//! - `options.rs`: how a worker runs ([`Backfill`]).
//! - `plan.rs`: which scan a worker joins, or starts ([`ScanPlan`], recorded with the resharding).
//! - `workers.rs`: leasing segments, taking over those of workers that went silent.
//! - `segment.rs`: scanning one leased segment, page by page, within the budget.
//! - `freeze.rs`: the freeze a batched backfill holds existing items in.

mod freeze;
mod options;
mod plan;
mod segment;
mod workers;

use super::not_started;
use super::view::Reshards;
use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::index::Index;
use crate::metadata::{MigrationKind, Phase, ReshardState, ScanKind};
use crate::telemetry::Operation;
pub use options::Backfill;
use plan::Wanted;
pub(super) use plan::{progress_of, segment_keys};
use workers::Swept;

impl Db {
    /// Gives every item already in the source index its place in the target layout, applies the
    /// change log to its current end ([`Db::catch_up`]), then moves the resharding to
    /// [`Phase::Backfilled`]. Joins the backfill other workers run, or resumes an interrupted
    /// one where it stopped; returns once every segment is done.
    ///
    /// The default, conditional backfill starts at once: a writer that has not yet seen the
    /// resharding is placed by the catch-up. A [batched](Backfill::batched) one first waits one
    /// metadata cache time after freezing existing items, since its whole-item puts are safe
    /// only while every writer honours the freeze.
    pub async fn backfill<E: Entity>(
        &self,
        index: Index<E::Table>,
        options: Backfill,
    ) -> Result<ReshardState> {
        let operation = Operation::of::<E>(self, "backfill", "");
        operation
            .run(async move {
                let index = index.name();
                let state = Reshards::<E>::of(self).state(index).await?.ok_or_else(|| not_started(index))?;
                if state.phase >= Phase::Backfilled {
                    return Ok(state);
                }
                if options.batched && state.kind == MigrationKind::AddMapping {
                    return Err(Error::Resharding {
                        index: index.to_owned(),
                        reason:
                            "an added mapping is backfilled by conditional updates: drop `Backfill::batched`"
                                .into(),
                    });
                }
                let freeze = self.set_frozen::<E>(&state, &options).await?;
                let wanted = Wanted { kind: ScanKind::Backfill, scan_table: options.batched, again: false };
                let reshards = Reshards::<E>::of(self);
                let Swept::Done(ended) = self.sweep::<E>(&state, &options, wanted, freeze.as_deref()).await?
                else {
                    let state = reshards.state(index).await?.ok_or_else(|| not_started(index))?;
                    return self.with_progress::<E>(state).await; // stopped by its deadline
                };
                self.caught_up_unless::<E>(index, Some(Phase::DualWrites)).await?;
                let state = reshards.state(index).await?.ok_or_else(|| not_started(index))?;
                if state.phase < Phase::Backfilled {
                    reshards.forget_verification(index).await?;
                    reshards.advance_shared(index, Phase::DualWrites, Phase::Backfilled).await?;
                }
                let state = reshards.state(index).await?.ok_or_else(|| not_started(index))?;
                self.with_progress_after::<E>(state, ended).await
            })
            .await
    }

    /// Ends a cut-over resharding: writes stop filling the source index, and a scan removes the
    /// source attributes from every item (shared among workers like a backfill's, and resumed
    /// where it stopped). Returns the final state ([`Phase::Done`]); then declare the target
    /// index with the new layout in code.
    pub async fn finish_resharding<E: Entity>(
        &self,
        index: Index<E::Table>,
        options: Backfill,
    ) -> Result<ReshardState> {
        let operation = Operation::of::<E>(self, "finish_resharding", "");
        operation
            .run(async move {
                let index = index.name();
                let reshards = Reshards::<E>::of(self);
                let mut state = reshards.state(index).await?.ok_or_else(|| not_started(index))?;
                if state.phase == Phase::CutOver {
                    self.caught_up_unless::<E>(index, Some(Phase::CutOver)).await?;
                    state = reshards.advance_shared(index, Phase::CutOver, Phase::Done).await?;
                } else if state.phase != Phase::Done {
                    return Err(Error::Resharding {
                        index: index.to_owned(),
                        reason: "cut over first".into(),
                    });
                }
                if state.kind == MigrationKind::AddMapping {
                    return Ok(state); // no source to clean: the added keys are the items' own
                }
                // Writers that read the record before the finish may still fill the source places: the
                // cleanup begins once they have re-read it (every worker waits, not knowing since when
                // the phase is recorded).
                self.wait_for_writers(&*reshards.metadata()?, crate::metadata::now_ms()).await?;
                let wanted = Wanted { kind: ScanKind::Cleanup, scan_table: false, again: false };
                let options = Backfill { batched: false, ..options };
                // Stopped by its deadline or not, the state tells: its scan's segments are done
                // or not.
                let ended = self.sweep::<E>(&state, &options, wanted, None).await?.ended();
                let state = reshards.state(index).await?.ok_or_else(|| not_started(index))?;
                self.with_progress_after::<E>(state, ended).await
            })
            .await
    }

    /// After the catch-up failed with [`Error::ChangeFeedGap`] (it was stopped for longer than
    /// the stream keeps records, 24 hours): begins its change feed anew, then places every item
    /// as it is now with a conditional backfill scan from the start, and applies the log. In any
    /// phase before the finish (after it, the source places a scan would read are gone).
    pub async fn restart_catch_up<E: Entity>(
        &self,
        index: Index<E::Table>,
        options: Backfill,
    ) -> Result<ReshardState> {
        let operation = Operation::of::<E>(self, "restart_catch_up", "");
        operation
            .run(async move {
                let index = index.name();
                let reshards = Reshards::<E>::of(self);
                let state = reshards.state(index).await?.ok_or_else(|| not_started(index))?;
                if state.phase == Phase::Done {
                    return Err(Error::Resharding { index: index.to_owned(), reason: "it finished".into() });
                }
                reshards.forget_verification(index).await?; // verify again after it
                let feed = reshards.feed(index)?;
                feed.reset().await?;
                feed.begin().await?;
                let options = Backfill { batched: false, ..options };
                let wanted = Wanted { kind: ScanKind::Backfill, scan_table: false, again: true };
                if let Swept::Stopped = self.sweep::<E>(&state, &options, wanted, None).await? {
                    let state = reshards.state(index).await?.ok_or_else(|| not_started(index))?;
                    return self.with_progress::<E>(state).await; // stopped by its deadline
                }
                self.caught_up::<E>(index).await?;
                reshards.state(index).await?.ok_or_else(|| not_started(index))
            })
            .await
    }
}
