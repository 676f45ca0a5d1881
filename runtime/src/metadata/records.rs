//! The recorded state of one resharding: its phase, target, new layout and backfill progress,
//! kept as one item of the shard metadata table.

use crate::shard::NewLayout;
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

/// How far one backfill scan segment got.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegmentProgress {
    /// The scan position after the last finished page (`None`: not started, or done).
    pub after: Option<String>,
    /// Whether the segment was scanned to its end.
    pub done: bool,
    /// Items of the entity the segment read.
    pub scanned: u64,
    /// Items it gave a place in the target (the rest already had it, or changed meanwhile).
    pub written: u64,
}

/// The last verification of a resharding, as recorded for its cut-over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verified {
    /// When it finished (unix ms, by the clock of the process that ran it).
    pub at: u64,
    /// Whether everything it found was repaired (or it found nothing).
    pub clean: bool,
}

/// A resharding of one entity's index mapping, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReshardState {
    /// The index being resharded.
    pub source: String,
    /// The index holding the new layout.
    pub target: String,
    /// The new layout.
    pub layout: NewLayout,
    /// The current phase.
    pub phase: Phase,
    /// When dual writes began (unix ms).
    pub started: u64,
    /// The backfill's scan segments, by segment number.
    pub segments: BTreeMap<u32, SegmentProgress>,
    /// Whether a batched backfill holds existing items of the entity unchanged (writers may
    /// create items, but not change or delete existing ones) until it has finished.
    pub frozen: bool,
    /// When the batched backfill holding the freeze last showed it was alive (unix ms; `0`
    /// when nothing is frozen): before each page it scans.
    pub frozen_seen: u64,
    /// Whether the backfill's segment positions are of a scan of the table (batched: strongly
    /// consistent) rather than of the source index (conditional).
    pub scan_table: bool,
    /// The last verification of the source against the target, if one ran since the backfill.
    pub verified: Option<Verified>,
}

impl ReshardState {
    /// Items the backfill has read and written so far, over all segments.
    pub fn backfill_totals(&self) -> (u64, u64) {
        self.segments.values().fold((0, 0), |(scanned, written), segment| {
            (scanned + segment.scanned, written + segment.written)
        })
    }
}
