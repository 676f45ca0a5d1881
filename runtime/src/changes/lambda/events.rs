//! The records a Lambda function receives from a table's stream: the event's JSON, and the
//! `aws_lambda_events` crate's model of it (feature `lambda`).

use crate::changes::{by_time_to_live, invalid, kind_of, ChangeRecord};
use crate::error::Result;
use serde::Deserialize;
use time::OffsetDateTime;

/// A Lambda event of a DynamoDB stream, as its JSON has it: its records are read one by one.
#[derive(Deserialize)]
struct Event {
    #[serde(rename = "Records")]
    records: Vec<serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct EventRecord {
    #[serde(rename = "eventID", default)]
    event_id: Option<String>,
    event_name: String,
    #[serde(default)]
    user_identity: Option<UserIdentity>,
    dynamodb: StreamRecord,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct UserIdentity {
    #[serde(default)]
    principal_id: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct StreamRecord {
    #[serde(default)]
    approximate_creation_date_time: Option<f64>,
    keys: serde_dynamo::Item,
    #[serde(default)]
    old_image: Option<serde_dynamo::Item>,
    #[serde(default)]
    new_image: Option<serde_dynamo::Item>,
    #[serde(default)]
    sequence_number: Option<String>,
}

impl ChangeRecord {
    /// The records of a Lambda event of a table's stream, from its JSON (`{"Records": [...]}`),
    /// each decoded on its own: a record that is not one of the table's changes is an
    /// [`Error::InvalidChangeRecord`](crate::Error::InvalidChangeRecord) of its own, carrying its
    /// `eventID` and sequence number, so that a handler reports exactly the bad ones (the
    /// sequence number is the `itemIdentifier` of `batchItemFailures`) and goes on with the
    /// rest. Fails as a whole only when the JSON is not a stream event at all.
    pub fn from_lambda_json(json: &str) -> Result<Vec<Result<ChangeRecord>>> {
        let event: Event =
            serde_json::from_str(json).map_err(|error| invalid(format!("not a stream event: {error}")))?;
        Ok(event.records.into_iter().map(ChangeRecord::from_lambda_value).collect())
    }

    /// One record of an event, or why it is not a change, naming it.
    fn from_lambda_value(value: serde_json::Value) -> Result<ChangeRecord> {
        let text =
            |value: Option<&serde_json::Value>| value.and_then(serde_json::Value::as_str).map(str::to_owned);
        let event_id = text(value.get("eventID"));
        let sequence_number = text(value.get("dynamodb").and_then(|change| change.get("SequenceNumber")));
        let named = |error: crate::error::Error| match error {
            crate::error::Error::InvalidChangeRecord { reason, .. } => {
                crate::error::Error::InvalidChangeRecord {
                    reason,
                    event_id: event_id.clone(),
                    sequence_number: sequence_number.clone(),
                }
            }
            other => other,
        };
        let record: EventRecord = serde_json::from_value(value)
            .map_err(|error| named(invalid(format!("not a stream record: {error}"))))?;
        ChangeRecord::try_from_lambda(record).map_err(named)
    }

    fn try_from_lambda(record: EventRecord) -> Result<ChangeRecord> {
        let kind = kind_of(&record.event_name)?;
        let change = record.dynamodb;
        Ok(ChangeRecord {
            event_id: record.event_id,
            kind,
            keys: change.keys.into(),
            old_image: change.old_image.map(Into::into),
            new_image: change.new_image.map(Into::into),
            sequence_number: change.sequence_number,
            approximate_time: change.approximate_creation_date_time.and_then(from_epoch_seconds),
            by_time_to_live: by_time_to_live(
                kind,
                record.user_identity.and_then(|user| user.principal_id).as_deref(),
            ),
        })
    }
}

/// A time given as epoch seconds with a fraction (AWS sends whole seconds, DynamoDB Local
/// milliseconds), to the millisecond.
fn from_epoch_seconds(seconds: f64) -> Option<OffsetDateTime> {
    if !seconds.is_finite() {
        return None;
    }
    let millis = (seconds * 1000.0).round() as i128;
    OffsetDateTime::from_unix_timestamp_nanos(millis.checked_mul(1_000_000)?).ok()
}

#[cfg(feature = "lambda")]
impl TryFrom<aws_lambda_events::event::dynamodb::EventRecord> for ChangeRecord {
    type Error = crate::error::Error;

    /// Fails on an event name other than `INSERT`, `MODIFY` and `REMOVE`. The model reads an
    /// absent image as an empty one, so an empty image is taken as absent.
    fn try_from(record: aws_lambda_events::event::dynamodb::EventRecord) -> Result<Self> {
        let kind = kind_of(&record.event_name)?;
        let change = record.change;
        let image = |item: serde_dynamo::Item| {
            let item: crate::error::Item = item.into();
            (!item.is_empty()).then_some(item)
        };
        let nanos = change.approximate_creation_date_time.timestamp_nanos_opt().map(i128::from);
        Ok(ChangeRecord {
            event_id: Some(record.event_id).filter(|id| !id.is_empty()),
            kind,
            keys: change.keys.into(),
            old_image: image(change.old_image),
            new_image: image(change.new_image),
            sequence_number: change.sequence_number,
            approximate_time: nanos
                .filter(|nanos| *nanos != 0)
                .and_then(|nanos| OffsetDateTime::from_unix_timestamp_nanos(nanos).ok()),
            by_time_to_live: by_time_to_live(
                kind,
                record.user_identity.as_ref().map(|user| user.principal_id.as_str()),
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_seconds_read_to_the_millisecond_and_extremes_are_no_time() {
        let time = from_epoch_seconds(1_764_044_000.123).expect("a time");
        assert_eq!(time.unix_timestamp_nanos(), 1_764_044_000_123_000_000);
        for extreme in [f64::MAX, f64::MIN, 1e300, f64::NAN, f64::INFINITY, -1e15] {
            assert_eq!(from_epoch_seconds(extreme), None, "{extreme}");
        }
    }
}
