//! A counter of fences shared by a family of leases (the shards of one change feed).

use super::lease::number;
use super::store::Store;
use crate::error::{Error, Result};
use crate::metadata::table::{metadata_error, unless_condition_failed, PARTITION};
use aws_sdk_dynamodb::types::AttributeValue;

/// A counter of fences shared by a family of leases (the shards of one change feed), one item of
/// the metadata table. Every value it hands out is above every value it handed out before, so a
/// lease acquired with a value taken after another lease's acquisition has the higher fence; and
/// above the fence its caller saw, so a lease whose fence grew before the counter existed (or
/// apart from it) still gets a higher one. Never deleted, so that fences keep growing over a
/// feed's resets.
pub(crate) struct Fences<'a> {
    pub db: Store<'a>,
    pub table: &'a str,
    pub key: &'a str,
}

impl Fences<'_> {
    /// A value above every value handed out before and above `seen`: the counter raised by one,
    /// or, when that is not above `seen`, set to `seen + 1` on the condition that it is still
    /// below it (another process that sets it first makes this one count on).
    pub async fn above(&self, seen: u64) -> Result<u64> {
        loop {
            let next = self.add_one().await?;
            if next > seen {
                return Ok(next);
            }
            let target = seen.saturating_add(1);
            let result = self
                .update()
                .update_expression("SET #fences = :target")
                .condition_expression("#fences < :target")
                .expression_attribute_names("#fences", "fences")
                .expression_attribute_values(":target", number(target))
                .send()
                .await;
            let set = unless_condition_failed(result)
                .map_err(|error| metadata_error(self.table, "UpdateItem", error))?;
            if set.is_some() {
                return Ok(target);
            }
        }
    }

    /// The counter raised by one (from 0).
    async fn add_one(&self) -> Result<u64> {
        let output = self
            .update()
            .update_expression("ADD #fences :one")
            .expression_attribute_names("#fences", "fences")
            .expression_attribute_values(":one", number(1))
            .return_values(aws_sdk_dynamodb::types::ReturnValue::UpdatedNew)
            .send()
            .await
            .map_err(|error| metadata_error(self.table, "UpdateItem", error))?;
        let value = output.attributes.as_ref().and_then(|item| item.get("fences")?.as_n().ok()?.parse().ok());
        value.ok_or_else(|| Error::ShardMetadataMalformed {
            partition: self.key.to_owned(),
            reason: "a fence counter that is not a number".into(),
        })
    }

    fn update(&self) -> aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder {
        self.db
            .client()
            .update_item()
            .table_name(self.table)
            .key(PARTITION, AttributeValue::S(self.key.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::lease::{LeaseRecord, Leases};
    use crate::metadata::table::put_new;
    use std::collections::HashSet;

    #[tokio::test]
    async fn fences_grow_past_every_value_handed_out_and_every_fence_seen() {
        let embedded = dynashard_local::Embedded::start().expect("the embedded DynamoDB");
        let client = crate::client::client_for_endpoint(embedded.endpoint());
        use aws_sdk_dynamodb::types::{
            AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
        };
        let attribute =
            AttributeDefinition::builder().attribute_name(PARTITION).attribute_type(ScalarAttributeType::S);
        let key = KeySchemaElement::builder().attribute_name(PARTITION).key_type(KeyType::Hash);
        client
            .create_table()
            .table_name("FenceCounterTests")
            .attribute_definitions(attribute.build().unwrap())
            .key_schema(key.build().unwrap())
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .await
            .expect("the metadata table");
        let store = Store::new(&client, crate::retry::RetryPolicy::DEFAULT);
        let fences = Fences { db: store, table: "FenceCounterTests", key: "fence/T/consumer" };
        assert_eq!(fences.above(0).await.unwrap(), 1);
        assert_eq!(fences.above(1).await.unwrap(), 2);
        // A shard whose fence grew apart from the counter (a feed begun before it): above that,
        // and every value after it above it too, whatever shard asks (its children among them).
        assert_eq!(fences.above(50_000).await.unwrap(), 50_001);
        assert_eq!(fences.above(0).await.unwrap(), 50_002);
        // Many takers at once: every value its own.
        let taken = futures::future::join_all((0..8).map(|_| fences.above(60_000))).await;
        let taken: HashSet<u64> = taken.into_iter().map(|value| value.unwrap()).collect();
        assert_eq!(taken.len(), 8, "{taken:?}");
        assert!(taken.iter().all(|value| *value > 60_000), "{taken:?}");
        assert!(fences.above(0).await.unwrap() > *taken.iter().max().unwrap());

        // An acquisition takes the counter's value as its fence, or above what it saw.
        let leases = Leases { db: store, table: "FenceCounterTests" };
        let seen = LeaseRecord { fence: 7, ..LeaseRecord::default() };
        put_new(store, "FenceCounterTests", "lease", serde_dynamo::to_item(&seen).unwrap()).await.unwrap();
        let lease = leases.acquire("lease", Some(&seen), "me", 70_000).await.unwrap().expect("taken");
        assert_eq!(lease.fence, 70_000);
        let seen = LeaseRecord { owner: Some("me".into()), fence: 70_000, beat: 1, ..LeaseRecord::default() };
        let again = leases.acquire("lease", Some(&seen), "me", 0).await.unwrap().expect("taken");
        assert_eq!(again.fence, 70_001);
    }
}
