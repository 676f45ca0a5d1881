//! Cursors of sharded queries: the query's fingerprint, the shard layout's fingerprint, and a
//! position per read.
//!
//! The payload is `{"v", "f": query fingerprint, "l": layout fingerprint, "p": position}`, sealed
//! like every cursor (checksum, or HMAC with a cursor key). The position of an in-order read is
//! `{"i": shard, "k": key or null}`; of a merged read, `{"m": [...]}` with per shard `"n"` (not
//! started), `"x"` (exhausted) or the key of the last item emitted from it.

use super::{ShardPosition, Start};
use crate::query::cursor::{hex, json_to_key, key_to_json, open, seal, CursorError, VERSION};
use crate::query::{ShardMode, Shards};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// A fingerprint of a shard layout: its declared fingerprint, mode and partitions.
pub(crate) fn layout_fingerprint(shards: &Shards) -> String {
    let mut hasher = Sha256::new();
    let mode = match shards.mode {
        ShardMode::InOrder => "in-order",
        ShardMode::Merge => "merge",
    };
    for part in [shards.layout.as_str(), mode].into_iter().chain(shards.partitions.iter().map(String::as_str))
    {
        hasher.update((part.len() as u64).to_be_bytes());
        hasher.update(part.as_bytes());
    }
    hex(&hasher.finalize()[..12])
}

/// Encodes a cursor for the query with `fingerprint` over `shards`, resuming at `position`.
pub(crate) fn encode(
    fingerprint: &str,
    shards: &Shards,
    position: &Start,
    signing_key: Option<&[u8]>,
) -> String {
    let position = match position {
        Start::InOrder { shard, after } => json!({ "i": shard, "k": after.as_ref().map(key_to_json) }),
        Start::Merge(lanes) => {
            let lanes: Vec<Value> = lanes
                .iter()
                .map(|lane| match lane {
                    ShardPosition::NotStarted => json!("n"),
                    ShardPosition::Exhausted => json!("x"),
                    ShardPosition::After(key) => key_to_json(key),
                })
                .collect();
            json!({ "m": lanes })
        }
    };
    let payload = json!({ "v": VERSION, "f": fingerprint, "l": layout_fingerprint(shards), "p": position });
    seal(&payload, signing_key)
}

/// Decodes a cursor for the query with `fingerprint` over `shards`.
///
/// A cursor of another query is [`CursorError::WrongQuery`]; of the same query over another
/// layout, [`CursorError::LayoutChanged`].
pub(crate) fn decode(
    cursor: &str,
    fingerprint: &str,
    shards: &Shards,
    signing_key: Option<&[u8]>,
) -> Result<Start, CursorError> {
    let value = open(cursor, fingerprint, signing_key)?;
    if value["l"].as_str() != Some(layout_fingerprint(shards).as_str()) {
        return Err(CursorError::LayoutChanged);
    }
    let position = &value["p"];
    let count = shards.partitions.len();
    match shards.mode {
        ShardMode::InOrder => {
            let shard = position["i"].as_u64().and_then(|shard| usize::try_from(shard).ok());
            let shard = shard.filter(|shard| *shard < count).ok_or(CursorError::Malformed)?;
            let after = match &position["k"] {
                Value::Null => None,
                key => Some(json_to_key(key)?),
            };
            Ok(Start::InOrder { shard, after })
        }
        ShardMode::Merge => {
            let lanes = position["m"].as_array().filter(|lanes| lanes.len() == count);
            let lanes = lanes.ok_or(CursorError::Malformed)?;
            let lane = |lane: &Value| match lane.as_str() {
                Some("n") => Ok(ShardPosition::NotStarted),
                Some("x") => Ok(ShardPosition::Exhausted),
                Some(_) => Err(CursorError::Malformed),
                None => json_to_key(lane).map(ShardPosition::After),
            };
            lanes.iter().map(lane).collect::<Result<_, _>>().map(Start::Merge)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::types::AttributeValue;

    fn shards(mode: ShardMode, layout: &str) -> Shards {
        Shards {
            partitions: (0..3).map(|i| format!("b#{i}")).collect(),
            mode,
            layout: layout.into(),
            window: None,
            dynamic: None,
        }
    }

    fn key(sk: &str) -> crate::error::Item {
        [("pk".to_owned(), AttributeValue::S("b#1".into())), ("sk".to_owned(), AttributeValue::S(sk.into()))]
            .into_iter()
            .collect()
    }

    #[test]
    fn positions_round_trip() {
        let merge = shards(ShardMode::Merge, "hash:3");
        let start = Start::Merge(vec![
            ShardPosition::NotStarted,
            ShardPosition::After(key("é#1")),
            ShardPosition::Exhausted,
        ]);
        let cursor = encode("fp", &merge, &start, Some(b"k"));
        assert_eq!(decode(&cursor, "fp", &merge, Some(b"k")), Ok(start));
        let in_order = shards(ShardMode::InOrder, "range:abc");
        for start in
            [Start::InOrder { shard: 2, after: None }, Start::InOrder { shard: 0, after: Some(key("a")) }]
        {
            let cursor = encode("fp", &in_order, &start, None);
            assert_eq!(decode(&cursor, "fp", &in_order, None), Ok(start));
        }
    }

    #[test]
    fn other_layouts_and_queries_are_rejected() {
        let merge = shards(ShardMode::Merge, "hash:3");
        let cursor = encode("fp", &merge, &Start::Merge(vec![ShardPosition::NotStarted; 3]), None);
        assert_eq!(
            decode(&cursor, "fp", &shards(ShardMode::Merge, "hash:4"), None),
            Err(CursorError::LayoutChanged)
        );
        assert_eq!(
            decode(&cursor, "fp", &shards(ShardMode::InOrder, "hash:3"), None),
            Err(CursorError::LayoutChanged)
        );
        let mut fewer = merge.clone();
        fewer.partitions.pop();
        assert_eq!(decode(&cursor, "fp", &fewer, None), Err(CursorError::LayoutChanged));
        assert_eq!(decode(&cursor, "other", &merge, None), Err(CursorError::WrongQuery));
        assert_eq!(decode(&cursor, "fp", &merge, Some(b"k")), Err(CursorError::Tampered));
    }

    #[test]
    fn out_of_range_positions_are_malformed() {
        let in_order = shards(ShardMode::InOrder, "r");
        let cursor = encode("fp", &in_order, &Start::InOrder { shard: 3, after: None }, None);
        assert_eq!(decode(&cursor, "fp", &in_order, None), Err(CursorError::Malformed));
        let merge = shards(ShardMode::Merge, "h");
        let cursor = encode("fp", &merge, &Start::Merge(vec![ShardPosition::Exhausted; 2]), None);
        assert_eq!(decode(&cursor, "fp", &merge, None), Err(CursorError::Malformed));
    }
}
