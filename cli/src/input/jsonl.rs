//! Reading one string field from JSON Lines without building the whole object.

use crate::error::InputError;
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use std::fmt;

/// What a record holds under the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldValue {
    /// The field is absent or `null`.
    Missing,
    /// A string.
    Text(String),
    /// Something else, named by its JSON type.
    Other(&'static str),
}

/// Reads `field` from one JSON object given as text; `name` and `line` locate errors.
pub fn field_of(record: &str, field: &str, name: &str, line: u64) -> Result<FieldValue, InputError> {
    let mut deserializer = serde_json::Deserializer::from_str(record);
    let value = FieldSeed { field }
        .deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value))
        .map_err(|error| InputError::Malformed {
            name: name.to_owned(),
            line,
            message: format!("not a JSON object: {error}"),
        })?;
    Ok(value)
}

struct FieldSeed<'f> {
    field: &'f str,
}

impl<'de> DeserializeSeed<'de> for FieldSeed<'_> {
    type Value = FieldValue;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<FieldValue, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for FieldSeed<'_> {
    type Value = FieldValue;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FieldValue, A::Error> {
        let mut found = FieldValue::Missing;
        let mut seen = false;
        while let Some(key) = map.next_key::<String>()? {
            if key == self.field && !seen {
                seen = true;
                found = match map.next_value::<serde_json::Value>()? {
                    serde_json::Value::Null => FieldValue::Missing,
                    serde_json::Value::String(text) => FieldValue::Text(text),
                    serde_json::Value::Bool(_) => FieldValue::Other("a boolean"),
                    serde_json::Value::Number(_) => FieldValue::Other("a number"),
                    serde_json::Value::Array(_) => FieldValue::Other("an array"),
                    serde_json::Value::Object(_) => FieldValue::Other("an object"),
                };
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_field_among_others() {
        let record = r#"{"id": 1, "nested": {"title": "no"}, "title": "Leaving Home", "tags": ["a"]}"#;
        assert_eq!(
            field_of(record, "title", "t", 1).expect("valid"),
            FieldValue::Text("Leaving Home".into())
        );
        assert_eq!(field_of(record, "year", "t", 1).expect("valid"), FieldValue::Missing);
        assert_eq!(field_of(record, "id", "t", 1).expect("valid"), FieldValue::Other("a number"));
        assert_eq!(field_of(r#"{"title": null}"#, "title", "t", 1).expect("valid"), FieldValue::Missing);
        assert_eq!(
            field_of(r#"{"title": "caf\u00e9"}"#, "title", "t", 1).expect("valid"),
            FieldValue::Text("café".into())
        );
    }

    #[test]
    fn rejects_what_is_not_one_object() {
        for bad in ["[1, 2]", "{\"title\": ", "{} {}", "\"title\""] {
            let error = field_of(bad, "title", "in.jsonl", 7).expect_err(bad);
            assert!(error.to_string().starts_with("in.jsonl:7: not a JSON object"), "{error}");
        }
    }
}
