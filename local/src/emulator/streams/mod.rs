//! Split streams: DynamoDB splits a stream's shards as a table grows and when a shard is four
//! hours old (the parent closes, its children hold the later records, each item's in one
//! child); DynamoDB Local and the embedded DynamoDB keep one shard a stream. After
//! [`Emulator::split_stream`](super::Emulator::split_stream), the emulator serves the Streams API
//! (`DescribeStream`, `GetShardIterator`, `GetRecords`) of that table's stream as shards cut from
//! the endpoint's own ([`shards`]), so that a reader's handling of lineage meets what DynamoDB
//! does: parents listed with their end, children that must wait for them.
//!
//! A split is made at the first Streams request for the table after the call, with that
//! request's credentials: each open shard closes at the last record written by then. The
//! endpoint's records are read once and kept ([`cache`]); a served shard's page holds its share
//! of them, filled to the limit asked for ([`page`]). Iterators are the emulator's own (a shard
//! and a position, [`iterator`]); a split waits for pages being read, so no page straddles one.

mod cache;
mod iterator;
mod page;
mod shards;
pub(super) mod splits;

use super::reply::Reply;
use super::state::Shared;
use super::upstream::{Answer, UpstreamError};
use hyper::HeaderMap;
use iterator::ServedIterator;
use serde_json::{json, Value};
use shards::EndpointShard;

const STREAMS_PREFIX: &str = "DynamoDBStreams_20120810.";
/// What marks an iterator as the emulator's.
pub(super) const ITERATOR_PREFIX: &str = "emulated:";

/// Answers a Streams request from served shards; `None`: the endpoint answers it as it is.
pub(crate) async fn handle(
    shared: &Shared,
    headers: &HeaderMap,
    target: &str,
    body: &[u8],
) -> Result<Option<Reply>, UpstreamError> {
    let Some(operation) = target.strip_prefix(STREAMS_PREFIX) else { return Ok(None) };
    if !shared.splits.any()
        && !body.windows(ITERATOR_PREFIX.len()).any(|bytes| bytes == ITERATOR_PREFIX.as_bytes())
    {
        return Ok(None);
    }
    let request: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let arn = match operation {
        "GetRecords" => request["ShardIterator"].as_str().and_then(ServedIterator::decode).map(|at| at.arn),
        "DescribeStream" | "GetShardIterator" => request["StreamArn"].as_str().map(str::to_owned),
        _ => None,
    };
    let Some(arn) = arn else { return Ok(None) };
    split_as_asked(shared, headers, &arn).await?;
    match operation {
        "DescribeStream" => describe(shared, headers, &arn, &request).await.map(Some),
        "GetShardIterator" => iterator::iterator(shared, headers, &arn, &request).await.map(Some),
        _ => page::records(shared, headers, &request).await.map(Some),
    }
}

/// Calls the endpoint's Streams API; `Err(reply)`: its refusal, for the caller as it came.
pub(super) async fn call(
    shared: &Shared,
    headers: &HeaderMap,
    operation: &'static str,
    input: &Value,
) -> Result<Result<Value, Reply>, UpstreamError> {
    let answer: Answer =
        shared.upstream.send_as(headers, &format!("{STREAMS_PREFIX}{operation}"), operation, input).await?;
    if !answer.status.is_success() {
        return Ok(Err(Reply::forward(answer)));
    }
    serde_json::from_slice(&answer.body).map(Ok).map_err(|source| UpstreamError::Answer { operation, source })
}

/// The endpoint's shards of stream `arn`, as it lists them.
pub(super) async fn endpoint_shards(
    shared: &Shared,
    headers: &HeaderMap,
    arn: &str,
) -> Result<Result<Vec<EndpointShard>, Reply>, UpstreamError> {
    let described = match call(shared, headers, "DescribeStream", &json!({ "StreamArn": arn })).await? {
        Ok(described) => described,
        Err(refused) => return Ok(Err(refused)),
    };
    let listed = described["StreamDescription"]["Shards"].as_array().cloned().unwrap_or_default();
    Ok(Ok(listed
        .iter()
        .filter_map(|shard| {
            Some(EndpointShard {
                id: shard["ShardId"].as_str()?.to_owned(),
                parent: shard["ParentShardId"].as_str().map(str::to_owned),
                starting: shard["SequenceNumberRange"]["StartingSequenceNumber"]
                    .as_str()
                    .unwrap_or("0")
                    .to_owned(),
            })
        })
        .collect()))
}

/// Makes the splits asked for `arn`'s table: each open shard closes at the endpoint's last
/// record now.
async fn split_as_asked(shared: &Shared, headers: &HeaderMap, arn: &str) -> Result<(), UpstreamError> {
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
            _ = cache::pull_to_end(shared, headers, (arn, &backend), read).await?;
            stream.split(&backend, read.last().unwrap_or("0"), children);
        }
    }
    Ok(())
}

/// `DescribeStream`: the endpoint's description with the served shards, all in one page.
async fn describe(
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
