//! The endpoint's Streams API, as the emulator reads it: its answers, its shards, and its
//! records read into the emulator's cache.

use super::cache::{ReadRecords, MOST_RECORDS};
use super::shards::EndpointShard;
use crate::emulator::reply::Reply;
use crate::emulator::state::Shared;
use crate::emulator::upstream::{Answer, UpstreamError};
use hyper::HeaderMap;
use serde_json::{json, Value};

pub(super) const STREAMS_PREFIX: &str = "DynamoDBStreams_20120810.";

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

/// Reads one more page of endpoint shard `backend` of stream `arn` into `read`: `Ok(true)` when
/// the shard may hold more records now (the page was full).
pub(super) async fn pull(
    shared: &Shared,
    headers: &HeaderMap,
    (arn, backend): (&str, &str),
    read: &mut ReadRecords,
) -> Result<Result<bool, Reply>, UpstreamError> {
    let number = shared.splits.pulls.start();
    let mut input = json!({ "StreamArn": arn, "ShardId": backend, "ShardIteratorType": "TRIM_HORIZON" });
    if let Some(last) = read.last() {
        input["ShardIteratorType"] = json!("AFTER_SEQUENCE_NUMBER");
        input["SequenceNumber"] = json!(last);
    }
    let iterator = match call(shared, headers, "GetShardIterator", &input).await? {
        Ok(answer) => answer["ShardIterator"].as_str().map(str::to_owned),
        Err(refused) => return Ok(Err(refused)),
    };
    let Some(iterator) = iterator else {
        read.read_to_end(number);
        return Ok(Ok(false));
    };
    let page = match call(
        shared,
        headers,
        "GetRecords",
        &json!({ "ShardIterator": iterator, "Limit": MOST_RECORDS }),
    )
    .await?
    {
        Ok(page) => page,
        Err(refused) => return Ok(Err(refused)),
    };
    let records = page["Records"].as_array().map_or(&[][..], Vec::as_slice);
    read.append(records);
    let more = records.len() >= MOST_RECORDS && page["NextShardIterator"].is_string();
    if !more {
        read.read_to_end(number);
    }
    Ok(Ok(more))
}

/// Reads endpoint shard `backend` of stream `arn` to its last record now.
pub(super) async fn pull_to_end(
    shared: &Shared,
    headers: &HeaderMap,
    shard: (&str, &str),
    read: &mut ReadRecords,
) -> Result<Result<(), Reply>, UpstreamError> {
    loop {
        match pull(shared, headers, shard, read).await? {
            Ok(true) => continue,
            Ok(false) => return Ok(Ok(())),
            Err(refused) => return Ok(Err(refused)),
        }
    }
}
