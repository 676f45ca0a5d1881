//! DynamoDB's JSON wire form of attribute values and items, as requests and responses carry them.

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine;
use dynashard::item::value_size;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// One attribute value, e.g. `{"S": "text"}` or `{"N": "12"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum WireValue {
    S(String),
    N(String),
    /// Base64, as on the wire.
    B(String),
    #[serde(rename = "BOOL")]
    Bool(bool),
    #[serde(rename = "NULL")]
    Null(bool),
    #[serde(rename = "SS")]
    Ss(Vec<String>),
    #[serde(rename = "NS")]
    Ns(Vec<String>),
    #[serde(rename = "BS")]
    Bs(Vec<String>),
    L(Vec<WireValue>),
    M(BTreeMap<String, WireValue>),
}

/// An item: attribute names to values.
pub(crate) type WireItem = BTreeMap<String, WireValue>;

/// A `BatchWriteItem` or `BatchGetItem` request: its entries per table, and the rest as it came.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct BatchRequest<T> {
    #[serde(rename = "RequestItems")]
    pub request_items: BTreeMap<String, T>,
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

impl WireValue {
    /// The value as the SDK types it (binary decoded; undecodable base64 counts as its text).
    fn to_sdk(&self) -> AttributeValue {
        match self {
            WireValue::S(text) => AttributeValue::S(text.clone()),
            WireValue::N(number) => AttributeValue::N(number.clone()),
            WireValue::B(data) => AttributeValue::B(decode(data)),
            WireValue::Bool(flag) => AttributeValue::Bool(*flag),
            WireValue::Null(flag) => AttributeValue::Null(*flag),
            WireValue::Ss(set) => AttributeValue::Ss(set.clone()),
            WireValue::Ns(set) => AttributeValue::Ns(set.clone()),
            WireValue::Bs(set) => AttributeValue::Bs(set.iter().map(|data| decode(data)).collect()),
            WireValue::L(list) => AttributeValue::L(list.iter().map(WireValue::to_sdk).collect()),
            WireValue::M(map) => {
                AttributeValue::M(map.iter().map(|(name, value)| (name.clone(), value.to_sdk())).collect())
            }
        }
    }

    /// The value's size as DynamoDB counts it.
    pub(crate) fn size(&self) -> usize {
        value_size(&self.to_sdk())
    }

    /// The value as a partition or sort key's text: the string, the number, or the base64.
    pub(crate) fn key_text(&self) -> Option<&str> {
        match self {
            WireValue::S(text) | WireValue::N(text) | WireValue::B(text) => Some(text),
            _ => None,
        }
    }
}

fn decode(data: &str) -> Blob {
    let bytes =
        base64::engine::general_purpose::STANDARD.decode(data).unwrap_or_else(|_| data.as_bytes().to_vec());
    Blob::new(bytes)
}

/// The size of an item: names plus values.
pub(crate) fn wire_item_size(item: &WireItem) -> usize {
    item.iter().map(|(name, value)| name.len() + value.size()).sum()
}

/// The values of `item`'s attributes `names` (its key, given the key's attribute names).
pub(crate) fn key_values<'i>(item: &'i WireItem, names: &[String]) -> Vec<Option<&'i WireValue>> {
    names.iter().map(|name| item.get(name)).collect()
}

/// The size of the attributes of `item` named in `names`.
pub(crate) fn projected_size<'n>(item: &WireItem, names: impl IntoIterator<Item = &'n str>) -> usize {
    let mut seen = std::collections::BTreeSet::new();
    names
        .into_iter()
        .filter(|name| seen.insert(*name))
        .filter_map(|name| item.get_key_value(name))
        .map(|(name, value)| name.len() + value.size())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(json: &str) -> WireItem {
        serde_json::from_str(json).expect("an item")
    }

    #[test]
    fn sizes_follow_dynamodbs_rules() {
        // Strings: UTF-8 bytes; names count too.
        assert_eq!(wire_item_size(&item(r#"{"pk":{"S":"abc"}}"#)), 2 + 3);
        assert_eq!(wire_item_size(&item(r#"{"é":{"S":"ü"}}"#)), 2 + 2);
        // Numbers: one byte per two significant digits, plus one; leading and trailing zeros
        // do not count.
        assert_eq!(wire_item_size(&item(r#"{"n":{"N":"12345"}}"#)), 1 + 4);
        assert_eq!(wire_item_size(&item(r#"{"n":{"N":"1000"}}"#)), 1 + 2);
        assert_eq!(wire_item_size(&item(r#"{"n":{"N":"-0.0012"}}"#)), 1 + 2);
        // Binary: the decoded bytes.
        assert_eq!(wire_item_size(&item(r#"{"b":{"B":"AAECAw=="}}"#)), 1 + 4);
        // Booleans and nulls: one byte.
        assert_eq!(wire_item_size(&item(r#"{"t":{"BOOL":true},"z":{"NULL":true}}"#)), 2 + 2);
        // Lists and maps: 3 bytes, plus one per element, plus the elements (and map keys).
        assert_eq!(
            wire_item_size(&item(r#"{"l":{"L":[{"S":"ab"},{"BOOL":false}]}}"#)),
            1 + 3 + (1 + 2) + (1 + 1)
        );
        assert_eq!(wire_item_size(&item(r#"{"m":{"M":{"k":{"S":"v"}}}}"#)), 1 + 3 + 1 + 1 + 1);
        // Sets: the elements.
        assert_eq!(wire_item_size(&item(r#"{"s":{"SS":["a","bc"]}}"#)), 1 + 3);
    }

    #[test]
    fn projections_count_each_named_attribute_once() {
        let item = item(r#"{"pk":{"S":"abc"},"sk":{"S":"d"},"other":{"S":"xxxxxxxx"}}"#);
        assert_eq!(projected_size(&item, ["pk", "sk", "pk", "missing"]), 5 + 3);
    }
}
