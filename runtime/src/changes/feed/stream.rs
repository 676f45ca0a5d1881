//! The table's stream as the Streams API describes it: its ARN, its shards and their lineage,
//! and the feed's own record of the shards it has seen.

use super::lineage::ListedShard;
use crate::db::Db;
use crate::error::{Error, Result};
use crate::metadata::items::delete_items;
use crate::metadata::table::{metadata_error, put_new, unless_condition_failed, PARTITION};
use aws_sdk_dynamodb::types::AttributeValue;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The ARN of the stream of the table named `table`, and its view type; [`Error::StreamRequired`]
/// when the table has none turned on.
pub(crate) async fn stream_of(db: &Db, table: &str) -> Result<(String, Option<String>)> {
    let described = db
        .client()
        .describe_table()
        .table_name(table)
        .send()
        .await
        .map_err(|error| Error::from_sdk("DescribeTable", error))?;
    let description = described.table.ok_or_else(|| Error::StreamRequired { table: table.to_owned() })?;
    let enabled = description.stream_specification().is_some_and(|stream| stream.stream_enabled());
    let view = description
        .stream_specification()
        .and_then(|stream| stream.stream_view_type())
        .map(|view| view.as_str().to_owned());
    match (enabled, description.latest_stream_arn()) {
        (true, Some(arn)) => Ok((arn.to_owned(), view)),
        _ => Err(Error::StreamRequired { table: table.to_owned() }),
    }
}

/// Every shard the stream `arn` lists now, oldest first as listed.
pub(crate) async fn list_shards(db: &Db, arn: &str) -> Result<Vec<ListedShard>> {
    let mut shards = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let described = db
            .streams()
            .await
            .describe_stream()
            .stream_arn(arn)
            .set_exclusive_start_shard_id(after.take())
            .send()
            .await
            .map_err(|error| Error::from_sdk("DescribeStream", error))?;
        let Some(description) = described.stream_description else { break };
        for shard in description.shards() {
            if let Some(id) = shard.shard_id() {
                let range = shard.sequence_number_range();
                shards.push(ListedShard {
                    id: id.to_owned(),
                    parent: shard.parent_shard_id().map(str::to_owned),
                    ending: range.and_then(|range| range.ending_sequence_number()).map(str::to_owned),
                });
            }
        }
        match description.last_evaluated_shard_id {
            Some(last) => after = Some(last),
            None => break,
        }
    }
    Ok(shards)
}

/// A feed as recorded in the shard metadata table: the stream it reads and the shards it has
/// seen and not yet forgotten.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FeedRecord {
    /// The ARN of the stream the feed began on.
    pub stream: String,
    /// The shards recorded.
    #[serde(with = "serde_dynamo::string_set", default, skip_serializing_if = "BTreeSet::is_empty")]
    pub shards: BTreeSet<String>,
}

/// The feed record under `key` of the metadata table `table`.
pub(crate) struct FeedRecords<'a> {
    pub db: &'a Db,
    pub table: &'a str,
    pub key: &'a str,
}

impl FeedRecords<'_> {
    /// The record, if the feed was ever read.
    pub async fn read(&self) -> Result<Option<FeedRecord>> {
        let Some(item) = crate::metadata::table::read_item(self.db, self.table, self.key).await? else {
            return Ok(None);
        };
        serde_dynamo::from_item(item).map(Some).map_err(|_| Error::ShardMetadataMalformed {
            partition: self.key.to_owned(),
            reason: "bad change feed record".into(),
        })
    }

    /// Records the feed's first pass; `false` when another process recorded it first.
    pub async fn create(&self, record: &FeedRecord) -> Result<bool> {
        put_new(self.db, self.table, self.key, serde_dynamo::to_item(record)?).await
    }

    /// Adds `shards` to the record of the feed of stream `arn` (`add`) or takes them out of it;
    /// `false` when the record is gone or of another stream (the feed was reset meanwhile).
    pub async fn change(&self, arn: &str, shards: &[String], add: bool) -> Result<bool> {
        if shards.is_empty() {
            return Ok(true);
        }
        let update = if add { "ADD #shards :shards" } else { "DELETE #shards :shards" };
        let result = self
            .db
            .client()
            .update_item()
            .table_name(self.table)
            .key(PARTITION, AttributeValue::S(self.key.to_owned()))
            .update_expression(update)
            .condition_expression("attribute_exists(#key) AND #stream = :stream")
            .expression_attribute_names("#key", PARTITION)
            .expression_attribute_names("#stream", "stream")
            .expression_attribute_names("#shards", "shards")
            .expression_attribute_values(":stream", AttributeValue::S(arn.to_owned()))
            .expression_attribute_values(":shards", AttributeValue::Ss(shards.to_vec()))
            .send()
            .await;
        let changed = unless_condition_failed(result)
            .map_err(|error| metadata_error(self.table, "UpdateItem", error))?;
        Ok(changed.is_some())
    }

    /// Deletes the record and the lease items under `leases` (a feed that starts over).
    pub async fn delete(&self, leases: &[String]) -> Result<()> {
        delete_items(self.db, self.table, leases.iter().map(String::as_str).chain([self.key])).await
    }
}
