//! The pieces of one scan, cut and kept: each known partition's first and last sort key read
//! (two one-item queries), the pieces cut from them, recorded in the shard metadata table under
//! a key of their own that the scan's plan names. Every worker of the scan reads the same
//! pieces, and a plan never picks up pieces another plan cut, whatever was left behind.

use super::{pieces, Piece, Sampled};
use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Item, Result};
use crate::metadata::items::delete_items;
use crate::metadata::table::{put_new, read_item};
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};
use futures::stream::{self, StreamExt, TryStreamExt};
use std::sync::Arc;
use std::time::Duration;

/// The most bytes of pieces one record holds.
const MAX_RECORD: usize = 300 * 1024;
/// The bytes of JSON around one piece's partition key and sort keys.
const PIECE_JSON: usize = 64;
/// The shortest cuts worth making: with less room than this a sort key, the scan is a parallel
/// Scan instead.
const SHORTEST_CUT: usize = 32;
/// The partitions sampled at once.
const SAMPLED_AT_ONCE: usize = 16;
/// How long a worker waits before it reads the pieces of a scan again, at first.
const RETRY_FIRST: Duration = Duration::from_millis(100);
const PIECES: &str = "pieces";

/// What the pieces of a scan are cut from: the partitions of an index, about `wanted` pieces.
#[derive(Debug, Clone)]
pub(crate) struct Source<'a> {
    pub index: &'a str,
    /// The index's partition and sort key attributes.
    pub keys: (&'a str, &'a str),
    pub partitions: Vec<String>,
    pub wanted: u32,
}

impl Source<'_> {
    /// How many pieces it is cut into.
    pub fn count(&self) -> u32 {
        super::count(self.partitions.len(), self.wanted)
    }

    /// The longest cut its pieces may have so that they fit in one record whatever the sort
    /// keys, known before any is read (a partition whose keys need longer cuts gets fewer pieces,
    /// the rest empty); `None` when there is too little room for cuts worth making.
    pub fn longest_cut(&self) -> Option<usize> {
        let partition = self.partitions.iter().map(String::len).max().unwrap_or(0);
        let each = MAX_RECORD / (self.count().max(1) as usize);
        let cut = each.saturating_sub(partition + PIECE_JSON) / 2;
        (cut >= SHORTEST_CUT).then_some(cut)
    }

    /// Whether its pieces fit in one record, whatever their sort keys.
    pub fn fits(&self) -> bool {
        self.longest_cut().is_some()
    }
}

/// The recorded pieces of a resharding's scans, in the shard metadata table `table`.
pub(crate) struct PieceRecords<'a> {
    pub db: &'a Db,
    pub table: &'a str,
}

impl PieceRecords<'_> {
    /// The metadata key of the pieces `token` of the resharding `key`.
    fn key(key: &str, token: u64) -> String {
        format!("{key}/pieces/{token:016x}")
    }

    /// Cuts the pieces of `source` (of `E`'s table) and records them as the pieces `token` of
    /// the resharding `key`, unless another worker recorded them first: the first record stands,
    /// so every worker reads the same pieces.
    pub async fn cut<E: Entity>(&self, key: &str, token: u64, source: &Source<'_>) -> Result<()> {
        let pieces = self.db.cut_pieces::<E>(source).await?;
        // Strings only: serializing cannot fail.
        let text = serde_json::to_string(&pieces).unwrap_or_default();
        let item: Item = [(PIECES.to_owned(), AttributeValue::S(text))].into_iter().collect();
        put_new(self.db, self.table, &Self::key(key, token), item).await?;
        Ok(())
    }

    /// The pieces `token` of the resharding `key` (none without one), which must be `segments`:
    /// one a segment.
    pub async fn of(&self, key: &str, token: Option<u64>, segments: u32) -> Result<Arc<Vec<Piece>>> {
        let Some(token) = token else { return Ok(Arc::default()) };
        self.load(key, token, segments).await?.ok_or_else(|| self.malformed(key, token, "missing".into()))
    }

    /// [`of`](Self::of), waiting for the worker that began the scan to record its pieces (it cuts
    /// them right after); once `patience` has passed without them, this worker cuts them from
    /// `source`, whichever record is first standing.
    pub async fn waiting_for<E: Entity>(
        &self,
        key: &str,
        (token, segments): (Option<u64>, u32),
        source: impl FnOnce() -> Result<Source<'static>>,
        patience: Duration,
    ) -> Result<Arc<Vec<Piece>>> {
        let Some(token) = token else { return Ok(Arc::default()) };
        let (began, mut wait) = (tokio::time::Instant::now(), RETRY_FIRST);
        while began.elapsed() < patience {
            if let Some(pieces) = self.load(key, token, segments).await? {
                return Ok(pieces);
            }
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(patience / 4).max(RETRY_FIRST);
        }
        self.cut::<E>(key, token, &source()?).await?;
        self.of(key, Some(token), segments).await
    }

    /// The pieces `token` of the resharding `key`, `segments` of them, if recorded.
    async fn load(&self, key: &str, token: u64, segments: u32) -> Result<Option<Arc<Vec<Piece>>>> {
        let Some(item) = read_item(self.db, self.table, &Self::key(key, token)).await? else {
            return Ok(None);
        };
        let text = item
            .get(PIECES)
            .and_then(|value| value.as_s().ok())
            .ok_or_else(|| self.malformed(key, token, "no pieces".into()))?;
        let pieces: Vec<Piece> =
            serde_json::from_str(text).map_err(|_| self.malformed(key, token, "bad pieces".into()))?;
        if pieces.len() != segments as usize {
            let reason = format!("{} pieces recorded for {segments} segments", pieces.len());
            return Err(self.malformed(key, token, reason));
        }
        Ok(Some(Arc::new(pieces)))
    }

    fn malformed(&self, key: &str, token: u64, reason: String) -> Error {
        Error::ShardMetadataMalformed { partition: Self::key(key, token), reason }
    }

    /// Forgets the pieces `token` of the resharding `key`.
    pub async fn forget(&self, key: &str, token: u64) -> Result<()> {
        delete_items(self.db, self.table, [Self::key(key, token).as_str()]).await
    }
}

impl Db {
    /// The pieces of `source` (of `E`'s table): each partition's first and last sort key read,
    /// and its pieces cut between them.
    async fn cut_pieces<E: Entity>(&self, source: &Source<'_>) -> Result<Vec<Piece>> {
        let sampled: Vec<Sampled> = stream::iter(source.partitions.iter().cloned())
            .map(|partition| async move {
                let first = self.end_of::<E>(source, &partition, true).await?;
                let last = self.end_of::<E>(source, &partition, false).await?;
                Ok::<_, Error>(Sampled { partition, bounds: first.zip(last) })
            })
            .buffered(SAMPLED_AT_ONCE)
            .try_collect()
            .await?;
        Ok(pieces(&sampled, source.wanted, source.longest_cut().unwrap_or(0)))
    }

    /// The first (or last) sort key of `partition` in `index`, if it holds any item.
    async fn end_of<E: Entity>(
        &self,
        source: &Source<'_>,
        partition: &str,
        first: bool,
    ) -> Result<Option<String>> {
        let (index, (pk, sk)) = (source.index, source.keys);
        let output = self
            .client()
            .query()
            .table_name(self.table_of::<E>())
            .index_name(index)
            .key_condition_expression("#pk = :pk")
            .projection_expression("#sk")
            .expression_attribute_names("#pk", pk)
            .expression_attribute_names("#sk", sk)
            .expression_attribute_values(":pk", AttributeValue::S(partition.to_owned()))
            .scan_index_forward(first)
            .limit(1)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
            .await
            .map_err(|error| Error::from_sdk("Query", error))?;
        let units = output.consumed_capacity.and_then(|consumed| consumed.capacity_units);
        let place = (self.table_of::<E>(), Some(index), E::TYPE_NAME);
        self.meter().add(place, crate::consumption::Kind::Read, units.unwrap_or(0.0));
        let item = output.items.and_then(|items| items.into_iter().next());
        Ok(item.and_then(|item| item.get(sk).and_then(|value| value.as_s().ok()).cloned()))
    }
}

#[cfg(test)]
mod tests {
    use super::super::pieces;
    use super::*;

    fn source(partitions: u32, wanted: u32) -> Source<'static> {
        let partitions = (0..partitions).map(|shard| format!("albums#{shard}")).collect();
        Source { index: "ByTitle", keys: ("pk", "sk"), partitions, wanted }
    }

    #[test]
    fn pieces_fit_in_a_record_whatever_the_sort_keys() {
        // 16 workers' 16 pieces each of a source of 16 partitions: 256 pieces, cuts of up to
        // about 560 bytes, so that sort keys of DynamoDB's longest still fit.
        let many = source(16, 256);
        let longest = many.longest_cut().expect("room for cuts");
        assert!(many.fits() && (500..=1024).contains(&longest), "{longest}");
        let (first, last) = (format!("{}a", "x".repeat(1_020)), format!("{}z", "x".repeat(1_020)));
        let (short_first, short_last) = ("title 000003".to_owned(), "title 012797".to_owned());
        let sampled: Vec<Sampled> = many
            .partitions
            .iter()
            .enumerate()
            .map(|(at, partition)| {
                let bounds = if at % 2 == 0 {
                    (first.clone(), last.clone())
                } else {
                    (short_first.clone(), short_last.clone())
                };
                Sampled { partition: partition.clone(), bounds: Some(bounds) }
            })
            .collect();
        let cut = pieces(&sampled, many.wanted, longest);
        assert_eq!(cut.len(), 256);
        let size = serde_json::to_string(&cut).map_or(usize::MAX, |text| text.len());
        assert!(size <= MAX_RECORD, "{size} bytes");
        let short = cut.iter().filter(|piece| piece.partition == "albums#1" && !piece.is_empty()).count();
        assert_eq!(short, 16, "short keys are cut as wanted");
        // 64 workers' worth still has room; a count no record holds is a parallel Scan.
        assert!(source(16, 1_024).fits());
        assert_eq!(source(16, 16_384).longest_cut(), None);
    }
}
