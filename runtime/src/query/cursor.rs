//! Opaque cursors: the key of the last item returned, bound to the query that produced it.
//!
//! A cursor is `base64url(payload) "." base64url(tag)`. The payload holds a fingerprint of the
//! query (table, index, entity type, partition, sort-key condition, direction) and the key
//! attributes to resume after; a sharded query's cursor holds a fingerprint of the shard layout
//! and a page end instead (see `sharded::cursor`). The tag is a SHA-256 checksum, or an
//! HMAC-SHA256 when the `Db` has a cursor key ([`crate::Db::with_cursor_key`]), so edited cursors
//! are rejected and, with a key, cannot be forged.

use super::native::NativeRecord;
use super::{QueryPlan, SortRange};
use crate::error::Item;
use crate::fingerprint;
use crate::key_record::{attribute_record, key_from_record, key_record, AttributeRecord, KeyRecord};
use crate::shard::BucketWindow;
use aws_sdk_dynamodb::types::AttributeValue;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use crate::error::CursorError;

/// The version of an unsharded query's cursor; version 1 bound it to a fingerprint of text.
pub(crate) const VERSION: u64 = 2;
const CHECKSUM_CONTEXT: &[u8] = b"dynashard-cursor-v1";

/// What a query's fingerprint is computed from: everything that selects and orders its items.
#[derive(Serialize)]
struct QueryRecord<'a> {
    v: u8,
    table: &'a str,
    index: Option<&'a str>,
    entity: &'a str,
    partition: &'a str,
    /// A merge's keys; left out for one key, so that its fingerprint is what it always was.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    keys: &'a [String],
    /// A merge's keys' ranges, when they differ.
    #[serde(skip_serializing_if = "<[SortRange]>::is_empty")]
    key_ranges: &'a [SortRange],
    range: &'a SortRange,
    native_partition: Vec<(&'static str, Option<AttributeRecord>)>,
    native_sort: Vec<(&'static str, Option<AttributeRecord>)>,
    native_range: Option<(&'a str, NativeRecord)>,
    descending: bool,
    sharded: bool,
    /// A time window is part of the query: a cursor of another window belongs to another query.
    window: Option<&'a BucketWindow>,
}

/// The fingerprint of a query: what a cursor must match to be used with it.
pub(crate) fn fingerprint(plan: &QueryPlan) -> String {
    let record = QueryRecord {
        v: 1,
        table: plan.table.name,
        index: plan.queried_index.map(|index| index.name),
        entity: plan.type_name,
        partition: &plan.partition_value,
        keys: &plan.keys,
        key_ranges: &plan.key_ranges,
        range: &plan.range,
        native_partition: natives(&plan.native_partition),
        native_sort: natives(&plan.native_sort),
        native_range: plan.native_range.as_ref().map(|(name, condition)| (*name, condition.record())),
        descending: plan.descending,
        sharded: plan.shards.is_some(),
        window: plan.shards.as_ref().and_then(|shards| shards.window.as_ref()),
    };
    fingerprint::fingerprint(&record, 12)
}

/// Native key attribute values as a fingerprint records them.
fn natives(values: &[(&'static str, AttributeValue)]) -> Vec<(&'static str, Option<AttributeRecord>)> {
    values.iter().map(|(name, value)| (*name, attribute_record(value))).collect()
}

/// The payload of an unsharded query's cursor.
#[derive(Serialize, Deserialize)]
struct KeyCursor {
    v: u64,
    f: String,
    /// The key to resume after; absent for a read that has not returned anything yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    k: Option<KeyRecord>,
}

/// What every cursor payload starts with: its version and its query's fingerprint, and for a
/// sharded query's cursor, its layout's fingerprint.
#[derive(Deserialize)]
struct Header {
    v: u64,
    f: String,
    #[serde(default)]
    l: Option<IgnoredAny>,
}

/// Which kind of cursor a query takes: each has versions of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// An unsharded query's: the key to resume after.
    Key,
    /// A sharded query's: a layout fingerprint and a page end.
    Sharded,
}

/// Encodes a cursor resuming after the item with key attributes `key` (`None`: at the
/// beginning).
pub(crate) fn encode(fingerprint: &str, key: Option<&Item>, signing_key: Option<&[u8]>) -> String {
    seal(&KeyCursor { v: VERSION, f: fingerprint.to_owned(), k: key.map(key_record) }, signing_key)
}

/// Decodes a cursor for the query with `fingerprint`, returning the key to resume after
/// (`None`: the beginning).
pub(crate) fn decode(
    cursor: &str,
    fingerprint: &str,
    signing_key: Option<&[u8]>,
) -> Result<Option<Item>, CursorError> {
    let payload: KeyCursor = open(cursor, fingerprint, (Kind::Key, VERSION), signing_key)?;
    payload.k.map(key_from_record).transpose()
}

/// Signs a payload (which holds `v` and `f` first) into a cursor string.
pub(crate) fn seal(payload: &impl Serialize, signing_key: Option<&[u8]>) -> String {
    // Serializing a struct of strings, numbers and maps of them cannot fail.
    let payload = serde_json::to_vec(payload).unwrap_or_default();
    let tag = tag(&payload, signing_key);
    format!("{}.{}", URL_SAFE_NO_PAD.encode(payload), URL_SAFE_NO_PAD.encode(tag))
}

/// Checks a cursor's tag, kind, version and query fingerprint, returning its payload.
pub(crate) fn open<P: DeserializeOwned>(
    cursor: &str,
    fingerprint: &str,
    (kind, version): (Kind, u64),
    signing_key: Option<&[u8]>,
) -> Result<P, CursorError> {
    let (payload, given_tag) = cursor.split_once('.').ok_or(CursorError::Malformed)?;
    let payload = URL_SAFE_NO_PAD.decode(payload).map_err(|_| CursorError::Malformed)?;
    let given_tag = URL_SAFE_NO_PAD.decode(given_tag).map_err(|_| CursorError::Malformed)?;
    if !tags_match(&payload, &given_tag, signing_key) {
        return Err(CursorError::Tampered);
    }
    let header: Header = serde_json::from_slice(&payload).map_err(|_| CursorError::Malformed)?;
    let sharded = header.l.is_some();
    if sharded != (kind == Kind::Sharded) {
        return Err(CursorError::WrongQuery);
    }
    // A cursor of an earlier version is bound to its query another way: it is outdated, whether
    // its fingerprint still matches or not.
    match header.v {
        v if v < version => Err(CursorError::Outdated),
        v if v > version => Err(CursorError::Malformed),
        _ if header.f != fingerprint => Err(CursorError::WrongQuery),
        _ => serde_json::from_slice(&payload).map_err(|_| CursorError::Malformed),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::primitives::Blob;

    fn key() -> Item {
        let mut key = Item::new();
        key.insert("pk".into(), AttributeValue::S("artist".into()));
        key.insert("sk".into(), AttributeValue::S("song#a#b".into()));
        key
    }

    #[test]
    fn round_trips_and_rejects_other_queries() {
        let cursor = encode("fp1", Some(&key()), None);
        assert_eq!(decode(&cursor, "fp1", None), Ok(Some(key())));
        assert_eq!(decode(&cursor, "fp2", None), Err(CursorError::WrongQuery));
    }

    #[test]
    fn rejects_edits_truncation_and_garbage() {
        let cursor = encode("fp1", Some(&key()), None);
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
    fn cursors_keep_their_encoding_and_earlier_versions_are_outdated() {
        // A JSON object with sorted keys, as every version wrote it.
        let sealed = |payload: &str| {
            let tag = tag(payload.as_bytes(), None);
            format!("{}.{}", URL_SAFE_NO_PAD.encode(payload), URL_SAFE_NO_PAD.encode(tag))
        };
        let current = sealed(r#"{"f":"fp1","k":{"pk":{"S":"artist"},"sk":{"S":"song#a#b"}},"v":2}"#);
        assert_eq!(decode(&current, "fp1", None), Ok(Some(key())));
        // Version 1 bound a cursor to a fingerprint of text: outdated, whatever its fingerprint.
        let first = sealed(r#"{"f":"fp1","k":{"pk":{"S":"artist"},"sk":{"S":"song#a#b"}},"v":1}"#);
        assert_eq!(decode(&first, "fp1", None), Err(CursorError::Outdated));
        assert_eq!(decode(&first, "other", None), Err(CursorError::Outdated));
    }

    #[test]
    fn numbers_and_binary_keys_round_trip_and_bad_ones_are_malformed() {
        let mut key = key();
        key.insert("n".into(), AttributeValue::N("-12.5".into()));
        key.insert("b".into(), AttributeValue::B(Blob::new(vec![0, 255, 7])));
        assert_eq!(decode(&encode("fp", Some(&key), None), "fp", None), Ok(Some(key)));
        assert_eq!(decode(&encode("fp", None, None), "fp", None), Ok(None));
    }

    #[test]
    fn signed_cursors_need_the_key() {
        let cursor = encode("fp1", Some(&key()), Some(b"secret"));
        assert_eq!(decode(&cursor, "fp1", Some(b"secret")), Ok(Some(key())));
        assert_eq!(decode(&cursor, "fp1", Some(b"other")), Err(CursorError::Tampered));
        assert_eq!(decode(&cursor, "fp1", None), Err(CursorError::Tampered));
        let unsigned = encode("fp1", Some(&key()), None);
        assert_eq!(decode(&unsigned, "fp1", Some(b"secret")), Err(CursorError::Tampered));
    }
}
