//! A Streams API record written as the JSON record of a Lambda event, the shape AWS documents for
//! DynamoDB Streams events: `eventID`, `eventName`, `eventVersion`, `eventSource`, `awsRegion`,
//! `eventSourceARN`, `userIdentity` (`type`, `principalId`) and `dynamodb` (`Keys`, `NewImage`,
//! `OldImage`, `SequenceNumber`, `SizeBytes`, `StreamViewType`, `ApproximateCreationDateTime` in
//! epoch seconds), attribute values in DynamoDB's JSON.

use aws_sdk_dynamodbstreams::types::{AttributeValue, Record};
use base64::Engine;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// The event of a batch of records: `{"Records": [...]}`.
pub(super) fn event(records: &[Value]) -> Value {
    json!({ "Records": records })
}

/// One record as a Lambda event holds it.
pub(super) fn record(record: &Record, stream_arn: &str) -> Value {
    let mut change = Map::new();
    if let Some(stream) = record.dynamodb() {
        if let Some(time) = stream.approximate_creation_date_time() {
            change.insert("ApproximateCreationDateTime".into(), json!(time.secs()));
        }
        change.insert("Keys".into(), image(stream.keys()));
        if let Some(new) = stream.new_image() {
            change.insert("NewImage".into(), image(Some(new)));
        }
        if let Some(old) = stream.old_image() {
            change.insert("OldImage".into(), image(Some(old)));
        }
        if let Some(sequence_number) = stream.sequence_number() {
            change.insert("SequenceNumber".into(), json!(sequence_number));
        }
        if let Some(size) = stream.size_bytes() {
            change.insert("SizeBytes".into(), json!(size));
        }
        if let Some(view) = stream.stream_view_type() {
            change.insert("StreamViewType".into(), json!(view.as_str()));
        }
    }
    let mut event = Map::new();
    event.insert("eventID".into(), json!(record.event_id().unwrap_or_default()));
    event
        .insert("eventName".into(), json!(record.event_name().map(|name| name.as_str()).unwrap_or_default()));
    event.insert("eventVersion".into(), json!(record.event_version().unwrap_or("1.1")));
    event.insert("eventSource".into(), json!(record.event_source().unwrap_or("aws:dynamodb")));
    event.insert("awsRegion".into(), json!(record.aws_region().unwrap_or("us-east-1")));
    event.insert("eventSourceARN".into(), json!(stream_arn));
    if let Some(identity) = record.user_identity() {
        event.insert(
            "userIdentity".into(),
            json!({
                "type": identity.r#type().unwrap_or_default(),
                "principalId": identity.principal_id().unwrap_or_default(),
            }),
        );
    }
    event.insert("dynamodb".into(), Value::Object(change));
    Value::Object(event)
}

/// An item's attributes in DynamoDB's JSON.
fn image(item: Option<&HashMap<String, AttributeValue>>) -> Value {
    let attributes = item.into_iter().flatten().map(|(name, value)| (name.clone(), attribute(value)));
    Value::Object(attributes.collect())
}

/// One attribute value in DynamoDB's JSON (`{"S": "..."}`, binary as base64).
fn attribute(value: &AttributeValue) -> Value {
    let base64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    match value {
        AttributeValue::S(text) => json!({ "S": text }),
        AttributeValue::N(number) => json!({ "N": number }),
        AttributeValue::B(blob) => json!({ "B": base64(blob.as_ref()) }),
        AttributeValue::Bool(flag) => json!({ "BOOL": flag }),
        AttributeValue::Null(flag) => json!({ "NULL": flag }),
        AttributeValue::Ss(texts) => json!({ "SS": texts }),
        AttributeValue::Ns(numbers) => json!({ "NS": numbers }),
        AttributeValue::Bs(blobs) => {
            json!({ "BS": blobs.iter().map(|blob| base64(blob.as_ref())).collect::<Vec<_>>() })
        }
        AttributeValue::L(values) => json!({ "L": values.iter().map(attribute).collect::<Vec<_>>() }),
        AttributeValue::M(map) => json!({ "M": image(Some(map)) }),
        // A type newer than this SDK (none exists today): written as no value, as it cannot be read.
        _ => json!({ "NULL": true }),
    }
}
