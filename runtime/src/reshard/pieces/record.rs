//! The pieces of one scan, cut and kept: each known partition's first and last sort key read
//! (two one-item queries), the pieces cut from them, recorded in the shard metadata table under
//! a key of their own that the scan's plan names. Every worker of the scan reads the same
//! pieces, and a plan never picks up pieces another plan cut, whatever was left behind.

use super::{fitting, Piece, Sampled};
use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Item, Result};
use crate::metadata::table::{delete_items, put_new, read_item};
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};
use futures::stream::{self, StreamExt, TryStreamExt};
use std::sync::Arc;
use std::time::Duration;

/// The most bytes of pieces one record holds.
const MAX_RECORD: usize = 300 * 1024;
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

    /// Cuts the pieces of `source` (of `E`'s table), as many as fit in one record, and records
    /// them as the pieces `token` of the resharding `key`, unless another worker recorded them
    /// first: the first record stands, so every worker reads the same pieces. Returns how many
    /// were cut (the scan's segments); `None`, and nothing recorded, when even one a partition
    /// would not fit (the scan is then a parallel Scan).
    pub async fn cut<E: Entity>(&self, key: &str, token: u64, source: &Source<'_>) -> Result<Option<u32>> {
        let sampled = self.db.sample::<E>(source).await?;
        let Some(pieces) = fitting(&sampled, source.wanted, MAX_RECORD) else { return Ok(None) };
        // Strings only: serializing cannot fail.
        let text = serde_json::to_string(&pieces).unwrap_or_default();
        let item: Item = [(PIECES.to_owned(), AttributeValue::S(text))].into_iter().collect();
        put_new(self.db, self.table, &Self::key(key, token), item).await?;
        Ok(Some(u32::try_from(pieces.len()).unwrap_or(u32::MAX)))
    }

    /// The pieces `token` of the resharding `key` (none without one), which must be `segments`:
    /// one a segment.
    pub async fn of(&self, key: &str, token: Option<u64>, segments: u32) -> Result<Arc<Vec<Piece>>> {
        let Some(token) = token else { return Ok(Arc::default()) };
        self.load(key, token, segments).await?.ok_or_else(|| self.malformed(key, token, "missing".into()))
    }

    /// [`of`](Self::of), waiting for the pieces to be recorded (the worker that began the scan
    /// records them before the plan that names them, so they are there unless deleted since);
    /// once `patience` has passed without them, this worker cuts them from `source`, whichever
    /// record is first standing.
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
    /// The partitions of `source` (of `E`'s table) as sampled: each one's first and last sort
    /// key read.
    async fn sample<E: Entity>(&self, source: &Source<'_>) -> Result<Vec<Sampled>> {
        stream::iter(source.partitions.iter().cloned())
            .map(|partition| async move {
                let first = self.end_of::<E>(source, &partition, true).await?;
                let last = self.end_of::<E>(source, &partition, false).await?;
                Ok::<_, Error>(Sampled { partition, bounds: first.zip(last) })
            })
            .buffered(SAMPLED_AT_ONCE)
            .try_collect()
            .await
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
