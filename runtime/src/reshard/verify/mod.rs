//! Verification of a resharding before its cut-over: the source layout compared with the target,
//! item by item, in segmented scans that record their positions (so a verification that was
//! interrupted resumes), reporting every item the target misses, holds in the wrong place, or
//! holds without the source, and repairing them when asked.
//!
//! One scan reads the source index (every item there must have its place in the target); one
//! reads the target index (every item there must be in the source): about one read of each. An
//! index that does not hold the attributes a scan compares is replaced by a strongly consistent
//! scan of the table. What a scan finds is confirmed by a strongly consistent read of the item
//! before it is reported, so an index lagging behind a write is not taken for a fault.

mod checks;
mod options;
mod scan;

pub use checks::Verification;
pub use options::Verify;

use super::pieces::{known_partitions, PieceRecords, Source};
use super::view::Reshards;
use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::index::Index;
use crate::metadata::{now_ms, Change, Checked, Phase, Verified};
use crate::telemetry::Operation;
use checks::{Run, Side, SideRun};
use futures::stream::{self, StreamExt};
use scan::Reading;
use std::collections::BTreeMap;

impl Db {
    /// Compares `E`'s source layout of `index` with its target, item by item, and records the
    /// result for the cut-over ([`Db::cut_over`] refuses without a clean one); with
    /// [`Verify::repair`], repairs what it finds. Resumes a verification that was interrupted.
    /// Runs after the backfill ([`Phase::Backfilled`]) or after the cut-over, before the finish.
    ///
    /// ```no_run
    /// # use dynashard::{Db, Entity, Table};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Table)]
    /// # #[table(name = "Music", pk = "pk", sk = "sk", shard_metadata = "Meta", stream = "new_image")]
    /// # #[gsi(ByTitle(pk = "tpk", sk = "tsk"))]
    /// # #[gsi(ByTitleNext(pk = "npk", sk = "nsk"))]
    /// # struct Music;
    /// # #[derive(Entity, Serialize, Deserialize)]
    /// # #[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
    /// # #[gsi(ByTitle(pk = "albums", sk = "{title}"))]
    /// # #[shard(ByTitle(hash = 16, by = title))]
    /// # struct Album { artist: String, title: String }
    /// # async fn example(db: Db) -> dynashard::Result<()> {
    /// use dynashard::reshard::Verify;
    ///
    /// let found = db.verify_resharding::<Album>(Music::BY_TITLE, Verify::default().repair()).await?;
    /// println!("{} missing, {} misplaced, {} extra", found.missing.len(), found.misplaced.len(), found.extra.len());
    /// assert!(found.is_clean());
    /// db.cut_over::<Album>(Music::BY_TITLE).await?;
    /// # Ok(()) }
    /// ```
    pub async fn verify_resharding<E: Entity>(
        &self,
        index: Index<E::Table>,
        options: Verify,
    ) -> Result<Verification> {
        let operation = Operation::of::<E>(self, "verify_resharding", "");
        operation
            .run(async move {
                let index = index.name();
                let reshards = Reshards::<E>::of(self);
                let state = reshards.state(index).await?.ok_or_else(|| super::not_started(index))?;
                if !matches!(state.phase, Phase::Backfilled | Phase::CutOver) {
                    return Err(Error::Resharding {
                        index: index.to_owned(),
                        reason: format!(
                            "verify after the backfill and before the finish (it is in {:?})",
                            state.phase
                        ),
                    });
                }
                let checked = Checked::new::<E>(&state)?;
                let key = reshards.key(index);
                let records =
                    checks::Checks { db: self, table: reshards.metadata()?.table().to_owned(), key: key.clone() };
                let (run, segments) = match records.read().await? {
                    Some((run, segments)) if !segments.values().all(|segment| segment.done) => (run, segments),
                    earlier => {
                        if let Some((run, _)) = earlier {
                            records.forget_pieces(&run).await?;
                        }
                        let run = self.plan_verification::<E>(&checked, &key, &options).await?;
                        (run, records.start(&run).await?)
                    }
                };
                let started = run.started;
                let pieces = PieceRecords { db: self, table: records.table.as_str() };
                let mut reads = BTreeMap::new();
                for side in [Side::Source, Side::Target] {
                    let plan = run.side(side);
                    reads.insert(side, (plan.segments, pieces.of(&key, plan.pieces, plan.segments).await?));
                }
                let count = segments.len();
                let work = segments.into_iter().map(|((side, segment), progress)| {
                    let (checked, options, records) = (&checked, &options, &records);
                    let (total, pieces) = &reads[&side];
                    let part = Reading { segment, total: *total, piece: pieces.get(segment as usize) };
                    async move { self.check_segment::<E>(checked, side, part, progress, records, options).await }
                });
                let parts: Vec<Result<(Verification, bool)>> =
                    stream::iter(work).buffer_unordered(options.concurrency.unwrap_or(count).max(1)).collect().await;
                let mut found = Verification { finished: true, ..Verification::default() };
                for part in parts {
                    let (part, done) = part?;
                    found.add(&part);
                    found.finished &= done;
                }
                if !found.finished {
                    tracing::info!(target: "dynashard::reshard", index, found = found.found(), "verification stopped at its deadline");
                    return Ok(found); // resumed by the next run; nothing vouched for yet
                }
                // As old as the run's start: a resumed run vouches for nothing later.
                let verified = Verified { at: started, clean: found.is_clean() };
                reshards.records()?.set_verified(&key, Some(verified)).await?;
                tracing::info!(target: "dynashard::reshard", index, found = found.found(), repaired = found.repaired, "verified");
                Ok(found)
            })
            .await
    }
}

impl Db {
    /// A new verification of `checked`, now: each side read in recorded pieces of its known
    /// partitions when its index holds what the side compares, else in `segments` segments of
    /// a parallel Scan.
    async fn plan_verification<E: Entity>(
        &self,
        checked: &Checked,
        key: &str,
        options: &Verify,
    ) -> Result<Run> {
        let reshards = Reshards::<E>::of(self);
        let metadata = reshards.metadata()?;
        let records = PieceRecords { db: self, table: metadata.table() };
        let mut run = Run { id: rand::random::<u64>().max(1), started: now_ms(), ..Run::default() };
        for side in [Side::Source, Side::Target] {
            // An added mapping's items are all the entity's: its source side, a scan of the table,
            // finds every item the index misses, holds wrongly or holds but should not.
            let Change::Reshard { mapping, layout: target_layout, source: source_keys } = &checked.change
            else {
                if side == Side::Source {
                    run.source = SideRun { segments: options.segments, pieces: None };
                }
                continue;
            };
            let (index, keys, layout) = match side {
                Side::Source => (mapping.index, *source_keys, &mapping.layout),
                Side::Target => (checked.target_index, checked.target, target_layout),
            };
            let source = scan::index_of(side, checked, crate::item::table_of::<E>())
                .filter(|_| !options.scan_index)
                .and_then(|_| known_partitions(mapping.partition, layout))
                .map(|partitions| Source { index, keys, partitions, wanted: options.segments })
                .filter(Source::fits);
            let plan = match source {
                Some(source) => {
                    let token = rand::random();
                    records.cut::<E>(key, token, &source).await?;
                    SideRun { segments: source.count(), pieces: Some(token) }
                }
                None => SideRun { segments: options.segments, pieces: None },
            };
            match side {
                Side::Source => run.source = plan,
                Side::Target => run.target = plan,
            }
        }
        Ok(run)
    }
}

impl<E: Entity> Reshards<'_, E> {
    /// The records of the verification of `E`'s resharding of `index`.
    fn checks(&self, index: &str) -> Result<checks::Checks<'_>> {
        Ok(checks::Checks { db: self.db, table: self.metadata()?.table().to_owned(), key: self.key(index) })
    }

    /// Forgets the verification of `E`'s resharding of `index`, recorded and under way: after a
    /// backfill pass, a reverse or a new start, the cut-over needs a new one.
    pub(super) async fn forget_verification(&self, index: &str) -> Result<()> {
        self.checks(index)?.clear().await?;
        self.records()?.set_verified(&self.key(index), None).await
    }
}

impl<E: Entity> Reshards<'_, E> {
    /// Forgets a verification left by an earlier resharding of `index` (before a new one is
    /// recorded).
    pub(in crate::reshard) async fn checks_clear(&self, index: &str) -> Result<()> {
        self.checks(index)?.clear().await
    }
}
