//! Reading and writing resharding records, one item of the shard metadata table each.

use super::store::Store;
use crate::error::{Error, Result};
use crate::metadata::table::{metadata_error, read_item, retrying, unless_condition_failed, PARTITION};
use crate::metadata::{Budget, MigrationKind, Phase, ReshardState, ScanPlan, ShardMetadata, Verified};
use aws_sdk_dynamodb::types::AttributeValue;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

const KIND: &str = "kind";
const PHASE: &str = "phase";
const SOURCE: &str = "source";
const TARGET: &str = "target";
const LAYOUT: &str = "layout";
const STARTED: &str = "started";
const FROZEN: &str = "frozen";
const FROZEN_SEEN: &str = "frozen_seen";
const FROZEN_BY: &str = "frozen_by";
const SCAN: &str = "scan";
/// The epoch of the recorded scan: what starting a new one is conditioned on.
const SCAN_EPOCH: &str = "scan_epoch";
const VERIFIED: &str = "verified";
const CAUGHT_UP: &str = "caught_up";

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
    pub db: Store<'a>,
    /// The shard metadata the records are kept in, and cached by.
    pub shards: Arc<ShardMetadata>,
}

impl Records<'_> {
    /// An update of the record under `key`.
    fn update(
        &self,
        key: &str,
    ) -> aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder {
        let request = self.db.client().update_item().table_name(self.shards.table());
        request.key(PARTITION, AttributeValue::S(key.to_owned()))
    }

    /// The record under `key`, if any (a strongly consistent read).
    pub async fn read(&self, key: &str) -> Result<Option<ReshardState>> {
        retrying(self.db, || self.read_once(key)).await
    }

    async fn read_once(&self, key: &str) -> Result<Option<ReshardState>> {
        let Some(item) = read_item(self.db, self.shards.table(), key).await? else { return Ok(None) };
        Ok(Some(ReshardState {
            // Absent from the records of a release that knew reshardings alone.
            kind: match item.get(KIND) {
                Some(value) => parse(key, Some(value), KIND)?,
                None => MigrationKind::Reshard,
            },
            source: parse::<String>(key, item.get(SOURCE), SOURCE)?,
            target: parse::<String>(key, item.get(TARGET), TARGET)?,
            layout: parse(key, item.get(LAYOUT), LAYOUT)?,
            phase: parse(key, item.get(PHASE), PHASE)?,
            started: number(item.get(STARTED)),
            segments: BTreeMap::new(),
            frozen: matches!(item.get(FROZEN), Some(AttributeValue::Bool(true))),
            frozen_seen: number(item.get(FROZEN_SEEN)),
            scan: match item.get(SCAN) {
                Some(value) => Some(parse(key, Some(value), SCAN)?),
                None => None,
            },
            verified: match item.get(VERIFIED) {
                Some(value) => Some(parse(key, Some(value), VERIFIED)?),
                None => None,
            },
            caught_up: number(item.get(CAUGHT_UP)),
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
            .item(KIND, text(&state.kind))
            .item(SOURCE, text(&state.source))
            .item(TARGET, text(&state.target))
            .item(LAYOUT, text(&state.layout))
            .item(PHASE, text(&state.phase))
            .item(STARTED, AttributeValue::N(state.started.to_string()))
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
            .update(key)
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

    /// Freezes existing items at `now`, in phase [`Phase::DualWrites`] only, or joins the freeze
    /// in force: returns its token (`token` for a new one), which renewals are conditioned on,
    /// or `None` when the record has left that phase. A freeze lifted and made again has a new
    /// token, so a worker of the old one can no longer renew it.
    pub async fn freeze(&self, key: &str, now: u64, token: &str) -> Result<Option<String>> {
        let result = self
            .update(key)
            .update_expression("SET #frozen = :true, #seen = :now, #by = if_not_exists(#by, :by)")
            .condition_expression("#phase = :phase")
            .expression_attribute_names("#frozen", FROZEN)
            .expression_attribute_names("#seen", FROZEN_SEEN)
            .expression_attribute_names("#by", FROZEN_BY)
            .expression_attribute_names("#phase", PHASE)
            .expression_attribute_values(":true", AttributeValue::Bool(true))
            .expression_attribute_values(":now", AttributeValue::N(now.to_string()))
            .expression_attribute_values(":by", AttributeValue::S(token.to_owned()))
            .expression_attribute_values(":phase", text(&Phase::DualWrites))
            .return_values(aws_sdk_dynamodb::types::ReturnValue::UpdatedNew)
            .send()
            .await;
        let applied = unless_condition_failed(result)
            .map_err(|error| metadata_error(self.shards.table(), "UpdateItem", error))?;
        let Some(output) = applied else { return Ok(None) };
        let token = output.attributes.and_then(|mut attributes| attributes.remove(FROZEN_BY));
        match token.and_then(|token| token.as_s().ok().cloned()) {
            Some(token) => Ok(Some(token)),
            None => Err(Error::ShardMetadataMalformed {
                partition: key.to_owned(),
                reason: "a freeze without its token".into(),
            }),
        }
    }

    /// Renews the freeze with token `owner` at `now`; returns whether it is still in force (nobody
    /// lifted it).
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
        let mut request = self.update(key).update_expression(update).condition_expression(condition);
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
            let request = self.update(key).expression_attribute_names("#verified", VERIFIED);
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

    /// Records that a catch-up applied the change log to its end at `now` (unix ms), unless a
    /// later one is recorded.
    pub async fn set_caught_up(&self, key: &str, now: u64) -> Result<()> {
        let result = self
            .update(key)
            .update_expression("SET #at = :now")
            .condition_expression("attribute_exists(#key) AND (attribute_not_exists(#at) OR #at < :now)")
            .expression_attribute_names("#at", CAUGHT_UP)
            .expression_attribute_names("#key", PARTITION)
            .expression_attribute_values(":now", AttributeValue::N(now.to_string()))
            .send()
            .await;
        unless_condition_failed(result)
            .map_err(|error| metadata_error(self.shards.table(), "UpdateItem", error))?;
        Ok(())
    }

    /// Records `plan` as the scan under way, if the one recorded is still of epoch `seen`
    /// (`None`: none was); returns whether it was written. Two workers starting a scan at once
    /// therefore agree on one.
    pub async fn start_scan(&self, key: &str, plan: &ScanPlan, seen: Option<u64>) -> Result<bool> {
        let request = self
            .update(key)
            .update_expression("SET #scan = :scan, #epoch = :epoch")
            .expression_attribute_names("#scan", SCAN)
            .expression_attribute_names("#epoch", SCAN_EPOCH)
            .expression_attribute_names("#key", PARTITION)
            .expression_attribute_values(":scan", text(plan))
            .expression_attribute_values(":epoch", AttributeValue::N(plan.epoch.to_string()));
        let request = match seen {
            None => request.condition_expression("attribute_exists(#key) AND attribute_not_exists(#epoch)"),
            Some(epoch) => request
                .condition_expression("attribute_exists(#key) AND #epoch = :seen")
                .expression_attribute_values(":seen", AttributeValue::N(epoch.to_string())),
        };
        let applied = unless_condition_failed(request.send().await)
            .map_err(|error| metadata_error(self.shards.table(), "UpdateItem", error))?;
        Ok(applied.is_some())
    }

    /// Sets the budget of the scan of epoch `epoch`, if it is still the one under way.
    pub async fn set_budget(&self, key: &str, plan: &ScanPlan, budget: Budget) -> Result<bool> {
        let plan = ScanPlan { budget, ..*plan };
        let result = self
            .update(key)
            .update_expression("SET #scan = :scan")
            .condition_expression("#epoch = :epoch")
            .expression_attribute_names("#scan", SCAN)
            .expression_attribute_names("#epoch", SCAN_EPOCH)
            .expression_attribute_values(":scan", text(&plan))
            .expression_attribute_values(":epoch", AttributeValue::N(plan.epoch.to_string()))
            .send()
            .await;
        let applied = unless_condition_failed(result)
            .map_err(|error| metadata_error(self.shards.table(), "UpdateItem", error))?;
        Ok(applied.is_some())
    }
}
