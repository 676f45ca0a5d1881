//! The Streams API of split streams, answered from served shards: the splits made, the shards
//! described, iterators given out and pages read.

use super::cache::MOST_RECORDS;
use super::endpoint::{self, call, endpoint_shards, listed_in};
use super::iterator::ServedIterator;
use super::page::{keep, Stop};
use super::shards::{previous_number, EndpointShard};
use crate::emulator::reply::Reply;
use crate::emulator::state::Shared;
use crate::emulator::upstream::UpstreamError;
use hyper::HeaderMap;
use serde_json::{json, Value};
use std::sync::PoisonError;

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
    for children in asked {
        for backend in stream.open_backends() {
            let kept = shared.splits.cache.of(arn, &backend);
            // Refused, the split is made at the last record read.
            _ = endpoint::pull_to_end(shared, headers, (arn, &backend), &kept).await?;
            let last = kept.records.read().await.last().map(str::to_owned);
            stream.split(&backend, last.as_deref().unwrap_or("0"), children);
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
    serve_listed(shared, arn, &listed_in(&described)).await;
    let served = shared.splits.served.read().await;
    let Some(stream) = served.get(arn) else { return Ok(Reply::json(&described)) };
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

/// Serves the shards of `listed` (the endpoint's, as it lists them now) not served yet: the
/// streams held for writing only when there are some, so that listings do not wait for pages.
async fn serve_listed(shared: &Shared, arn: &str, listed: &[EndpointShard]) {
    let known = shared.splits.served.read().await.get(arn).is_some_and(|stream| stream.serves(listed));
    if !known {
        shared.splits.served.write().await.entry(arn.to_owned()).or_default().sync(listed);
    }
}

/// `GetShardIterator` of a served shard, of any of the four iterator types.
pub(super) async fn shard_iterator(
    shared: &Shared,
    headers: &HeaderMap,
    arn: &str,
    request: &Value,
) -> Result<Reply, UpstreamError> {
    let id = request["ShardId"].as_str().unwrap_or_default();
    let find =
        || async { shared.splits.served.read().await.get(arn).and_then(|stream| stream.find(id)).cloned() };
    let mut found = find().await;
    if found.is_none() {
        if let Ok(listed) = endpoint_shards(shared, headers, arn).await? {
            serve_listed(shared, arn, &listed).await;
        }
        found = find().await;
    }
    let Some(shard) = found else {
        return Ok(Reply::refused("ResourceNotFoundException", &format!("Shard {id} does not exist")));
    };
    let sequence = request["SequenceNumber"].as_str();
    let after = match (request["ShardIteratorType"].as_str(), sequence) {
        (Some("TRIM_HORIZON"), _) => shard.after.clone().filter(|after| after != "0"),
        (Some("AFTER_SEQUENCE_NUMBER"), Some(sequence)) => Some(sequence.to_owned()),
        (Some("AT_SEQUENCE_NUMBER"), Some(sequence)) => Some(previous_number(sequence)),
        (Some("LATEST"), _) => {
            let kept = shared.splits.cache.of(arn, &shard.backend);
            if let Err(refused) = endpoint::pull_to_end(shared, headers, (arn, &shard.backend), &kept).await?
            {
                return Ok(refused);
            }
            let last = kept.records.read().await.last().map(str::to_owned).or(shard.after.clone());
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
    let records = shared.splits.cache.of(&at.arn, &shard.backend);
    let (mut kept, mut position) = (Vec::new(), at.after.clone());
    let stop = loop {
        {
            // What is kept is looked at and found read to its end under one look, so that a pull
            // appending meanwhile is either looked at or pulled after.
            let read = records.records.read().await;
            let stop = {
                let mut held = records.held.lock().unwrap_or_else(PoisonError::into_inner);
                let held = held.entry(shard.id.clone()).or_default();
                keep(&shard, held, &read, limit, &mut kept, &mut position)
            };
            if let Some(stop) = stop {
                break stop;
            }
            if read.read_to_end_since(came) {
                // A shard closed by a split holds nothing written after it.
                break if shard.until.is_some() { Stop::Ended } else { Stop::AtEnd };
            }
        }
        match endpoint::pull(shared, headers, (&at.arn, &shard.backend), &records, came).await? {
            Ok(_) => {}
            Err(refused) if kept.is_empty() => return Ok(refused),
            Err(_) => break Stop::AtEnd,
        }
    };
    // The records as they were read, written into the answer as they are.
    let mut body = String::with_capacity(kept.iter().map(|text| text.len() + 1).sum::<usize>() + 200);
    body.push_str("{\"Records\":[");
    for (at, text) in kept.iter().enumerate() {
        if at > 0 {
            body.push(',');
        }
        body.push_str(text);
    }
    body.push(']');
    if stop != Stop::Ended {
        let next = ServedIterator { arn: at.arn, shard: at.shard, after: position };
        body.push_str(",\"NextShardIterator\":");
        body.push_str(&Value::String(next.encode()).to_string());
    }
    body.push('}');
    Ok(Reply::json_text(body))
}
