//! `GetRecords` of a served shard, from the endpoint's records the emulator keeps. A child of a
//! split holds a share of them; its page is filled to the `Limit` asked for (or to the
//! endpoint's last record now), as DynamoDB fills a page of a shard with that shard's records.

use super::cache::{self, ReadRecords, MOST_RECORDS};
use super::shards::ServedShard;
use super::{Reply, ServedIterator, Shared, UpstreamError};
use hyper::HeaderMap;
use serde_json::{json, Value};

/// Why a served page stopped where it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// It holds `Limit` records.
    Full,
    /// The endpoint's shard holds no more records now.
    AtEnd,
    /// The served shard ended: a record past its end was seen, or it was closed by a split and
    /// the endpoint holds no more of its records.
    Ended,
}

/// `GetRecords` of a served shard: up to `Limit` of its records after the iterator's position;
/// no next iterator once the shard ended.
pub(super) async fn records(
    shared: &Shared,
    headers: &HeaderMap,
    request: &Value,
) -> Result<Reply, UpstreamError> {
    let Some(at) = request["ShardIterator"].as_str().and_then(ServedIterator::decode) else {
        return Ok(Reply::refused("ValidationException", "Invalid ShardIterator"));
    };
    let served = shared.splits.served.read().await; // no split until the page is kept
    let Some(shard) = served.get(&at.arn).and_then(|stream| stream.find(&at.shard)).cloned() else {
        return Ok(Reply::refused("ResourceNotFoundException", "the shard is not served"));
    };
    let limit =
        request["Limit"].as_u64().map_or(MOST_RECORDS, |limit| (limit as usize).clamp(1, MOST_RECORDS));
    let mut cache = shared.splits.cache.lock().await;
    let read = cache.entry((at.arn.clone(), shard.backend.clone())).or_default();
    let (mut kept, mut position, mut more) = (Vec::new(), at.after.clone(), true);
    let stop = loop {
        if let Some(stop) = keep(&shard, read, limit, &mut kept, &mut position) {
            break stop;
        }
        if !more {
            // A shard closed by a split holds nothing written after it.
            break if shard.until.is_some() { Stop::Ended } else { Stop::AtEnd };
        }
        match cache::pull(shared, headers, (&at.arn, &shard.backend), read).await? {
            Ok(pulled) => more = pulled,
            Err(refused) if kept.is_empty() => return Ok(refused),
            Err(_) => break Stop::AtEnd,
        }
    };
    let mut answer = json!({ "Records": kept });
    if stop != Stop::Ended {
        let next = ServedIterator { arn: at.arn, shard: at.shard, after: position };
        answer["NextShardIterator"] = json!(next.encode());
    }
    Ok(Reply::json(&answer))
}

/// Keeps the records `shard` holds after `position` among those read, up to `limit` in all;
/// `position` moves to the last record looked at. `Some`: the page stops there.
fn keep(
    shard: &ServedShard,
    read: &ReadRecords,
    limit: usize,
    kept: &mut Vec<Value>,
    position: &mut Option<String>,
) -> Option<Stop> {
    let start = read.first_after(position.as_deref());
    for read in read.from(start) {
        if shard.past_end(&read.sequence) {
            return Some(Stop::Ended);
        }
        *position = Some(read.sequence.clone());
        if shard.holds(&read.sequence, &read.key) {
            kept.push(read.record.clone());
            if kept.len() >= limit {
                return Some(Stop::Full);
            }
        }
    }
    None
}
