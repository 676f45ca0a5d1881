//! The records of the DynamoDB Streams API (`GetRecords`), as `aws-sdk-dynamodbstreams` models
//! them.

use super::ChangeRecord;
use super::{by_time_to_live, invalid, kind_of};
use crate::error::{Error, Item, Result};
use aws_sdk_dynamodb::types::AttributeValue;
use aws_sdk_dynamodbstreams::types::{AttributeValue as StreamValue, Record};
use std::collections::HashMap;
use time::OffsetDateTime;

impl TryFrom<&Record> for ChangeRecord {
    type Error = Error;

    /// Fails on a record without its change (`dynamodb`) or event name, or holding an attribute
    /// value of a type this SDK does not know.
    fn try_from(record: &Record) -> Result<Self> {
        let kind = kind_of(record.event_name().map(|name| name.as_str()).unwrap_or_default())?;
        let change = record.dynamodb().ok_or_else(|| invalid("the record holds no change"))?;
        let image = |image: Option<&HashMap<String, StreamValue>>| image.map(item).transpose();
        let principal = record.user_identity().and_then(|identity| identity.principal_id());
        Ok(ChangeRecord {
            event_id: record.event_id().map(str::to_owned),
            kind,
            keys: image(change.keys())?.unwrap_or_default(),
            old_image: image(change.old_image())?,
            new_image: image(change.new_image())?,
            sequence_number: change.sequence_number().map(str::to_owned),
            approximate_time: change
                .approximate_creation_date_time()
                .and_then(|time| OffsetDateTime::from_unix_timestamp_nanos(time.as_nanos()).ok()),
            by_time_to_live: by_time_to_live(kind, principal),
        })
    }
}

fn item(image: &HashMap<String, StreamValue>) -> Result<Item> {
    image.iter().map(|(name, value)| Ok((name.clone(), value_of(value)?))).collect()
}

/// The DynamoDB SDK's value for a Streams SDK value.
fn value_of(value: &StreamValue) -> Result<AttributeValue> {
    Ok(match value {
        StreamValue::S(text) => AttributeValue::S(text.clone()),
        StreamValue::N(number) => AttributeValue::N(number.clone()),
        StreamValue::B(bytes) => AttributeValue::B(bytes.clone()),
        StreamValue::Ss(texts) => AttributeValue::Ss(texts.clone()),
        StreamValue::Ns(numbers) => AttributeValue::Ns(numbers.clone()),
        StreamValue::Bs(bytes) => AttributeValue::Bs(bytes.clone()),
        StreamValue::Bool(flag) => AttributeValue::Bool(*flag),
        StreamValue::Null(flag) => AttributeValue::Null(*flag),
        StreamValue::L(values) => AttributeValue::L(values.iter().map(value_of).collect::<Result<_>>()?),
        StreamValue::M(values) => AttributeValue::M(item(values)?),
        _ => return Err(invalid("an attribute value of a type this SDK does not know")),
    })
}
