//! The pieces of one scan, cut and kept: each known partition's first and last sort key read
//! (two one-item queries), the pieces cut from them, recorded in the shard metadata table under
//! a key of their own that the scan's plan names. Every worker of the scan reads the same
//! pieces, and a plan never picks up pieces another plan cut, whatever was left behind.

use super::{pieces, Piece, Sampled};
use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Item, Result};
use crate::metadata::table::{delete_items, metadata_error, read_item, retrying, PARTITION};
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};
use futures::stream::{self, StreamExt, TryStreamExt};
use std::sync::Arc;

/// The most bytes of pieces one record holds: more, and the scan is a parallel Scan instead.
const MAX_RECORD: usize = 300 * 1024;
/// The partitions sampled at once.
const SAMPLED_AT_ONCE: usize = 16;
const PIECES: &str = "pieces";

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

    /// Records `pieces` for the resharding `key`; the token a plan names them by, or `None` when
    /// they are too many to record.
    async fn save(&self, key: &str, pieces: &[Piece]) -> Result<Option<u64>> {
        // Strings only: serializing cannot fail.
        let text = serde_json::to_string(pieces).unwrap_or_default();
        if text.len() > MAX_RECORD {
            return Ok(None);
        }
        let token = rand::random::<u64>();
        let item: Item = [
            (PARTITION.to_owned(), AttributeValue::S(Self::key(key, token))),
            (PIECES.to_owned(), AttributeValue::S(text)),
        ]
        .into_iter()
        .collect();
        let put = || self.db.client().put_item().table_name(self.table).set_item(Some(item.clone())).send();
        retrying(self.db, || async {
            put().await.map(|_| ()).map_err(|error| metadata_error(self.table, "PutItem", error))
        })
        .await?;
        Ok(Some(token))
    }

    /// Cuts about `wanted` pieces of `partitions` of `E`'s index `index` (keys `keys`) and
    /// records them for the resharding `key`: their count and token, `None` when too many.
    pub async fn cut<E: Entity>(
        &self,
        key: &str,
        (index, keys): (&str, (&str, &str)),
        partitions: Vec<String>,
        wanted: u32,
    ) -> Result<Option<(u32, u64)>> {
        let pieces = self.db.cut_pieces::<E>(index, keys, partitions, wanted).await?;
        Ok(self.save(key, &pieces).await?.map(|token| (pieces.len() as u32, token)))
    }

    /// The pieces `token` of the resharding `key`.
    async fn load(&self, key: &str, token: u64) -> Result<Arc<Vec<Piece>>> {
        let record_key = Self::key(key, token);
        let malformed = |reason: &str| Error::ShardMetadataMalformed {
            partition: record_key.clone(),
            reason: reason.to_owned(),
        };
        let item = read_item(self.db, self.table, &record_key).await?.ok_or_else(|| malformed("missing"))?;
        let text =
            item.get(PIECES).and_then(|value| value.as_s().ok()).ok_or_else(|| malformed("no pieces"))?;
        let pieces: Vec<Piece> = serde_json::from_str(text).map_err(|_| malformed("bad pieces"))?;
        Ok(Arc::new(pieces))
    }

    /// The pieces `token` of the resharding `key` (none without one), which must be `segments`:
    /// one a segment.
    pub async fn of(&self, key: &str, token: Option<u64>, segments: u32) -> Result<Arc<Vec<Piece>>> {
        let Some(token) = token else { return Ok(Arc::default()) };
        let pieces = self.load(key, token).await?;
        if pieces.len() != segments as usize {
            let reason = format!("{} pieces recorded for {segments} segments", pieces.len());
            return Err(Error::ShardMetadataMalformed { partition: Self::key(key, token), reason });
        }
        Ok(pieces)
    }

    /// Forgets the pieces `token` of the resharding `key`.
    pub async fn forget(&self, key: &str, token: u64) -> Result<()> {
        delete_items(self.db, self.table, [Self::key(key, token).as_str()]).await
    }
}

impl Db {
    /// The pieces of `partitions` of `E`'s index `index` (keys `keys`), about `wanted` in all:
    /// each partition's first and last sort key read, and its pieces cut between them.
    async fn cut_pieces<E: Entity>(
        &self,
        index: &str,
        keys: (&str, &str),
        partitions: Vec<String>,
        wanted: u32,
    ) -> Result<Vec<Piece>> {
        let sampled: Vec<Sampled> = stream::iter(partitions)
            .map(|partition| async move {
                let first = self.end_of::<E>(index, keys, &partition, true).await?;
                let last = self.end_of::<E>(index, keys, &partition, false).await?;
                Ok::<_, Error>(Sampled { partition, bounds: first.zip(last) })
            })
            .buffered(SAMPLED_AT_ONCE)
            .try_collect()
            .await?;
        Ok(pieces(&sampled, wanted))
    }

    /// The first (or last) sort key of `partition` in `index`, if it holds any item.
    async fn end_of<E: Entity>(
        &self,
        index: &str,
        (pk, sk): (&str, &str),
        partition: &str,
        first: bool,
    ) -> Result<Option<String>> {
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
