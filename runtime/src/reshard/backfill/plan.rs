//! Which scan a worker works on: the one recorded with the resharding when it is the kind the
//! worker wants, or a new one it records (with a conditional write on the recorded epoch, so
//! that workers starting at once agree on one).

use super::options::Backfill;
use crate::db::Db;
use crate::entity::Entity;
use crate::error::Result;
use crate::metadata::lease::{LeaseRecord, Leases};
use crate::metadata::{now_ms, refuse, Checked, Phase, ScanKind, ScanPlan, SegmentProgress};
use crate::reshard::pieces::{known_partitions, Piece, PieceRecords, Source};
use crate::reshard::view::Reshards;
use crate::reshard::{not_started, ReshardState};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// The scan a worker wants.
#[derive(Debug, Clone, Copy)]
pub(in crate::reshard) struct Wanted {
    pub kind: ScanKind,
    /// Of the table (batched) rather than of the source index.
    pub scan_table: bool,
    /// A new scan even if one of this kind is recorded (the restart of a catch-up).
    pub again: bool,
}

impl Wanted {
    /// Whether `plan` is a scan of the kind wanted.
    pub fn fits(&self, plan: &ScanPlan) -> bool {
        plan.kind == self.kind && plan.scan_table == self.scan_table
    }

    /// Whether a resharding in `phase` still needs the scan: a backfill in dual writes (one
    /// started again for a catch-up in any phase before the finish), the cleanup once done.
    /// Past it, a worker stops.
    pub fn phase_fits(&self, phase: Phase) -> bool {
        match self.kind {
            ScanKind::Backfill if self.again => phase < Phase::Done,
            ScanKind::Backfill => phase == Phase::DualWrites,
            ScanKind::Cleanup => phase == Phase::Done,
        }
    }
}

/// What the pieces of a scan of `checked`'s source are cut from, about `wanted` of them; `None`
/// when its partitions are not known without reading (a partition key template naming a field,
/// shards other than hash ones).
pub(in crate::reshard) fn source_of(checked: &Checked, wanted: u32) -> Option<Source<'static>> {
    let (mapping, keys) = (checked.resharded()?, checked.source()?);
    let partitions = known_partitions(mapping.partition, &mapping.layout)?;
    Some(Source { index: mapping.index, keys, partitions, wanted })
}

/// The metadata key of the lease of segment `segment` of `plan`, under the resharding `key`.
pub(in crate::reshard) fn segment_key(key: &str, plan: &ScanPlan, segment: u32) -> String {
    let kind = match plan.kind {
        ScanKind::Backfill => "backfill",
        ScanKind::Cleanup => "cleanup",
    };
    format!("{key}/{kind}/{}/{segment}", plan.epoch)
}

/// The lease keys of every segment of `plan`, in segment order.
pub(in crate::reshard) fn segment_keys(key: &str, plan: &ScanPlan) -> Vec<String> {
    (0..plan.segments).map(|segment| segment_key(key, plan, segment)).collect()
}

/// The progress of every segment of `plan`, as `leases` record it.
pub(in crate::reshard) fn progress_of(
    key: &str,
    plan: &ScanPlan,
    leases: &HashMap<String, LeaseRecord>,
) -> BTreeMap<u32, SegmentProgress> {
    (0..plan.segments)
        .map(|segment| {
            let lease = leases.get(&segment_key(key, plan, segment)).cloned().unwrap_or_default();
            let progress = SegmentProgress {
                after: lease.checkpoint,
                done: lease.ended,
                scanned: lease.read,
                written: lease.written,
                owner: lease.owner,
                consumed: crate::metadata::Capacity {
                    read: lease.read_capacity,
                    write: lease.write_capacity,
                },
            };
            (segment, progress)
        })
        .collect()
}

impl Db {
    /// The scan this worker joins, or the one it records: `wanted`, with `options`' segments
    /// and budget when it starts one; a recorded scan of that kind takes `options`' budget if
    /// it has one.
    pub(super) async fn plan_for<E: Entity>(
        &self,
        index: &str,
        options: &Backfill,
        wanted: Wanted,
    ) -> Result<ScanPlan> {
        let reshards = Reshards::<E>::of(self);
        let (records, key) = (reshards.records()?, reshards.key(index));
        let mut again = wanted.again;
        loop {
            let state = records.read(&key).await?.ok_or_else(|| not_started(index))?;
            match state.scan {
                Some(plan) if wanted.fits(&plan) && !again => {
                    return match options.budget.filter(|budget| *budget != plan.budget) {
                        Some(budget) if records.set_budget(&key, &plan, budget).await? => {
                            Ok(ScanPlan { budget, ..plan })
                        }
                        _ => Ok(plan),
                    };
                }
                seen => {
                    let source = match wanted.scan_table || options.scan_index {
                        true => None,
                        false => {
                            source_of(&Checked::new::<E>(&state)?, options.segments).filter(Source::fits)
                        }
                    };
                    let plan = ScanPlan {
                        epoch: seen.map_or(1, |plan| plan.epoch + 1),
                        kind: wanted.kind,
                        segments: source.as_ref().map_or(options.segments, Source::count),
                        scan_table: wanted.scan_table,
                        began: now_ms(),
                        budget: options.budget.or(seen.map(|plan| plan.budget)).unwrap_or_default(),
                        pieces: source.as_ref().map(|_| rand::random()),
                    };
                    let metadata = reshards.metadata()?;
                    let pieces_of = PieceRecords { db: self, table: metadata.table() };
                    if records.start_scan(&key, &plan, seen.map(|plan| plan.epoch)).await? {
                        tracing::info!(target: "dynashard::reshard", index, kind = ?plan.kind, epoch = plan.epoch, segments = plan.segments, "scan started");
                        if let Some(old) = seen {
                            // The leases of the scan it replaces: no worker of it writes them any
                            // more once it sees the new epoch, and a late write of one is harmless.
                            let leases = Leases { db: self.into(), table: records.shards.table() };
                            leases.forget(&segment_keys(&key, &old)).await?;
                            if let Some(token) = old.pieces {
                                pieces_of.forget(&key, token).await?;
                            }
                        }
                        // The other workers of the scan wait for these (or cut them themselves,
                        // should this worker stop before it recorded them).
                        if let (Some(source), Some(token)) = (&source, plan.pieces) {
                            pieces_of.cut::<E>(&key, token, source).await?;
                        }
                        return Ok(plan);
                    }
                    again = false; // another worker started one first: join it if it fits
                }
            }
        }
    }

    /// The pieces `plan` reads, one a segment (none for a parallel Scan), once the worker that
    /// began it has recorded them, or cut by this worker should it not within a lease.
    pub(super) async fn pieces_of<E: Entity>(
        &self,
        checked: &Checked,
        key: &str,
        plan: &ScanPlan,
        options: &Backfill,
    ) -> Result<Arc<Vec<Piece>>> {
        let source = || {
            let unknown = "the recorded scan reads pieces of a source of unknown partitions";
            source_of(checked, plan.segments).ok_or_else(|| refuse(checked.index(), unknown))
        };
        let reshards = Reshards::<E>::of(self);
        let metadata = reshards.metadata()?;
        let records = PieceRecords { db: self, table: metadata.table() };
        records.waiting_for::<E>(key, (plan.pieces, plan.segments), source, options.lease).await
    }

    /// `state` with the progress of its scan's segments filled in.
    pub(in crate::reshard) async fn with_progress<E: Entity>(
        &self,
        state: ReshardState,
    ) -> Result<ReshardState> {
        self.with_progress_after::<E>(state, HashMap::new()).await
    }

    /// [`with_progress`](Db::with_progress), reading only the leases not among those `ended`
    /// (by their metadata keys), which a worker saw ended: an ended lease never changes again
    /// (see `Swept::Done`), and a worker that saw every segment end reads none.
    pub(in crate::reshard) async fn with_progress_after<E: Entity>(
        &self,
        mut state: ReshardState,
        mut ended: HashMap<String, LeaseRecord>,
    ) -> Result<ReshardState> {
        let Some(plan) = state.scan else { return Ok(state) };
        let reshards = Reshards::<E>::of(self);
        let (shards, key) = (reshards.metadata()?, reshards.key(&state.source));
        let unseen: Vec<String> =
            segment_keys(&key, &plan).into_iter().filter(|lease| !ended.contains_key(lease)).collect();
        if !unseen.is_empty() {
            ended.extend(Leases { db: self.into(), table: shards.table() }.read(&unseen).await?);
        }
        state.segments = progress_of(&key, &plan, &ended);
        Ok(state)
    }
}
