//! The Streams API of split streams, answered from served shards: the splits made, the shards
//! described, iterators given out and pages read.

use super::cache::MOST_RECORDS;
use super::endpoint::{self, call, endpoint_shards};
use super::iterator::ServedIterator;
use super::page::{keep, Stop};
use super::shards::previous_number;
use crate::emulator::reply::Reply;
use crate::emulator::state::Shared;
use crate::emulator::upstream::UpstreamError;
use hyper::HeaderMap;
use serde_json::{json, Value};

/// Makes the splits asked for `arn`'s table: each open shard closes at the endpoint's last
/// record now.
pub(super) async fn split_as_asked(
    shared: &Shared,
    headers: &HeaderMap,
    arn: &str,
) -> Result<(), UpstreamError> {
    let asked = shared.splits.take(arn);
    if asked.is_empty() {
        return Ok(());
    }
    let mut served = shared.splits.served.write().await;
    let stream = served.entry(arn.to_owned()).or_default();
    if let Ok(listed) = endpoint_shards(shared, headers, arn).await? {
        stream.sync(&listed);
    }
    let mut cache = shared.splits.cache.lock().await;
    for children in asked {
        for backend in stream.open_backends() {
            let read = cache.entry((arn.to_owned(), backend.clone())).or_default();
            // Refused, the split is made at the last record read.
            _ = endpoint::pull_to_end(shared, headers, (arn, &backend), read).await?;
            stream.split(&backend, read.last().unwrap_or("0"), children);
        }
    }
    Ok(())
}

/// `DescribeStream`: the endpoint's description with the served shards, all in one page.
pub(super) async fn describe(
    shared: &Shared,
    headers: &HeaderMap,
    arn: &str,
    request: &Value,
) -> Result<Reply, UpstreamError> {
    let mut described = match call(shared, headers, "DescribeStream", &json!({ "StreamArn": arn })).await? {
        Ok(described) => described,
        Err(refused) => return Ok(refused),
    };
    let mut served = shared.splits.served.write().await;
    let stream = served.entry(arn.to_owned()).or_default();
    if let Ok(listed) = endpoint_shards(shared, headers, arn).await? {
        stream.sync(&listed);
    }
    let after = request["ExclusiveStartShardId"].as_str();
    let start = after
        .and_then(|after| stream.shards.iter().position(|shard| shard.id == after))
        .map_or(0, |at| at + 1);
    let shards: Vec<Value> = stream.shards[start..]
        .iter()
        .map(|shard| {
            let mut range = json!({ "StartingSequenceNumber": shard.starting });
            if let Some(until) = &shard.until {
                range["EndingSequenceNumber"] = json!(until);
            }
            let mut listed = json!({ "ShardId": shard.id, "SequenceNumberRange": range });
            if let Some(parent) = &shard.parent {
                listed["ParentShardId"] = json!(parent);
            }
            listed
        })
        .collect();
    let description = &mut described["StreamDescription"];
    description["Shards"] = Value::Array(shards);
    if let Some(fields) = description.as_object_mut() {
        fields.remove("LastEvaluatedShardId");
    }
    Ok(Reply::json(&described))
}

/// `GetShardIterator` of a served shard, of any of the four iterator types.
pub(super) async fn shard_iterator(
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
            if let Err(refused) = endpoint::pull_to_end(shared, headers, (arn, &shard.backend), read).await? {
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

/// `GetRecords` of a served shard: up to `Limit` of its records after the iterator's position;
/// no next iterator once the shard ended. The endpoint's shard is read further only when no read
/// of it to its end started after the request came: pages asked for together (a reader of 256
/// shards) share one read of the endpoint, not one each, and still hold every record written
/// before they were asked for.
pub(super) async fn records(
    shared: &Shared,
    headers: &HeaderMap,
    request: &Value,
) -> Result<Reply, UpstreamError> {
    let came = shared.splits.pulls.started();
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
    let (mut kept, mut position, mut more) = (Vec::new(), at.after.clone(), !read.read_to_end_since(came));
    let stop = loop {
        if let Some(stop) = keep(&shard, read, limit, &mut kept, &mut position) {
            break stop;
        }
        if !more {
            // A shard closed by a split holds nothing written after it.
            break if shard.until.is_some() { Stop::Ended } else { Stop::AtEnd };
        }
        match endpoint::pull(shared, headers, (&at.arn, &shard.backend), read).await? {
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
