//! Cursors of sharded queries: the query's fingerprint, the shard layout's fingerprint, and the
//! page end (see [`super::resume`]): one item's lane and keys, whatever the shard count, and the
//! ties it carries from another layout.
//!
//! The page end's partition key is left out: its lane names it. A cursor is sealed like every
//! cursor (checksum, or HMAC with a cursor key). A cursor is opened ([`open`]) before its layout
//! is known to be the read's: one of another layout may still resume through
//! [`super::crossing`].

use super::resume::{Horizon, PageEnd, Start, Ties};
use crate::error::Item;
use crate::fingerprint::fingerprint;
use crate::key_record::{key_from_record, key_record, KeyRecord};
use crate::query::cursor::{open, seal, CursorError, Kind};
use crate::query::{ShardMode, Shards};
use crate::shard::Binding;
use aws_sdk_dynamodb::types::AttributeValue;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The version of a sharded query's cursor; version 1 held a position per shard, version 2 a
/// layout fingerprint of text.
pub(crate) const VERSION: u64 = 3;

/// The payload of a sharded query's cursor.
#[derive(Serialize, Deserialize)]
struct ShardedCursor {
    v: u64,
    f: String,
    /// The layout's fingerprint.
    l: String,
    /// The page end; absent for a read that has not returned anything yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    e: Option<EndRecord>,
    /// The mean size of the items read so far, for sizing the next page's requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    s: Option<u64>,
}

/// A page end as a cursor stores it.
#[derive(Serialize, Deserialize)]
struct EndRecord {
    /// The lane, by natural number; absent for a page end from another layout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    n: Option<u64>,
    /// Its keys, without the partition key.
    k: KeyRecord,
    /// The ties it carries (see [`Ties`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    t: Vec<String>,
    /// Its horizon (see [`Horizon`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    h: Option<HorizonRecord>,
    /// The horizon of the page it ends, for the page after it to hand its previous page (see
    /// [`PageEnd::back`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    b: Option<HorizonRecord>,
}

/// A horizon as a cursor stores it.
#[derive(Serialize, Deserialize)]
struct HorizonRecord {
    /// The sort key.
    k: String,
    /// The lanes to read, by natural number, ascending.
    r: Vec<u64>,
    /// The items each of them holds (see [`Horizon::held`]), in the same order; `0`: unknown.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    n: Vec<usize>,
    /// The lane of the first item of the page before (see [`Horizon::first`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    i: Option<u64>,
    /// Whether the page before began at the read's beginning (see [`Horizon::beginning`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    z: bool,
    /// The edges after `k` (see [`Horizon::further`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    e: Vec<String>,
    /// Each lane's edge, four bits a lane (see [`Horizon::codes`]), base64url.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    c: String,
}

impl HorizonRecord {
    fn of(horizon: &Horizon) -> Self {
        HorizonRecord {
            k: horizon.key.clone(),
            r: horizon.read.iter().copied().collect(),
            n: held_counts(horizon),
            i: horizon.first,
            z: horizon.beginning,
            e: horizon.further.clone(),
            c: pack(&horizon.codes),
        }
    }

    fn into_horizon(self) -> Arc<Horizon> {
        Arc::new(Horizon {
            key: self.k,
            held: self
                .r
                .iter()
                .zip(&self.n)
                .filter(|(_, &held)| held > 0)
                .map(|(&lane, &held)| (lane, held))
                .collect(),
            read: self.r.into_iter().collect(),
            first: self.i,
            beginning: self.z,
            further: self.e,
            codes: unpack(&self.c),
        })
    }
}

/// The items each lane a horizon reads holds, in the order of its lanes (`0`: unknown); none
/// when it knows of none.
fn held_counts(horizon: &Horizon) -> Vec<usize> {
    if horizon.held.is_empty() {
        return Vec::new();
    }
    horizon.read.iter().map(|lane| horizon.held.get(lane).copied().unwrap_or(0)).collect()
}

/// Lanes' edges, four bits each, two to a byte, as base64url.
fn pack(codes: &[u8]) -> String {
    let bytes: Vec<u8> = codes
        .chunks(2)
        .map(|pair| (pair[0] & 0x0F) << 4 | pair.get(1).map_or(0, |code| code & 0x0F))
        .collect();
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The edges [`pack`] packed, without trailing zeros (a lane past the end has edge `0`); none
/// when unreadable.
fn unpack(text: &str) -> Vec<u8> {
    let bytes = URL_SAFE_NO_PAD.decode(text).unwrap_or_default();
    let mut codes: Vec<u8> = bytes.iter().flat_map(|byte| [byte >> 4, byte & 0x0F]).collect();
    while codes.last() == Some(&0) {
        codes.pop();
    }
    codes
}

/// What a layout fingerprint is computed from.
#[derive(Serialize)]
struct LayoutRecord<'a> {
    v: u8,
    layout: Binding<'a>,
    mode: ShardMode,
    partitions: &'a [String],
}

/// A fingerprint of a shard layout: the layout, its mode and its partitions.
pub(crate) fn layout_fingerprint(shards: &Shards) -> String {
    let record = LayoutRecord {
        v: 1,
        layout: shards.layout.binding(shards.target.as_deref()),
        mode: shards.mode,
        partitions: &shards.partitions,
    };
    fingerprint(&record, 12)
}

/// Encodes a cursor for the query with `fingerprint` over `shards`, resuming at `start`, with
/// items of about `item_bytes`; the attribute `partition_attribute` is left out of the key.
pub(crate) fn encode(
    fingerprint: &str,
    shards: &Shards,
    partition_attribute: &str,
    (start, item_bytes): (&Start, Option<u64>),
    signing_key: Option<&[u8]>,
) -> String {
    let e = match start {
        Start::Beginning => None,
        Start::After(end) => {
            let mut key = key_record(&end.key);
            key.remove(partition_attribute);
            let h = end.horizon.as_deref().map(HorizonRecord::of);
            let b = end.back.as_deref().map(HorizonRecord::of);
            Some(EndRecord { n: end.lane, k: key, t: end.ties.iter().cloned().collect(), h, b })
        }
    };
    let payload = ShardedCursor {
        v: VERSION,
        f: fingerprint.to_owned(),
        l: layout_fingerprint(shards),
        e,
        s: item_bytes,
    };
    seal(&payload, signing_key)
}

/// A cursor checked for its query, not yet for its layout.
pub(crate) struct Opened {
    /// The fingerprint of the layout it was made in.
    pub layout: String,
    end: Option<EndRecord>,
    /// The mean item size it carries.
    pub item_bytes: Option<u64>,
}

/// Opens a cursor for the query with `fingerprint`: a cursor of another query is
/// [`CursorError::WrongQuery`], of an earlier format [`CursorError::Outdated`].
pub(crate) fn open_cursor(
    cursor: &str,
    fingerprint: &str,
    signing_key: Option<&[u8]>,
) -> Result<Opened, CursorError> {
    let payload: ShardedCursor = open(cursor, fingerprint, (Kind::Sharded, VERSION), signing_key)?;
    Ok(Opened { layout: payload.l, end: payload.e, item_bytes: payload.s })
}

impl Opened {
    /// Where a read of a layout that has the cursor's lanes resumes; `partition` names the
    /// partition key value of a lane, if the read has that lane.
    pub(crate) fn start(
        self,
        partition_attribute: &str,
        partition: impl Fn(u64) -> Option<String>,
    ) -> Result<(Start, Option<u64>), CursorError> {
        let item_bytes = self.item_bytes;
        let Some(end) = self.end else { return Ok((Start::Beginning, item_bytes)) };
        if end.k.contains_key(partition_attribute) {
            return Err(CursorError::Malformed);
        }
        let mut key: Item = key_from_record(end.k)?;
        if let Some(lane) = end.n {
            let partition_key = partition(lane).ok_or(CursorError::Malformed)?;
            key.insert(partition_attribute.to_owned(), AttributeValue::S(partition_key));
        }
        let ties = Ties::new(end.t.into_iter().collect());
        // A horizon names lanes of the end's own layout: it means nothing without one.
        let own = |horizon: Option<HorizonRecord>| {
            horizon.filter(|_| end.n.is_some()).map(HorizonRecord::into_horizon)
        };
        let (horizon, back) = (own(end.h), own(end.b));
        Ok((Start::After(PageEnd { lane: end.n, key, ties, horizon, back }), item_bytes))
    }
}

/// Decodes a cursor for the query with `fingerprint` over `shards`, and the item size it
/// carries; `partition` names the partition key value of a lane, if the read has that lane.
///
/// A cursor of another query is [`CursorError::WrongQuery`]; of the same query over another
/// layout, [`CursorError::LayoutChanged`]; of an earlier format, [`CursorError::Outdated`].
#[cfg(test)]
pub(crate) fn decode(
    cursor: &str,
    fingerprint: &str,
    shards: &Shards,
    partition_attribute: &str,
    partition: impl Fn(u64) -> Option<String>,
    signing_key: Option<&[u8]>,
) -> Result<(Start, Option<u64>), CursorError> {
    let opened = open_cursor(cursor, fingerprint, signing_key)?;
    if opened.layout != layout_fingerprint(shards) {
        return Err(CursorError::LayoutChanged);
    }
    opened.start(partition_attribute, partition)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shard::Layout;

    fn shards(mode: ShardMode, shards: u32) -> Shards {
        let partitions = (0..3).map(|i| format!("b#{i}")).collect();
        Shards::of(partitions, mode, Layout::Hash { shards })
    }

    fn key(shard: u64, sk: &str) -> Item {
        [
            ("pk".to_owned(), AttributeValue::S(format!("b#{shard}"))),
            ("sk".to_owned(), AttributeValue::S(sk.into())),
        ]
        .into_iter()
        .collect()
    }

    fn partition(lane: u64) -> Option<String> {
        (lane < 3).then(|| format!("b#{lane}"))
    }

    #[test]
    fn page_ends_round_trip_without_their_partition() {
        let merge = shards(ShardMode::Merge, 3);
        for start in [Start::Beginning, Start::After(PageEnd::at(1, key(1, "é#1")))] {
            for bytes in [None, Some(512)] {
                let cursor = encode("fp", &merge, "pk", (&start, bytes), Some(b"k"));
                assert_eq!(
                    decode(&cursor, "fp", &merge, "pk", partition, Some(b"k")),
                    Ok((start.clone(), bytes))
                );
                assert!(!cursor.contains("b#1"));
            }
        }
    }

    #[test]
    fn page_ends_from_another_layout_and_their_ties_round_trip() {
        let merge = shards(ShardMode::Merge, 3);
        let mut key = key(0, "m");
        key.remove("pk");
        let ties = Ties::new(["0011223344556677".to_owned()].into_iter().collect());
        let end = Start::After(PageEnd { lane: None, key, ties, horizon: None, back: None });
        let cursor = encode("fp", &merge, "pk", (&end, None), None);
        assert_eq!(decode(&cursor, "fp", &merge, "pk", partition, None), Ok((end, None)));
    }

    #[test]
    fn other_layouts_queries_and_versions_are_rejected() {
        let merge = shards(ShardMode::Merge, 3);
        let end = Start::After(PageEnd::at(0, key(0, "a")));
        let cursor = encode("fp", &merge, "pk", (&end, None), None);
        let decode_with = |shards: &Shards| decode(&cursor, "fp", shards, "pk", partition, None);
        assert_eq!(decode_with(&shards(ShardMode::Merge, 4)), Err(CursorError::LayoutChanged));
        assert_eq!(decode_with(&shards(ShardMode::InOrder, 3)), Err(CursorError::LayoutChanged));
        let mut fewer = merge.clone();
        fewer.partitions.pop();
        assert_eq!(decode_with(&fewer), Err(CursorError::LayoutChanged));
        assert_eq!(decode(&cursor, "other", &merge, "pk", partition, None), Err(CursorError::WrongQuery));
        assert_eq!(decode(&cursor, "fp", &merge, "pk", partition, Some(b"k")), Err(CursorError::Tampered));
        // A cursor of the per-shard format that came before.
        let old =
            seal(&serde_json::json!({ "v": 1, "f": "fp", "l": "x", "p": { "m": ["n", "x", "n"] } }), None);
        assert_eq!(decode(&old, "fp", &merge, "pk", partition, None), Err(CursorError::Outdated));
    }

    #[test]
    fn lanes_out_of_range_and_smuggled_partitions_are_malformed() {
        let merge = shards(ShardMode::Merge, 3);
        let far = Start::After(PageEnd::at(3, key(3, "a")));
        let far = encode("fp", &merge, "pk", (&far, None), None);
        assert_eq!(decode(&far, "fp", &merge, "pk", partition, None), Err(CursorError::Malformed));
        let smuggled = Start::After(PageEnd::at(0, key(0, "a")));
        let smuggled = encode("fp", &merge, "other", (&smuggled, None), None);
        assert_eq!(decode(&smuggled, "fp", &merge, "pk", partition, None), Err(CursorError::Malformed));
    }

    #[test]
    fn a_horizon_over_500_keys_round_trips_in_little_more_than_a_kilobyte() {
        let mut merge = shards(ShardMode::Merge, 500);
        merge.partitions = (0..500).map(|i| format!("account#{i:04}")).collect();
        let partition = |lane: u64| (lane < 500).then(|| format!("account#{lane:04}"));
        let further: Vec<String> = (1..15).map(|edge| format!("post#17000{:05}", edge * 4_000)).collect();
        let codes: Vec<u8> = (0..499u32).map(|lane| ((lane * 7 + 3) % 15) as u8).collect();
        let read = (0..500).step_by(25).collect();
        let held = [(25, 3), (75, 1)].into_iter().collect();
        let horizon =
            Horizon { key: "post#1700001".into(), read, held, further, codes, first: None, beginning: false };
        let mut at = key(7, "post#1700000123#9");
        at.insert("pk".into(), AttributeValue::S("account#0007".into()));
        let end = PageEnd { horizon: Some(Arc::new(horizon)), ..PageEnd::at(7, at) };
        let end = Start::After(end);
        let cursor = encode("0123456789abcdef01234567", &merge, "pk", (&end, Some(498)), None);
        let decoded = decode(&cursor, "0123456789abcdef01234567", &merge, "pk", partition, None);
        assert_eq!(decoded, Ok((end, Some(498))));
        // About two characters a key, and the edges.
        assert!(cursor.len() <= 1_200, "{} characters", cursor.len());
    }

    #[test]
    fn a_cursor_of_twenty_one_shards_is_small() {
        let mut merge = shards(ShardMode::Merge, 21);
        merge.partitions = (0..21).map(|i| format!("album#{i}")).collect();
        let mut key = Item::new();
        key.insert("pk".into(), AttributeValue::S("album#0f8e2c6a-5d8b-4d5e-9c1e-0123456789ab".into()));
        key.insert("sk".into(), AttributeValue::S("album".into()));
        key.insert("gsi1_pk".into(), AttributeValue::S("album#17".into()));
        key.insert("gsi1_sk".into(), AttributeValue::S("the long and winding title#0f8e2c6a".into()));
        let end = Start::After(PageEnd::at(17, key));
        let cursor = encode("0123456789abcdef01234567", &merge, "gsi1_pk", (&end, Some(498)), None);
        assert!(cursor.len() <= 512, "{} characters", cursor.len());
    }
}
