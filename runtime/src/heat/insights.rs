//! A CloudWatch Contributor Insights report of a DynamoDB table or index (the JSON of
//! `GetInsightRuleReport`, as `aws cloudwatch get-insight-rule-report` prints it) as heat.
//!
//! DynamoDB's rules for a table or index with Contributor Insights on
//! (`ACCESSED_AND_THROTTLED_KEYS`, or `THROTTLED_KEYS`) name the partition keys that consumed
//! the most units (`...-PKC-...`) and were throttled the most (`...-PKT-...`), each a series of
//! datapoints a period.

use super::map::{HeatCell, HeatMapBuilder};
use crate::consumption::KeyPlace;
use serde::Deserialize;

/// A `GetInsightRuleReport` response: the fields a heat map reads.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct InsightsReport {
    /// What each contributor's keys are (`PartitionKey`, `SortKey`).
    #[serde(default)]
    pub key_labels: Vec<String>,
    /// The contributors: keys and their datapoints.
    #[serde(default)]
    pub contributors: Vec<Contributor>,
}

/// One contributor of a report: a key (or key and sort key) and its values over time.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Contributor {
    /// The key's parts, as `key_labels` names them.
    #[serde(default)]
    pub keys: Vec<String>,
    /// Its value in each period.
    #[serde(default)]
    pub datapoints: Vec<Datapoint>,
}

/// A contributor's value in one period.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Datapoint {
    /// The period's start, RFC 3339 (`2026-11-27T09:00:00+00:00`).
    pub timestamp: String,
    /// The value: units consumed, or requests throttled.
    pub approximate_value: f64,
}

/// What a report's values count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InsightsKind {
    /// Units consumed (a `...-PKC-...` rule: reads and writes together, measured against the
    /// write rate).
    Consumed,
    /// Requests throttled (a `...-PKT-...` rule).
    Throttled,
}

/// Why a report could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InsightsError {
    /// It is not a `GetInsightRuleReport` response.
    #[error("not a Contributor Insights report: {0}")]
    Malformed(#[from] serde_json::Error),
    /// A datapoint's time is not RFC 3339.
    #[error("a datapoint's time {0:?} is not RFC 3339")]
    Timestamp(String),
}

impl InsightsReport {
    /// Reads a report from the JSON `GetInsightRuleReport` returns.
    pub fn from_json(json: &str) -> Result<Self, InsightsError> {
        Ok(serde_json::from_str(json)?)
    }
}

impl HeatMapBuilder {
    /// Adds a Contributor Insights report of `table` (its `index`, when the rule is an
    /// index's): each contributor's partition key, its value in each period as `kind` says.
    pub fn add_insights(
        &mut self,
        report: &InsightsReport,
        (table, index): (&str, Option<&str>),
        kind: InsightsKind,
    ) -> Result<(), InsightsError> {
        let partition = report.key_labels.iter().position(|label| label == "PartitionKey").unwrap_or(0);
        for contributor in &report.contributors {
            let Some(key) = contributor.keys.get(partition) else { continue };
            let place = KeyPlace {
                table: table.to_owned(),
                index: index.map(str::to_owned),
                partition_key: key.clone(),
            };
            for point in &contributor.datapoints {
                let at = epoch_ms(&point.timestamp)?;
                let value = point.approximate_value;
                let cell = match kind {
                    InsightsKind::Consumed => HeatCell { write_units: value, ..HeatCell::default() },
                    InsightsKind::Throttled => {
                        let throttles =
                            if value.is_finite() && value > 0.0 { value.round() as u64 } else { 0 };
                        HeatCell { throttles, ..HeatCell::default() }
                    }
                };
                self.add(at, place.clone(), cell);
            }
        }
        Ok(())
    }
}

/// An RFC 3339 time in milliseconds since the Unix epoch (none before it: 0).
fn epoch_ms(text: &str) -> Result<u64, InsightsError> {
    let at = time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .map_err(|_| InsightsError::Timestamp(text.to_owned()))?;
    Ok(u64::try_from(at.unix_timestamp_nanos() / 1_000_000).unwrap_or(0))
}
