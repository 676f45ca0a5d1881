//! The recorded state of one resharding: its phase, target, new layout and backfill progress,
//! kept as one item of the shard metadata table.

use crate::shard::Layout;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The phases of a resharding, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// Writes fill both layouts; reads use the source.
    DualWrites,
    /// Every item has its place in the target; reads still use the source.
    Backfilled,
    /// Reads use the target; writes fill both layouts.
    CutOver,
    /// Writes fill the target only; the source attributes are being (or have been) removed.
    Done,
}

/// How far one scan segment of a backfill (or cleanup) got, as its lease records it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SegmentProgress {
    /// The scan position after the last finished page (`None`: not started, or done).
    pub after: Option<String>,
    /// Whether the segment was scanned to its end.
    pub done: bool,
    /// Items of the entity the segment read.
    pub scanned: u64,
    /// Items it gave a place in the target (the rest already had it, or changed meanwhile).
    pub written: u64,
    /// The worker holding the segment now, if any.
    pub owner: Option<String>,
    /// The capacity its pages consumed, as DynamoDB reported it.
    pub consumed: Capacity,
}

/// Capacity consumed, in thousandths of a unit (so that sums stay exact).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Capacity {
    /// Read capacity, in thousandths of a unit.
    pub read: u64,
    /// Write capacity, in thousandths of a unit.
    pub write: u64,
}

impl Capacity {
    /// Read capacity units.
    pub fn read_units(&self) -> f64 {
        self.read as f64 / 1_000.0
    }

    /// Write capacity units.
    pub fn write_units(&self) -> f64 {
        self.write as f64 / 1_000.0
    }
}

impl std::ops::Add for Capacity {
    type Output = Capacity;
    fn add(self, other: Capacity) -> Capacity {
        Capacity { read: self.read.saturating_add(other.read), write: self.write.saturating_add(other.write) }
    }
}

/// What a shared scan does to each item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScanKind {
    /// The backfill: gives every item its place in the target layout.
    Backfill,
    /// The cleanup of the finish: takes the source attributes out of every item.
    Cleanup,
}

/// The capacity a backfill (or cleanup) may consume, over all the processes that share it, in
/// units per second, as `ConsumedCapacity` reports them. `None`: no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budget {
    /// Write capacity units per second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_units: Option<u32>,
    /// Read capacity units per second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_units: Option<u32>,
}

/// The scan a backfill or cleanup shares out among its workers, as recorded: each segment is a
/// work item, leased through the shard metadata table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanPlan {
    /// Raised by every new scan (a cleanup after a backfill, a backfill started over); the
    /// segments' leases are kept under it, so a worker of an earlier scan never touches them.
    pub epoch: u64,
    /// What the scan does.
    pub kind: ScanKind,
    /// Its parallel scan segments.
    pub segments: u32,
    /// Whether it scans the table (a batched backfill, strongly consistent) rather than the
    /// source index.
    pub scan_table: bool,
    /// When it began (unix ms, by the clock of the process that began it).
    pub began: u64,
    /// The capacity its workers may consume together.
    #[serde(default)]
    pub budget: Budget,
    /// The recorded pieces its segments read, one a segment, each a slice of a known partition
    /// of the source read by Query; `None`: the segments are those of a parallel Scan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pieces: Option<u64>,
}

/// The last verification of a resharding, as recorded for its cut-over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verified {
    /// When it finished (unix ms, by the clock of the process that ran it).
    pub at: u64,
    /// Whether everything it found was repaired (or it found nothing).
    pub clean: bool,
}

/// What a migration changes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum MigrationKind {
    /// A hash- or range-sharded mapping moves to a new layout in a spare index.
    #[default]
    Reshard,
    /// A mapping declared `added` (`#[gsi(Index(..., added))]`) is given to every existing item.
    AddMapping,
}

/// A migration of one entity's index mapping, as recorded: a resharding, or a mapping added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReshardState {
    /// What the migration changes.
    pub kind: MigrationKind,
    /// The index being resharded (the added index, for an added mapping).
    pub source: String,
    /// The index holding the new layout (the added index, for an added mapping).
    pub target: String,
    /// The new layout (`Layout::Unsharded` for an added mapping: the entity declares its
    /// layout).
    pub layout: Layout,
    /// The current phase.
    pub phase: Phase,
    /// When dual writes began (unix ms).
    pub started: u64,
    /// The scan segments of the current [`ScanPlan`], by segment number: filled in by
    /// [`Db::resharding`](crate::Db::resharding) and progress reports, empty elsewhere.
    pub segments: BTreeMap<u32, SegmentProgress>,
    /// Whether a batched backfill holds existing items of the entity unchanged (writers may
    /// create items, but not change or delete existing ones) until it has finished.
    pub frozen: bool,
    /// When the batched backfill holding the freeze last showed it was alive (unix ms; `0`
    /// when nothing is frozen): before each page it scans.
    pub frozen_seen: u64,
    /// The backfill's (or cleanup's) scan, once one began.
    pub scan: Option<ScanPlan>,
    /// The last verification of the source against the target, if one ran since the backfill.
    pub verified: Option<Verified>,
    /// When a catch-up last applied the change log to its end (unix ms, by the clock of the
    /// process that ran it; 0: never).
    pub caught_up: u64,
}

impl ReshardState {
    /// The capacity the scan's pages consumed, over all segments.
    pub fn consumed(&self) -> Capacity {
        self.segments.values().fold(Capacity::default(), |sum, segment| sum + segment.consumed)
    }

    /// Whether the scan of the step under way ran to its end in every segment: after a call
    /// of a step that [stopped by its deadline](crate::reshard::Backfill::stop_by), whether
    /// to call it again. A backfill that finished has also moved the phase on.
    pub fn scan_finished(&self) -> bool {
        self.scan.is_some_and(|scan| {
            (0..scan.segments)
                .all(|segment| self.segments.get(&segment).is_some_and(|progress| progress.done))
        })
    }

    /// Items the backfill has read and written so far, over all segments.
    pub fn backfill_totals(&self) -> (u64, u64) {
        self.segments.values().fold((0, 0), |(scanned, written), segment| {
            (scanned + segment.scanned, written + segment.written)
        })
    }
}
