//! What a verification finds, and its per-segment records in the shard metadata table: one item
//! per scan segment (`verify/<resharding>/<side>/<segment>`), its position and its findings, so
//! that an interrupted verification resumes with what it found before.

use crate::db::Db;
use crate::dynamic::metadata::{metadata_error, read_item, PARTITION};
use crate::entity::PrimaryKey;
use crate::error::{Error, Item, Result};
use aws_sdk_dynamodb::types::AttributeValue;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The most keys of one kind a segment reports (the rest are counted, not named), which bounds
/// the size of its record.
pub(super) const MAX_KEYS: usize = 1_000;

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
    /// Items found beyond the keys named (at most 1,000 of each kind per scan segment).
    pub unnamed: u64,
    /// How many of the items found were repaired.
    pub repaired: u64,
}

impl Verification {
    /// Whether everything found was repaired (or nothing was found).
    pub fn is_clean(&self) -> bool {
        self.found() == self.repaired
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

    /// Records a fault of the item under `key`.
    pub(super) fn note(&mut self, fault: Fault, key: PrimaryKey) {
        let keys = match fault {
            Fault::Missing => &mut self.missing,
            Fault::Misplaced => &mut self.misplaced,
            Fault::Extra => &mut self.extra,
        };
        match keys.len() < MAX_KEYS {
            true => keys.push(key),
            false => self.unnamed += 1,
        }
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

    /// The segments of the verification under way or last run; empty when none was.
    pub async fn read(&self) -> Result<Segments> {
        let Some(count) = read_item(self.db, &self.table, &self.count_key()).await? else {
            return Ok(Segments::new());
        };
        let count =
            count.get("segments").and_then(|value| value.as_n().ok()).and_then(|n| n.parse::<u32>().ok());
        let count = count.ok_or_else(|| self.malformed(&self.count_key()))?;
        let mut segments = Segments::new();
        for side in [Side::Source, Side::Target] {
            for segment in 0..count {
                let key = self.segment_key(side, segment);
                let check = match read_item(self.db, &self.table, &key).await? {
                    Some(item) => serde_dynamo::from_item(item).map_err(|_| self.malformed(&key))?,
                    None => SegmentCheck::default(),
                };
                segments.insert((side, segment), check);
            }
        }
        Ok(segments)
    }

    /// Starts a verification of `count` segments a side, none begun.
    pub async fn start(&self, count: u32) -> Result<Segments> {
        let mut segments = Segments::new();
        for side in [Side::Source, Side::Target] {
            for segment in 0..count {
                self.save(side, segment, &SegmentCheck::default()).await?;
                segments.insert((side, segment), SegmentCheck::default());
            }
        }
        let item: Item = [
            (PARTITION.to_owned(), AttributeValue::S(self.count_key())),
            ("segments".to_owned(), AttributeValue::N(count.to_string())),
        ]
        .into_iter()
        .collect();
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
        crate::dynamic::metadata::retrying(self.db, || async {
            put().await.map(|_| ()).map_err(|error| metadata_error(&self.table, "PutItem", error))
        })
        .await
    }

    fn malformed(&self, key: &str) -> Error {
        Error::ShardMetadataMalformed { partition: key.to_owned(), reason: "bad verification record".into() }
    }
}
