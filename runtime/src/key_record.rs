//! Key attributes as records store them (cursors, fingerprints, backfill progress): a derived
//! serde shape of DynamoDB's own key types, independent of the AWS SDK's.

use crate::error::{CursorError, Item};
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// One key attribute as a cursor stores it: `{"S": text}`, `{"N": digits}` or `{"B": base64url}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) enum AttributeRecord {
    S(String),
    N(String),
    B(String),
}

/// Key attributes by name, in name order.
pub(crate) type KeyRecord = BTreeMap<String, AttributeRecord>;

/// A key attribute's value as a cursor stores it; `None` for a type no key attribute has.
pub(crate) fn attribute_record(value: &AttributeValue) -> Option<AttributeRecord> {
    match value {
        AttributeValue::S(text) => Some(AttributeRecord::S(text.clone())),
        AttributeValue::N(number) => Some(AttributeRecord::N(number.clone())),
        AttributeValue::B(blob) => Some(AttributeRecord::B(URL_SAFE_NO_PAD.encode(blob.as_ref()))),
        _ => None,
    }
}

/// The key attributes of an item as a cursor stores them (string, number and binary ones).
pub(crate) fn key_record(key: &Item) -> KeyRecord {
    key.iter().filter_map(|(name, value)| Some((name.clone(), attribute_record(value)?))).collect()
}

/// Key attributes back from [`key_record`]; an empty record, a number that is not one or bad
/// base64 is malformed.
pub(crate) fn key_from_record(record: KeyRecord) -> Result<Item, CursorError> {
    if record.is_empty() {
        return Err(CursorError::Malformed);
    }
    record
        .into_iter()
        .map(|(name, value)| {
            let value = match value {
                AttributeRecord::S(text) => AttributeValue::S(text),
                AttributeRecord::N(number) if number.parse::<f64>().is_ok() => AttributeValue::N(number),
                AttributeRecord::N(_) => return Err(CursorError::Malformed),
                AttributeRecord::B(text) => {
                    let bytes = URL_SAFE_NO_PAD.decode(text).map_err(|_| CursorError::Malformed)?;
                    AttributeValue::B(Blob::new(bytes))
                }
            };
            Ok((name, value))
        })
        .collect()
}

/// The key attributes of an item as a JSON object, in name order (for stored progress records).
pub(crate) fn key_to_json(key: &Item) -> Value {
    serde_json::to_value(key_record(key)).unwrap_or(Value::Null)
}

/// Key attributes back from [`key_to_json`]; an empty or ill-typed object is malformed.
pub(crate) fn json_to_key(value: &Value) -> Result<Item, CursorError> {
    let record: KeyRecord = serde_json::from_value(value.clone()).map_err(|_| CursorError::Malformed)?;
    key_from_record(record)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_numbers_and_empty_records_are_malformed() {
        let bad = [("n".to_owned(), AttributeRecord::N("twelve".into()))].into_iter().collect();
        assert_eq!(key_from_record(bad), Err(CursorError::Malformed));
        assert_eq!(key_from_record(KeyRecord::new()), Err(CursorError::Malformed));
        let key: Item = [("pk".to_owned(), AttributeValue::S("a".into()))].into_iter().collect();
        assert_eq!(json_to_key(&key_to_json(&key)), Ok(key));
    }
}
