//! How far a resharding has got, as any process can read it from the shard metadata table: its
//! record, the leases of its scan's segments, and the source index's item count.

use super::backfill::{progress_of, segment_keys};
use super::Records;
use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::index::Index;
use crate::metadata::lease::Leases;
use crate::metadata::table::{metadata_error, PARTITION};
use crate::metadata::{now_ms, Capacity, ReshardState, ShardMetadata};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

/// How far one resharding has got. Read it with [`Db::resharding_progress`] (or, for every
/// resharding a metadata table records, [`Db::reshardings`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ReshardProgress {
    /// The table of the index being resharded.
    pub table: String,
    /// The entity type whose mapping is resharded.
    pub entity: String,
    /// The record, with the progress of its scan's segments.
    pub state: ReshardState,
    /// Segments of the scan under way (or last run) done, and in all.
    pub segments: (u32, u32),
    /// Items the scan read and wrote so far.
    pub scanned: u64,
    /// Items it gave a place in the target (or, cleaning up, took out of the source).
    pub written: u64,
    /// The capacity the scan consumed so far, as DynamoDB reported it.
    pub consumed: Capacity,
    /// The workers holding segments now.
    pub workers: BTreeSet<String>,
    /// The source index's item count as DynamoDB last published it (about every six hours; every
    /// entity type the index holds).
    pub estimated_items: Option<u64>,
    /// Items scanned a second since the scan began.
    pub items_per_second: Option<f64>,
    /// The time the scan should still take, at that rate.
    pub remaining: Option<Duration>,
    /// How long ago a catch-up last applied the change log to its end (`None`: never).
    pub caught_up_ago: Option<Duration>,
}

impl ReshardProgress {
    /// How far the scan is, from 0 to 1: by items against the estimate while it holds, by
    /// segments otherwise.
    pub fn fraction(&self) -> f64 {
        let (done, all) = self.segments;
        if all > 0 && done == all {
            return 1.0;
        }
        match self.estimated_items {
            Some(items) if items > 0 && self.scanned < items => self.scanned as f64 / items as f64,
            _ if all > 0 => f64::from(done) / f64::from(all),
            _ => 0.0,
        }
    }
}

/// The rate and the time left of a scan that read `scanned` items since `began` (unix ms), at
/// `now`, with `segments` (done, all) and `estimated` items in all. Sans-IO.
pub(crate) fn estimate(
    scanned: u64,
    (began, now): (u64, u64),
    (done, all): (u32, u32),
    estimated: Option<u64>,
) -> (Option<f64>, Option<Duration>) {
    let elapsed = now.saturating_sub(began) as f64 / 1_000.0;
    if elapsed <= 0.0 || scanned == 0 {
        return (None, None);
    }
    let rate = scanned as f64 / elapsed;
    if all > 0 && done == all {
        return (Some(rate), Some(Duration::ZERO));
    }
    let left = match estimated {
        Some(items) if items > scanned => Some((items - scanned) as f64),
        // The estimate is stale (or absent): what the done segments took, for the rest.
        _ if done > 0 => Some(scanned as f64 / f64::from(done) * f64::from(all - done)),
        _ => None,
    };
    (Some(rate), left.and_then(|left| Duration::try_from_secs_f64(left / rate).ok()))
}

/// The table, index and entity type of a resharding record's key, `reshard/<table>/<index>/<type>`.
fn parse_key(key: &str) -> Option<(&str, &str, &str)> {
    let mut parts = key.split('/');
    match (parts.next(), parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some("reshard"), Some(table), Some(index), Some(entity), None) => Some((table, index, entity)),
        _ => None,
    }
}

impl Db {
    /// How far `E`'s resharding of `index` has got (`None`: none is recorded), from any process.
    pub async fn resharding_progress<E: Entity>(
        &self,
        index: Index<E::Table>,
    ) -> Result<Option<ReshardProgress>> {
        let reshards = super::view::Reshards::<E>::of(self);
        let shards = reshards.metadata()?;
        let key = reshards.key(index.name());
        let Some(state) = (Records { db: self.into(), shards: Arc::clone(&shards) }).read(&key).await? else {
            return Ok(None);
        };
        Ok(Some(self.progress(shards.table(), &key, state).await?))
    }

    /// How far every resharding recorded in the shard metadata table `metadata_table` has got,
    /// without knowing their entity types (what the `dynashard reshard` command shows).
    pub async fn reshardings(&self, metadata_table: &str) -> Result<Vec<ReshardProgress>> {
        let shards = Arc::new(ShardMetadata::new(metadata_table));
        let mut keys = Vec::new();
        let mut pages = self
            .client()
            .scan()
            .table_name(metadata_table)
            .projection_expression("#key")
            .expression_attribute_names("#key", PARTITION)
            .into_paginator()
            .items()
            .send();
        while let Some(item) = pages.next().await {
            let item = item.map_err(|error| metadata_error(metadata_table, "Scan", error))?;
            if let Some(key) = item.get(PARTITION).and_then(|key| key.as_s().ok()) {
                if parse_key(key).is_some() {
                    keys.push(key.clone());
                }
            }
        }
        keys.sort();
        let mut found = Vec::with_capacity(keys.len());
        for key in keys {
            let records = Records { db: self.into(), shards: Arc::clone(&shards) };
            if let Some(state) = records.read(&key).await? {
                found.push(self.progress(metadata_table, &key, state).await?);
            }
        }
        Ok(found)
    }

    async fn progress(
        &self,
        metadata_table: &str,
        key: &str,
        mut state: ReshardState,
    ) -> Result<ReshardProgress> {
        let malformed =
            || Error::ShardMetadataMalformed { partition: key.to_owned(), reason: "bad key".into() };
        let (table, _, entity) = parse_key(key).ok_or_else(malformed)?;
        if let Some(plan) = state.scan {
            let leases =
                Leases { db: self.into(), table: metadata_table }.read(&segment_keys(key, &plan)).await?;
            state.segments = progress_of(key, &plan, &leases);
        }
        let (scanned, written) = state.backfill_totals();
        let consumed = state.consumed();
        let done = state.segments.values().filter(|segment| segment.done).count() as u32;
        let segments = (done, state.scan.map_or(0, |plan| plan.segments));
        let workers = state.segments.values().filter_map(|segment| segment.owner.clone()).collect();
        let estimated_items = self.index_item_count(table, &state.source).await;
        let now = now_ms();
        let began = state.scan.map_or(now, |plan| plan.began);
        let (items_per_second, remaining) = estimate(scanned, (began, now), segments, estimated_items);
        let caught_up_ago =
            (state.caught_up > 0).then(|| Duration::from_millis(now.saturating_sub(state.caught_up)));
        Ok(ReshardProgress {
            table: table.to_owned(),
            entity: entity.to_owned(),
            state,
            segments,
            scanned,
            written,
            consumed,
            workers,
            estimated_items,
            items_per_second,
            remaining,
            caught_up_ago,
        })
    }

    /// The item count DynamoDB publishes for `index` of `table`, if it can be read.
    async fn index_item_count(&self, table: &str, index: &str) -> Option<u64> {
        let described = self.client().describe_table().table_name(table).send().await.ok()?;
        let indexes = described.table?.global_secondary_indexes?;
        let index = indexes.into_iter().find(|described| described.index_name.as_deref() == Some(index))?;
        index.item_count.and_then(|count| u64::try_from(count).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_of_resharding_records_are_told_from_other_metadata() {
        assert_eq!(parse_key("reshard/T/ByTitle/Record"), Some(("T", "ByTitle", "Record")));
        assert_eq!(parse_key("reshard/T/ByTitle/Record/backfill/1/0"), None, "a segment's lease");
        assert_eq!(parse_key("T/ByTitle/partition"), None, "a dynamic count");
        assert_eq!(parse_key("feed/T/consumer"), None);
    }

    #[test]
    fn the_time_left_follows_the_rate_and_the_estimate() {
        let minute = 60_000;
        // 1,000 items in a minute, 4,000 estimated: three minutes left.
        let (rate, left) = estimate(1_000, (0, minute), (0, 8), Some(4_000));
        assert!((rate.unwrap() - 1_000.0 / 60.0).abs() < 1e-9);
        assert_eq!(left, Some(Duration::from_secs(180)));
        // A stale estimate: by the segments done (2 of 8 took a minute: three more).
        assert_eq!(estimate(1_000, (0, minute), (2, 8), Some(500)).1, Some(Duration::from_secs(180)));
        assert_eq!(estimate(1_000, (0, minute), (0, 8), None).1, None, "nothing to go by");
        assert_eq!(estimate(1_000, (0, minute), (8, 8), None).1, Some(Duration::ZERO));
        assert_eq!(estimate(0, (0, minute), (0, 8), Some(10)), (None, None), "no rate yet");
        assert_eq!(estimate(5, (minute, 0), (0, 8), Some(10)), (None, None), "a clock behind the start");
    }
}
