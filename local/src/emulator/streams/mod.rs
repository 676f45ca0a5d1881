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
//! endpoint's records are read once ([`endpoint`]) and kept ([`cache`], [`kept`]); a served shard's page
//! holds its share of them, filled to the limit asked for ([`page`]), answered by [`serve`].
//! Iterators are the emulator's own (a shard and a position, [`iterator`]); a split waits for
//! pages being read, so no page straddles one.
//!
//! Every stream, split or not, is described at most ten times a second, as DynamoDB Streams
//! answers `DescribeStream` ([`describe_limit`]).

mod cache;
pub(super) mod describe_limit;
mod endpoint;
mod iterator;
mod kept;
mod page;
mod serve;
mod shards;
pub(super) mod splits;

use super::reply::Reply;
use super::state::Shared;
use super::upstream::UpstreamError;
use endpoint::STREAMS_PREFIX;
use hyper::HeaderMap;
use iterator::{ServedIterator, ITERATOR_PREFIX};
use serde_json::Value;

/// Answers a Streams request from served shards; `None`: the endpoint answers it as it is.
pub(crate) async fn handle(
    shared: &Shared,
    headers: &HeaderMap,
    target: &str,
    body: &[u8],
) -> Result<Option<Reply>, UpstreamError> {
    let Some(operation) = target.strip_prefix(STREAMS_PREFIX) else { return Ok(None) };
    if operation == "DescribeStream" {
        let request: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        if !shared.admit_describe(request["StreamArn"].as_str().unwrap_or_default()) {
            let message = "DescribeStream is answered at most 10 times a second";
            return Ok(Some(Reply::refused("LimitExceededException", message)));
        }
    }
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
    serve::split_as_asked(shared, headers, &arn).await?;
    match operation {
        "DescribeStream" => serve::describe(shared, headers, &arn, &request).await.map(Some),
        "GetShardIterator" => serve::shard_iterator(shared, headers, &arn, &request).await.map(Some),
        _ => serve::records(shared, headers, &request).await.map(Some),
    }
}
