//! What a verification finds, and its per-segment records in the shard metadata table: one item
//! per scan segment (`verify/<resharding>/<side>/<segment>`), its position and its findings, so
//! that an interrupted verification resumes with what it found before.

use crate::db::Db;
use crate::entity::PrimaryKey;
use crate::error::{Error, Item, Result};
use crate::metadata::items::read_items;
use crate::metadata::table::{metadata_error, read_item, PARTITION};
use crate::reshard::pieces::PieceRecords;
use aws_sdk_dynamodb::types::AttributeValue;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The most bytes of keys a segment names (the rest are counted, not named), which keeps its
/// record far below DynamoDB's 400 KB, whatever the keys' length.
pub(super) const MAX_NAMED_BYTES: u64 = 100 * 1024;

/// What a verification found, by item key.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Verification {
    /// Items of the entity read, over both scans.
    pub scanned: u64,
    /// Items in the source layout without a place in the target.
    pub missing: Vec<PrimaryKey>,
    /// Items placed in the target elsewhere than the new layout puts them.
    pub misplaced: Vec<PrimaryKey>,
    /// Items in the target that the source does not hold.
    pub extra: Vec<PrimaryKey>,
    /// Items found beyond the keys named (each scan segment names up to 100 KB of keys).
    pub unnamed: u64,
    /// How many of the items found were repaired.
    pub repaired: u64,
    /// Whether every segment of both scans was read to its end: not when the run stopped at
    /// its [deadline](super::options::Verify::stop_by), to be resumed by the next.
    #[serde(default)]
    pub finished: bool,
}

impl Verification {
    /// Whether the verification [finished](Verification::finished) and everything it found was
    /// repaired (or it found nothing).
    pub fn is_clean(&self) -> bool {
        self.finished && self.found() == self.repaired
    }

    /// How many items were found missing, misplaced or extra.
    pub fn found(&self) -> u64 {
        (self.missing.len() + self.misplaced.len() + self.extra.len()) as u64 + self.unnamed
    }

    pub(super) fn add(&mut self, other: &Verification) {
        self.scanned += other.scanned;
        self.missing.extend(other.missing.iter().cloned());
        self.misplaced.extend(other.misplaced.iter().cloned());
        self.extra.extend(other.extra.iter().cloned());
        self.unnamed += other.unnamed;
        self.repaired += other.repaired;
    }
}

/// The two scans of a verification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum Side {
    /// The source index: every item there needs its place in the target.
    Source,
    /// The target index: every item there needs to be in the source.
    Target,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Source => "source",
            Side::Target => "target",
        }
    }
}

/// A fault a verification finds in one item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fault {
    /// In the source, without a place in the target.
    Missing,
    /// In the source, placed elsewhere in the target.
    Misplaced,
    /// In the target, not in the source.
    Extra,
}

/// One segment of one scan, as recorded.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct SegmentCheck {
    /// The scan position after the last finished page (its key, as JSON).
    pub after: Option<String>,
    /// Whether the segment was scanned to its end.
    pub done: bool,
    /// What it found so far.
    pub found: Verification,
    /// The bytes of the keys it names.
    #[serde(default)]
    pub named_bytes: u64,
    /// The [run](Run::id) it is a segment of: a record of an earlier run reads as not begun, so
    /// that a run starts without writing a record a segment.
    #[serde(default)]
    pub run: u64,
}

impl SegmentCheck {
    /// Records a fault of the item under `key`: named while the segment's names stay small.
    pub(super) fn note(&mut self, fault: Fault, key: PrimaryKey) {
        let bytes = (key.pk.len() + key.sk.as_ref().map_or(0, String::len) + 32) as u64;
        if self.named_bytes + bytes > MAX_NAMED_BYTES {
            self.found.unnamed += 1;
            return;
        }
        self.named_bytes += bytes;
        match fault {
            Fault::Missing => self.found.missing.push(key),
            Fault::Misplaced => self.found.misplaced.push(key),
            Fault::Extra => self.found.extra.push(key),
        }
    }
}

/// How one side of a verification is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct SideRun {
    /// Its segments: of a parallel Scan, or one a recorded piece.
    pub segments: u32,
    /// The recorded pieces it reads, by Query; `None`: a parallel Scan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pieces: Option<u64>,
}

/// One verification, as recorded in its header item: when it started and how each side is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Run {
    /// A random number naming it, which its segments' records carry (0 in a header of an
    /// earlier version, whose records were all written anew at its start).
    #[serde(default)]
    pub id: u64,
    /// When it started (unix ms).
    pub started: u64,
    /// How the source side is read (a header of an earlier version, without it, reads as no
    /// segment: the verification starts again).
    #[serde(default)]
    pub source: SideRun,
    #[serde(default)]
    pub target: SideRun,
}

impl Run {
    /// How `side` is read.
    pub fn side(&self, side: Side) -> SideRun {
        match side {
            Side::Source => self.source,
            Side::Target => self.target,
        }
    }

    /// `check` as a segment of this run: as recorded when it was recorded by it, else not begun.
    fn begun(&self, check: SegmentCheck) -> SegmentCheck {
        match check.run == self.id {
            true => check,
            false => SegmentCheck { run: self.id, ..SegmentCheck::default() },
        }
    }

    /// Every segment of both sides.
    fn segments(&self) -> impl Iterator<Item = (Side, u32)> + '_ {
        [Side::Source, Side::Target]
            .into_iter()
            .flat_map(move |side| (0..self.side(side).segments).map(move |segment| (side, segment)))
    }
}

/// The segment records of one resharding's verification.
pub(super) struct Checks<'a> {
    pub db: &'a Db,
    /// The shard metadata table.
    pub table: String,
    /// The resharding's key.
    pub key: String,
}

/// The segments one verification scans: `(side, segment)` with its progress.
pub(super) type Segments = BTreeMap<(Side, u32), SegmentCheck>;

impl Checks<'_> {
    fn segment_key(&self, side: Side, segment: u32) -> String {
        format!("verify/{}/{}/{segment}", self.key, side.name())
    }

    fn count_key(&self) -> String {
        format!("verify/{}", self.key)
    }

    /// The verification under way or last run, with its segments; none when none ran since the
    /// last backfill pass.
    pub async fn read(&self) -> Result<Option<(Run, Segments)>> {
        let Some(run) = self.run().await? else { return Ok(None) };
        let keys: Vec<String> =
            run.segments().map(|(side, segment)| self.segment_key(side, segment)).collect();
        let mut items = read_items(self.db, &self.table, &keys).await?;
        let mut segments = Segments::new();
        for ((side, segment), key) in run.segments().zip(&keys) {
            let check = match items.remove(key) {
                Some(item) => serde_dynamo::from_item(item).map_err(|_| self.malformed(key))?,
                None => SegmentCheck::default(),
            };
            segments.insert((side, segment), run.begun(check));
        }
        Ok(Some((run, segments)))
    }

    /// Forgets the verification: the next one starts from the beginning.
    pub async fn clear(&self) -> Result<()> {
        if let Some(run) = self.run().await? {
            self.forget_pieces(&run).await?;
        }
        crate::metadata::items::delete_items(self.db, &self.table, [self.count_key().as_str()]).await
    }

    /// The header of the verification under way or last run, if any.
    async fn run(&self) -> Result<Option<Run>> {
        let Some(item) = read_item(self.db, &self.table, &self.count_key()).await? else {
            return Ok(None);
        };
        serde_dynamo::from_item(item).map(Some).map_err(|_| self.malformed(&self.count_key()))
    }

    /// Forgets the pieces `run` read.
    pub async fn forget_pieces(&self, run: &Run) -> Result<()> {
        let records = PieceRecords { db: self.db, table: &self.table };
        for token in [run.source.pieces, run.target.pieces].into_iter().flatten() {
            records.forget(&self.key, token).await?;
        }
        Ok(())
    }

    /// Starts `run`, no segment begun: only its header is written (records of an earlier run's
    /// segments read as not begun).
    pub async fn start(&self, run: &Run) -> Result<Segments> {
        let segments: Segments = run.segments().map(|at| (at, run.begun(SegmentCheck::default()))).collect();
        let mut item: Item = serde_dynamo::to_item(run)?;
        item.insert(PARTITION.to_owned(), AttributeValue::S(self.count_key()));
        self.put(item).await?;
        Ok(segments)
    }

    /// Records the progress of one segment.
    pub async fn save(&self, side: Side, segment: u32, check: &SegmentCheck) -> Result<()> {
        let mut item: Item = serde_dynamo::to_item(check)?;
        item.insert(PARTITION.to_owned(), AttributeValue::S(self.segment_key(side, segment)));
        self.put(item).await
    }

    async fn put(&self, item: Item) -> Result<()> {
        let put = || self.db.client().put_item().table_name(&self.table).set_item(Some(item.clone())).send();
        crate::metadata::table::retrying(self.db, || async {
            put().await.map(|_| ()).map_err(|error| metadata_error(&self.table, "PutItem", error))
        })
        .await
    }

    fn malformed(&self, key: &str) -> Error {
        Error::ShardMetadataMalformed { partition: key.to_owned(), reason: "bad verification record".into() }
    }
}
