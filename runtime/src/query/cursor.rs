//! Opaque cursors: the key of the last item returned, bound to the query that produced it.
//!
//! A cursor is `base64url(payload) "." base64url(tag)`. The payload holds a fingerprint of the
//! query (table, index, entity type, partition, sort-key condition, direction) and the key
//! attributes to resume after; a sharded query's cursor holds a fingerprint of the shard layout and
//! a position per shard instead (see `sharded::cursor`). The tag is a SHA-256 checksum, or an HMAC-SHA256 when the `Db` has
//! a cursor key ([`crate::Db::with_cursor_key`]), so edited cursors are rejected and, with a key,
//! cannot be forged.

use super::QueryPlan;
use crate::error::Item;
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

pub(crate) const VERSION: u64 = 1;
const CHECKSUM_CONTEXT: &[u8] = b"dynashard-cursor-v1";

/// Why a cursor was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CursorError {
    /// Not a cursor at all (bad encoding, truncated, wrong shape).
    #[error("the cursor is malformed")]
    Malformed,
    /// The cursor's checksum or signature does not match its content.
    #[error("the cursor was altered or signed with another key")]
    Tampered,
    /// The cursor belongs to another query, index or table.
    #[error("the cursor belongs to a different query")]
    WrongQuery,
    /// The cursor belongs to the same query over another shard layout (another strategy, shard
    /// count or boundaries), so its per-shard positions mean nothing here.
    #[error("the cursor belongs to another shard layout")]
    LayoutChanged,
}

/// The fingerprint of a query: what a cursor must match to be used with it.
pub(crate) fn fingerprint(plan: &QueryPlan) -> String {
    let mut hasher = Sha256::new();
    let sharded = plan.shards.as_ref().map(|_| "sharded");
    // A time window is part of the query: a cursor of another window belongs to another query.
    let window = plan.shards.as_ref().and_then(|shards| shards.window.as_ref());
    let window = window.map(|window| {
        format!("{}..={}:{}..{}", window.from, window.to, window.shards.start, window.shards.end)
    });
    let parts = [
        plan.table.name,
        plan.queried_index.map_or("", |index| index.name),
        plan.type_name,
        plan.partition_value.as_str(),
        &format!("{:?}", plan.range),
        &format!("{:?}{:?}{:?}", plan.native_partition, plan.native_sort, plan.native_range),
        if plan.descending { "desc" } else { "asc" },
    ];
    for part in parts.into_iter().chain(sharded).chain(window.as_deref()) {
        hasher.update((part.len() as u64).to_be_bytes());
        hasher.update(part.as_bytes());
    }
    hex(&hasher.finalize()[..12])
}

/// Encodes a cursor resuming after the item with key attributes `key`.
pub(crate) fn encode(fingerprint: &str, key: &Item, signing_key: Option<&[u8]>) -> String {
    seal(&json!({ "v": VERSION, "f": fingerprint, "k": key_to_json(key) }), signing_key)
}

/// Decodes a cursor for the query with `fingerprint`, returning the key to resume after.
pub(crate) fn decode(
    cursor: &str,
    fingerprint: &str,
    signing_key: Option<&[u8]>,
) -> Result<Item, CursorError> {
    let value = open(cursor, fingerprint, signing_key)?;
    json_to_key(&value["k"])
}

/// Signs a payload (which holds `"v"` and `"f"`) into a cursor string.
pub(crate) fn seal(payload: &Value, signing_key: Option<&[u8]>) -> String {
    let payload = payload.to_string();
    let tag = tag(payload.as_bytes(), signing_key);
    format!("{}.{}", URL_SAFE_NO_PAD.encode(payload), URL_SAFE_NO_PAD.encode(tag))
}

/// Checks a cursor's tag, version and query fingerprint, returning its payload.
pub(crate) fn open(
    cursor: &str,
    fingerprint: &str,
    signing_key: Option<&[u8]>,
) -> Result<Value, CursorError> {
    let (payload, given_tag) = cursor.split_once('.').ok_or(CursorError::Malformed)?;
    let payload = URL_SAFE_NO_PAD.decode(payload).map_err(|_| CursorError::Malformed)?;
    let given_tag = URL_SAFE_NO_PAD.decode(given_tag).map_err(|_| CursorError::Malformed)?;
    if !tags_match(&payload, &given_tag, signing_key) {
        return Err(CursorError::Tampered);
    }
    let value: Value = serde_json::from_slice(&payload).map_err(|_| CursorError::Malformed)?;
    if value["v"].as_u64() != Some(VERSION) {
        return Err(CursorError::Malformed);
    }
    if value["f"].as_str() != Some(fingerprint) {
        return Err(CursorError::WrongQuery);
    }
    Ok(value)
}

/// The key attributes of an item as a JSON object, in name order.
pub(crate) fn key_to_json(key: &Item) -> Value {
    let mut attributes = Map::new();
    let mut names: Vec<&String> = key.keys().collect();
    names.sort();
    for name in names {
        if let Some(value) = key.get(name).and_then(attribute_to_json) {
            attributes.insert(name.clone(), value);
        }
    }
    Value::Object(attributes)
}

/// Key attributes back from [`key_to_json`]; an empty or ill-typed object is malformed.
pub(crate) fn json_to_key(value: &Value) -> Result<Item, CursorError> {
    let attributes = value.as_object().ok_or(CursorError::Malformed)?;
    if attributes.is_empty() {
        return Err(CursorError::Malformed);
    }
    attributes
        .iter()
        .map(|(name, value)| {
            json_to_attribute(value).map(|value| (name.clone(), value)).ok_or(CursorError::Malformed)
        })
        .collect()
}

fn tag(payload: &[u8], signing_key: Option<&[u8]>) -> Vec<u8> {
    match signing_key.and_then(|key| Hmac::<Sha256>::new_from_slice(key).ok()) {
        Some(mut mac) => {
            mac.update(payload);
            mac.finalize().into_bytes().to_vec()
        }
        None => {
            let mut hasher = Sha256::new();
            hasher.update(CHECKSUM_CONTEXT);
            hasher.update(payload);
            hasher.finalize()[..16].to_vec()
        }
    }
}

fn tags_match(payload: &[u8], given: &[u8], signing_key: Option<&[u8]>) -> bool {
    match signing_key.and_then(|key| Hmac::<Sha256>::new_from_slice(key).ok()) {
        Some(mut mac) => {
            mac.update(payload);
            mac.verify_slice(given).is_ok()
        }
        None => tag(payload, None) == given,
    }
}

fn attribute_to_json(value: &AttributeValue) -> Option<Value> {
    Some(match value {
        AttributeValue::S(text) => json!({ "S": text }),
        AttributeValue::N(number) => json!({ "N": number }),
        AttributeValue::B(blob) => json!({ "B": URL_SAFE_NO_PAD.encode(blob.as_ref()) }),
        _ => return None,
    })
}

fn json_to_attribute(value: &Value) -> Option<AttributeValue> {
    let object = value.as_object()?;
    if object.len() != 1 {
        return None;
    }
    let (kind, inner) = object.iter().next()?;
    let text = inner.as_str()?;
    match kind.as_str() {
        "S" => Some(AttributeValue::S(text.to_owned())),
        "N" => text.parse::<f64>().ok().map(|_| AttributeValue::N(text.to_owned())),
        "B" => URL_SAFE_NO_PAD.decode(text).ok().map(|bytes| AttributeValue::B(Blob::new(bytes))),
        _ => None,
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> Item {
        let mut key = Item::new();
        key.insert("pk".into(), AttributeValue::S("artist".into()));
        key.insert("sk".into(), AttributeValue::S("song#a#b".into()));
        key
    }

    #[test]
    fn round_trips_and_rejects_other_queries() {
        let cursor = encode("fp1", &key(), None);
        assert_eq!(decode(&cursor, "fp1", None), Ok(key()));
        assert_eq!(decode(&cursor, "fp2", None), Err(CursorError::WrongQuery));
    }

    #[test]
    fn rejects_edits_truncation_and_garbage() {
        let cursor = encode("fp1", &key(), None);
        let (payload, tag) = cursor.split_once('.').unwrap();
        let mut edited = URL_SAFE_NO_PAD.decode(payload).unwrap();
        let position = edited.iter().position(|b| *b == b'a').unwrap();
        edited[position] = b'b';
        let edited = format!("{}.{tag}", URL_SAFE_NO_PAD.encode(edited));
        assert_eq!(decode(&edited, "fp1", None), Err(CursorError::Tampered));
        assert!(decode(&cursor[..cursor.len() - 3], "fp1", None).is_err());
        assert_eq!(decode("not a cursor", "fp1", None), Err(CursorError::Malformed));
        assert_eq!(decode("", "fp1", None), Err(CursorError::Malformed));
    }

    #[test]
    fn signed_cursors_need_the_key() {
        let cursor = encode("fp1", &key(), Some(b"secret"));
        assert_eq!(decode(&cursor, "fp1", Some(b"secret")), Ok(key()));
        assert_eq!(decode(&cursor, "fp1", Some(b"other")), Err(CursorError::Tampered));
        assert_eq!(decode(&cursor, "fp1", None), Err(CursorError::Tampered));
        let unsigned = encode("fp1", &key(), None);
        assert_eq!(decode(&unsigned, "fp1", Some(b"secret")), Err(CursorError::Tampered));
    }
}
