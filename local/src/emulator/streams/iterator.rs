//! The emulator's shard iterators: a served shard and the record its next page starts after.
//! They are read from the records the emulator keeps ([`super::cache`]), so they do not expire.

use super::shards::previous_number;
use super::{cache, endpoint_shards, Reply, Shared, UpstreamError, ITERATOR_PREFIX};
use base64::Engine;
use hyper::HeaderMap;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The emulator's iterator of one served shard.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct ServedIterator {
    pub arn: String,
    pub shard: String,
    /// The sequence number the next page starts after; from the shard's first record if `None`.
    pub after: Option<String>,
}

impl ServedIterator {
    pub fn encode(&self) -> String {
        let text = serde_json::to_vec(self).unwrap_or_default();
        format!("{ITERATOR_PREFIX}{}", base64::engine::general_purpose::STANDARD.encode(text))
    }

    pub fn decode(text: &str) -> Option<Self> {
        let encoded = text.strip_prefix(ITERATOR_PREFIX)?;
        let bytes = base64::engine::general_purpose::STANDARD.decode(encoded).ok()?;
        serde_json::from_slice(&bytes).ok()
    }
}

/// `GetShardIterator` of a served shard, of any of the four iterator types.
pub(super) async fn iterator(
    shared: &Shared,
    headers: &HeaderMap,
    arn: &str,
    request: &Value,
) -> Result<Reply, UpstreamError> {
    let id = request["ShardId"].as_str().unwrap_or_default();
    let mut served = shared.splits.served.write().await;
    let stream = served.entry(arn.to_owned()).or_default();
    if stream.find(id).is_none() {
        if let Ok(listed) = endpoint_shards(shared, headers, arn).await? {
            stream.sync(&listed);
        }
    }
    let Some(shard) = stream.find(id).cloned() else {
        return Ok(Reply::refused("ResourceNotFoundException", &format!("Shard {id} does not exist")));
    };
    let sequence = request["SequenceNumber"].as_str();
    let after = match (request["ShardIteratorType"].as_str(), sequence) {
        (Some("TRIM_HORIZON"), _) => shard.after.clone().filter(|after| after != "0"),
        (Some("AFTER_SEQUENCE_NUMBER"), Some(sequence)) => Some(sequence.to_owned()),
        (Some("AT_SEQUENCE_NUMBER"), Some(sequence)) => Some(previous_number(sequence)),
        (Some("LATEST"), _) => {
            let mut cache = shared.splits.cache.lock().await;
            let read = cache.entry((arn.to_owned(), shard.backend.clone())).or_default();
            if let Err(refused) = cache::pull_to_end(shared, headers, (arn, &shard.backend), read).await? {
                return Ok(refused);
            }
            let last = read.last().map(str::to_owned).or(shard.after.clone());
            // A closed shard's latest is its end.
            match (&shard.until, last) {
                (Some(until), _) => Some(until.clone()),
                (None, last) => last,
            }
        }
        _ => {
            return Ok(Reply::refused(
                "ValidationException",
                "an iterator type with the sequence number it needs",
            ));
        }
    };
    let served = ServedIterator { arn: arn.to_owned(), shard: shard.id, after };
    Ok(Reply::json(&json!({ "ShardIterator": served.encode() })))
}
