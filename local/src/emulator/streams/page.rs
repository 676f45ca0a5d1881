//! `GetRecords` of a served shard. A child of a split holds a share of the endpoint's records, so
//! one page of the endpoint's shard holds only a few of its records: the page served is filled
//! from as many of the endpoint's pages as it takes to reach the `Limit` asked for (or the
//! endpoint's last record now), as DynamoDB fills a page of a shard from that shard's records.

use super::shards::ServedShard;
use super::{call, Reply, ServedIterator, Shared, UpstreamError};
use hyper::HeaderMap;
use serde_json::{json, Value};

/// The most records a page of the Streams API holds, and what is asked of the endpoint a page.
const MOST_RECORDS: usize = 1_000;

/// How the reading of the endpoint's pages for one served page stopped.
enum Stop {
    /// The served page holds `Limit` records; the next one starts after the last record seen.
    Full,
    /// The endpoint's shard holds no more records now: the next page starts at its iterator.
    AtEnd(Option<String>),
    /// The served shard ended (a record past its end was seen, or it was closed by a split and
    /// the endpoint holds no more of its records).
    Ended,
}

/// `GetRecords` of a served shard: up to `Limit` of its records, read from the endpoint's shard
/// it is cut from; no next iterator once it is past the shard's end (or at the endpoint's end of
/// a shard closed by a split).
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
    let (mut kept, mut inner, mut last_seen) = (Vec::new(), at.inner.clone(), None::<String>);
    let stop = loop {
        let input = json!({ "ShardIterator": inner, "Limit": MOST_RECORDS });
        let page = match call(shared, headers, "GetRecords", &input).await? {
            Ok(page) => page,
            // The first page's refusal is the caller's (an expired iterator, say); a later one
            // ends the page at what was read, and the next one starts after it.
            Err(refused) if last_seen.is_none() => return Ok(refused),
            Err(_) => break Stop::Full,
        };
        let records = page["Records"].as_array().map_or(&[][..], Vec::as_slice);
        if let Some(stop) = keep(&shard, records, limit, &mut kept, &mut last_seen) {
            break stop;
        }
        let next = page["NextShardIterator"].as_str().map(str::to_owned);
        match next {
            Some(next) if records.len() >= MOST_RECORDS => inner = next,
            // A short page (no more now, or cut at 1 MB): the served page ends with it.
            Some(next) if !records.is_empty() => break Stop::AtEnd(Some(next)),
            // Nothing more: a shard closed by a split holds nothing written after it.
            _ if shard.until.is_some() => break Stop::Ended,
            next => break Stop::AtEnd(next),
        }
    };
    let next = match stop {
        Stop::Ended => None,
        Stop::AtEnd(next) => next,
        Stop::Full => match &last_seen {
            Some(sequence) => match after(shared, headers, &at.arn, &shard.backend, sequence).await? {
                Ok(next) => Some(next),
                Err(refused) => return Ok(refused),
            },
            None => Some(at.inner.clone()),
        },
    };
    let mut answer = json!({ "Records": kept });
    if let Some(next) = next {
        let next = ServedIterator { arn: at.arn, shard: at.shard, inner: next };
        answer["NextShardIterator"] = json!(next.encode());
    }
    Ok(Reply::json(&answer))
}

/// Keeps the records of `records` (one page of the endpoint's) that `shard` holds, up to `limit`
/// in all; `last_seen` is the last record looked at. `Some`: the served page stops here.
fn keep(
    shard: &ServedShard,
    records: &[Value],
    limit: usize,
    kept: &mut Vec<Value>,
    last_seen: &mut Option<String>,
) -> Option<Stop> {
    for record in records {
        let sequence = record["dynamodb"]["SequenceNumber"].as_str().unwrap_or("0");
        if shard.past_end(sequence) {
            return Some(Stop::Ended);
        }
        *last_seen = Some(sequence.to_owned());
        if shard.holds(sequence, &record["dynamodb"]["Keys"]) {
            kept.push(record.clone());
            if kept.len() >= limit {
                return Some(Stop::Full);
            }
        }
    }
    None
}

/// The endpoint's iterator of shard `backend` just after record `sequence`; `Err`: its refusal.
async fn after(
    shared: &Shared,
    headers: &HeaderMap,
    arn: &str,
    backend: &str,
    sequence: &str,
) -> Result<Result<String, Reply>, UpstreamError> {
    let input = json!({
        "StreamArn": arn,
        "ShardId": backend,
        "ShardIteratorType": "AFTER_SEQUENCE_NUMBER",
        "SequenceNumber": sequence,
    });
    let answer = call(shared, headers, "GetShardIterator", &input).await?;
    Ok(answer.map(|answer| answer["ShardIterator"].as_str().unwrap_or_default().to_owned()))
}
