//! Reading and writing resharding records, one item of the shard metadata table each.

use crate::db::Db;
use crate::dynamic::metadata::{metadata_error, read_item, retrying, unless_condition_failed, PARTITION};
use crate::error::{Error, Result};
use crate::metadata::{Phase, ReshardState, SegmentProgress, ShardMetadata, Verified};
use aws_sdk_dynamodb::types::AttributeValue;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

const PHASE: &str = "phase";
const SOURCE: &str = "source";
const TARGET: &str = "target";
const LAYOUT: &str = "layout";
const STARTED: &str = "started";
const SEGMENTS: &str = "segments";
const FROZEN: &str = "frozen";
const FROZEN_SEEN: &str = "frozen_seen";
const FROZEN_BY: &str = "frozen_by";
const SCAN_TABLE: &str = "scan_table";
const VERIFIED: &str = "verified";

fn text<T: Serialize>(value: &T) -> AttributeValue {
    AttributeValue::S(serde_json::to_string(value).unwrap_or_default())
}

fn parse<T: for<'de> Deserialize<'de>>(key: &str, value: Option<&AttributeValue>, what: &str) -> Result<T> {
    let malformed =
        || Error::ShardMetadataMalformed { partition: key.to_owned(), reason: format!("bad `{what}`") };
    let value = value.and_then(|value| value.as_s().ok()).ok_or_else(malformed)?;
    serde_json::from_str(value).map_err(|_| malformed())
}

fn number(value: Option<&AttributeValue>) -> u64 {
    value.and_then(|value| value.as_n().ok()).and_then(|value| value.parse().ok()).unwrap_or(0)
}

/// Reads and writes resharding records in the metadata table `table`.
pub(crate) struct Records<'a> {
    pub db: &'a Db,
    /// The shard metadata the records are kept in, and cached by.
    pub shards: Arc<ShardMetadata>,
}

impl Records<'_> {
    /// The record under `key`, if any (a strongly consistent read).
    pub async fn read(&self, key: &str) -> Result<Option<ReshardState>> {
        retrying(self.db, || self.read_once(key)).await
    }

    async fn read_once(&self, key: &str) -> Result<Option<ReshardState>> {
        let Some(item) = read_item(self.db, self.shards.table(), key).await? else { return Ok(None) };
        let segments = match item.get(SEGMENTS) {
            Some(AttributeValue::M(segments)) => segments
                .iter()
                .map(|(number, progress)| {
                    let number = number.parse::<u32>().map_err(|_| Error::ShardMetadataMalformed {
                        partition: key.to_owned(),
                        reason: "bad segment number".into(),
                    })?;
                    Ok((number, parse(key, Some(progress), SEGMENTS)?))
                })
                .collect::<Result<_>>()?,
            _ => BTreeMap::new(),
        };
        Ok(Some(ReshardState {
            source: parse::<String>(key, item.get(SOURCE), SOURCE)?,
            target: parse::<String>(key, item.get(TARGET), TARGET)?,
            layout: parse(key, item.get(LAYOUT), LAYOUT)?,
            phase: parse(key, item.get(PHASE), PHASE)?,
            started: number(item.get(STARTED)),
            segments,
            frozen: matches!(item.get(FROZEN), Some(AttributeValue::Bool(true))),
            frozen_seen: number(item.get(FROZEN_SEEN)),
            scan_table: matches!(item.get(SCAN_TABLE), Some(AttributeValue::Bool(true))),
            verified: match item.get(VERIFIED) {
                Some(value) => Some(parse(key, Some(value), VERIFIED)?),
                None => None,
            },
        }))
    }

    /// Records `state` unless a record exists; returns whether it was written.
    pub async fn create(&self, key: &str, state: &ReshardState) -> Result<bool> {
        let result = self
            .db
            .client()
            .put_item()
            .table_name(self.shards.table())
            .item(PARTITION, AttributeValue::S(key.to_owned()))
            .item(SOURCE, text(&state.source))
            .item(TARGET, text(&state.target))
            .item(LAYOUT, text(&state.layout))
            .item(PHASE, text(&state.phase))
            .item(STARTED, AttributeValue::N(state.started.to_string()))
            .item(SEGMENTS, AttributeValue::M(HashMap::new()))
            .condition_expression("attribute_not_exists(#p)")
            .expression_attribute_names("#p", PARTITION)
            .send()
            .await;
        let applied = unless_condition_failed(result)
            .map_err(|error| metadata_error(self.shards.table(), "PutItem", error))?;
        Ok(applied.is_some())
    }

    /// Moves the record from phase `from` to `to`; returns whether it was in `from`.
    pub async fn advance(&self, key: &str, from: Phase, to: Phase) -> Result<bool> {
        let result = self
            .db
            .client()
            .update_item()
            .table_name(self.shards.table())
            .key(PARTITION, AttributeValue::S(key.to_owned()))
            .update_expression("SET #phase = :to REMOVE #frozen, #seen, #by")
            .condition_expression("#phase = :from")
            .expression_attribute_names("#phase", PHASE)
            .expression_attribute_names("#frozen", FROZEN)
            .expression_attribute_names("#seen", FROZEN_SEEN)
            .expression_attribute_names("#by", FROZEN_BY)
            .expression_attribute_values(":to", text(&to))
            .expression_attribute_values(":from", text(&from))
            .send()
            .await;
        let applied = unless_condition_failed(result)
            .map_err(|error| metadata_error(self.shards.table(), "UpdateItem", error))?;
        Ok(applied.is_some())
    }

    /// Freezes existing items at `now` for the backfill run `owner` (taking the freeze over from
    /// any other run), in phase [`Phase::DualWrites`] only; returns whether the record was in
    /// that phase.
    pub async fn freeze(&self, key: &str, now: u64, owner: &str) -> Result<bool> {
        let update = "SET #frozen = :true, #seen = :now, #by = :by";
        self.change_freeze(key, update, "#phase = :phase", (now, 0, owner)).await
    }

    /// Renews `owner`'s freeze at `now`; returns whether it still held it (nobody lifted it or
    /// took it over).
    pub async fn renew_freeze(&self, key: &str, now: u64, owner: &str) -> Result<bool> {
        let condition = "#frozen = :true AND #by = :by";
        retrying(self.db, || self.change_freeze(key, "SET #seen = :now", condition, (now, 0, owner))).await
    }

    /// Lifts the freeze, if it was last renewed at `seen`; returns whether it was.
    pub async fn lift_freeze(&self, key: &str, seen: u64) -> Result<bool> {
        let condition = "#frozen = :true AND #seen = :seen";
        self.change_freeze(key, "REMOVE #frozen, #seen, #by", condition, (0, seen, "")).await
    }

    async fn change_freeze(
        &self,
        key: &str,
        update: &str,
        condition: &str,
        (now, seen, owner): (u64, u64, &str),
    ) -> Result<bool> {
        let mut request = self
            .db
            .client()
            .update_item()
            .table_name(self.shards.table())
            .key(PARTITION, AttributeValue::S(key.to_owned()))
            .update_expression(update)
            .condition_expression(condition);
        let uses = |placeholder: &str| update.contains(placeholder) || condition.contains(placeholder);
        for (placeholder, name) in
            [("#frozen", FROZEN), ("#seen", FROZEN_SEEN), ("#by", FROZEN_BY), ("#phase", PHASE)]
        {
            if uses(placeholder) {
                request = request.expression_attribute_names(placeholder, name);
            }
        }
        let values = [
            (":true", AttributeValue::Bool(true)),
            (":now", AttributeValue::N(now.to_string())),
            (":phase", text(&Phase::DualWrites)),
            (":seen", AttributeValue::N(seen.to_string())),
            (":by", AttributeValue::S(owner.to_owned())),
        ];
        for (placeholder, value) in values {
            if uses(placeholder) {
                request = request.expression_attribute_values(placeholder, value);
            }
        }
        let applied = unless_condition_failed(request.send().await)
            .map_err(|error| metadata_error(self.shards.table(), "UpdateItem", error))?;
        Ok(applied.is_some())
    }

    /// Records the last verification (`None`: forgets it, as a new backfill pass does).
    pub async fn set_verified(&self, key: &str, verified: Option<Verified>) -> Result<()> {
        let request = || {
            let request = self.db.client().update_item().table_name(self.shards.table());
            let request = request.key(PARTITION, AttributeValue::S(key.to_owned()));
            let request = request.expression_attribute_names("#verified", VERIFIED);
            match verified {
                Some(verified) => request
                    .update_expression("SET #verified = :verified")
                    .expression_attribute_values(":verified", text(&verified)),
                None => request.update_expression("REMOVE #verified"),
            }
            .condition_expression("attribute_exists(#key)")
            .expression_attribute_names("#key", PARTITION)
            .send()
        };
        retrying(self.db, || async {
            request()
                .await
                .map(|_| ())
                .map_err(|error| metadata_error(self.shards.table(), "UpdateItem", error))
        })
        .await
    }

    /// Starts the backfill's positions over: `segments` segments, none begun, of a scan of the
    /// table (`scan_table`) or of the source index.
    pub async fn start_segments(&self, key: &str, segments: u32, scan_table: bool) -> Result<()> {
        let fresh = (0..segments).map(|segment| (segment.to_string(), text(&SegmentProgress::default())));
        let request = || {
            self.db
                .client()
                .update_item()
                .table_name(self.shards.table())
                .key(PARTITION, AttributeValue::S(key.to_owned()))
                .update_expression("SET #segments = :segments, #scan = :scan")
                .expression_attribute_names("#segments", SEGMENTS)
                .expression_attribute_names("#scan", SCAN_TABLE)
                .expression_attribute_values(":segments", AttributeValue::M(fresh.clone().collect()))
                .expression_attribute_values(":scan", AttributeValue::Bool(scan_table))
                .send()
        };
        retrying(self.db, || async {
            request()
                .await
                .map(|_| ())
                .map_err(|error| metadata_error(self.shards.table(), "UpdateItem", error))
        })
        .await
    }

    /// Records the progress of backfill segment `segment`.
    pub async fn save_progress(&self, key: &str, segment: u32, progress: &SegmentProgress) -> Result<()> {
        retrying(self.db, || self.save_progress_once(key, segment, progress)).await
    }

    async fn save_progress_once(&self, key: &str, segment: u32, progress: &SegmentProgress) -> Result<()> {
        self.db
            .client()
            .update_item()
            .table_name(self.shards.table())
            .key(PARTITION, AttributeValue::S(key.to_owned()))
            .update_expression("SET #segments.#n = :progress")
            .expression_attribute_names("#segments", SEGMENTS)
            .expression_attribute_names("#n", segment.to_string())
            .expression_attribute_values(":progress", text(progress))
            .send()
            .await
            .map_err(|error| metadata_error(self.shards.table(), "UpdateItem", error))?;
        Ok(())
    }
}
