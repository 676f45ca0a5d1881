//! The endpoint's Streams API, as the emulator reads it: its answers, its shards, and its
//! records read into the emulator's cache.

use super::cache::MOST_RECORDS;
use super::kept::Kept;
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
    Ok(Ok(listed_in(&described)))
}

/// The shards a `DescribeStream` answer of the endpoint's lists.
pub(super) fn listed_in(described: &Value) -> Vec<EndpointShard> {
    let listed = described["StreamDescription"]["Shards"].as_array().map_or(&[][..], Vec::as_slice);
    listed
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
        .collect()
}

/// Reads one more page of endpoint shard `backend` of stream `arn` into `kept`, unless a pull
/// that started after pull number `came` (as [`Pulls`](super::cache::Pulls) numbers them) read
/// it to its end meanwhile: `Ok(true)` when the shard may hold more records now (the page was
/// full). One pull of a shard at a time; pages of it are served while the endpoint is asked.
pub(super) async fn pull(
    shared: &Shared,
    headers: &HeaderMap,
    (arn, backend): (&str, &str),
    kept: &Kept,
    came: u64,
) -> Result<Result<bool, Reply>, UpstreamError> {
    let _pulling = kept.pulling.lock().await;
    let last = {
        let records = kept.records.read().await;
        if records.read_to_end_since(came) {
            return Ok(Ok(false));
        }
        records.last().map(str::to_owned)
    };
    let number = shared.splits.pulls.start();
    let mut input = json!({ "StreamArn": arn, "ShardId": backend, "ShardIteratorType": "TRIM_HORIZON" });
    if let Some(last) = last {
        input["ShardIteratorType"] = json!("AFTER_SEQUENCE_NUMBER");
        input["SequenceNumber"] = json!(last);
    }
    let iterator = match call(shared, headers, "GetShardIterator", &input).await? {
        Ok(answer) => answer["ShardIterator"].as_str().map(str::to_owned),
        Err(refused) => return Ok(Err(refused)),
    };
    let Some(iterator) = iterator else {
        kept.records.write().await.read_to_end(number);
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
    let page_records = page["Records"].as_array().map_or(&[][..], Vec::as_slice);
    let more = page_records.len() >= MOST_RECORDS && page["NextShardIterator"].is_string();
    let mut records = kept.records.write().await;
    records.append(page_records);
    if !more {
        records.read_to_end(number);
    }
    Ok(Ok(more))
}

/// Reads endpoint shard `backend` of stream `arn` to its last record now.
pub(super) async fn pull_to_end(
    shared: &Shared,
    headers: &HeaderMap,
    shard: (&str, &str),
    kept: &Kept,
) -> Result<Result<(), Reply>, UpstreamError> {
    let came = shared.splits.pulls.started();
    loop {
        match pull(shared, headers, shard, kept, came).await? {
            Ok(true) => continue,
            Ok(false) => return Ok(Ok(())),
            Err(refused) => return Ok(Err(refused)),
        }
    }
}
