//! Reading a time window's bucket directory (see [`crate::shard::directory_partition`]): the
//! part of it from the next group the merge needs, in the read's order.
//!
//! Read with the consistency of the read it serves. Strongly consistent for a consistent read of
//! the table: a write is sent only after its partition's entry was acknowledged
//! (`write::directory`), so every write acknowledged before the read has its entry in what this
//! returns. Eventually consistent otherwise, at half the units: such a read may miss a write
//! acknowledged a moment before it, as its own items may (a global secondary index, which every
//! bucketed index with a directory but the table's own is, is only ever read so: DynamoDB copies
//! items to it asynchronously, so a strongly consistent directory would not make it see them
//! sooner).

use super::lanes::DirectorySpan;
use crate::consumption::{count_read, watched};
use crate::db::Db;
use crate::error::{Error, Result};
use crate::query::request::RawPage;
use crate::query::{QueryPlan, QueryStats};
use crate::shard::{
    bucket_of_directory_key, bucket_partition, directory_partition, directory_sort_key, DIRECTORY_SHARDS,
};
use crate::telemetry::{Reported, Request as Traced};
use aws_sdk_dynamodb::operation::query::QueryOutput;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};

/// The most directory entries one request asks for when the read has no limit.
const WHOLE_READ_ENTRIES: usize = 1_000;

/// How many entries to ask for when `remaining` items are still wanted: each listed bucket
/// holds at least one item unless it was deleted, so about as many as the items (at least 8,
/// since a small request costs as much as a read unit holds).
pub(crate) fn entries_wanted(remaining: Option<usize>) -> usize {
    remaining.map_or(WHOLE_READ_ENTRIES, |remaining| remaining.saturating_add(1).clamp(8, WHOLE_READ_ENTRIES))
}

/// The sort key after the last of `entries`, where the next part of a directory read in time
/// order starts; `None` when there is none.
pub(crate) fn after_last(entries: &[(i64, Vec<u32>)]) -> Option<String> {
    entries.last().and_then(|(start, _)| start.checked_add(1)).map(directory_sort_key)
}

/// Sends one request for the entries of `span`, at most `limit` of them.
pub(crate) async fn read(
    db: &Db,
    plan: &QueryPlan,
    span: DirectorySpan,
    limit: usize,
    stats: &QueryStats,
) -> Result<RawPage> {
    let table = plan.table;
    let Some(sort_key) = table.sort_key else {
        let reason = format!("table `{}` has no sort key to keep a bucket directory in", table.name);
        return Err(Error::InvalidQuery { reason });
    };
    stats.record_directory_request();
    let partition = span.partition;
    let query = db
        .client()
        .query()
        .table_name(db.name_of(table.name))
        .key_condition_expression("#pk = :pk AND #sk BETWEEN :low AND :high")
        .expression_attribute_names("#pk", table.partition_key)
        .expression_attribute_names("#sk", sort_key)
        .expression_attribute_values(":pk", AttributeValue::S(partition.clone()))
        .expression_attribute_values(":low", AttributeValue::S(span.low))
        .expression_attribute_values(":high", AttributeValue::S(span.high))
        .scan_index_forward(span.forward)
        .consistent_read(plan.consistent)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .limit(limit.clamp(1, i32::MAX as usize) as i32);
    let traced = Traced { sends: "Query", table: db.name_of(table.name) };
    let span = traced.span();
    span.record("aws.dynamodb.consistent_read", plan.consistent);
    span.record("aws.dynamodb.limit", crate::telemetry::int(limit));
    let sent = async { query.send().await.map_err(|error| Error::from_sdk("Query", error)) };
    let output = traced.send(span, sent, |output: &QueryOutput| Reported {
        consumed: output.consumed_capacity.iter().collect(),
        count: Some(output.count),
        scanned: Some(output.scanned_count),
    });
    let (output, throttles) = watched(output).await;
    let units =
        |output: &QueryOutput| output.consumed_capacity.as_ref().and_then(|consumed| consumed.capacity_units);
    let place = (db.name_of(table.name), None, partition.as_str());
    let units_read = output.as_ref().map(|output| units(output).unwrap_or(0.0));
    count_read(db.meter(), place, plan.type_name, units_read, &throttles);
    let output = output?;
    let capacity = units(&output).unwrap_or(0.0);
    let items = output.items.unwrap_or_default();
    stats.record_response(0, capacity);
    Ok(RawPage { items, last_evaluated_key: output.last_evaluated_key, capacity_units: capacity })
}

/// The entries of a page of the directory of `plan`'s table: each bucket's start and the shards
/// written in it. An item that is not an entry is left out.
pub(crate) fn entries(plan: &QueryPlan, page: &RawPage) -> Vec<(i64, Vec<u32>)> {
    let Some(sort_key) = plan.table.sort_key else { return Vec::new() };
    page.items
        .iter()
        .filter_map(|item| {
            let start = bucket_of_directory_key(item.get(sort_key)?.as_s().ok()?)?;
            let shards = match item.get(DIRECTORY_SHARDS) {
                Some(AttributeValue::Ns(shards)) => {
                    shards.iter().filter_map(|shard| shard.parse().ok()).collect()
                }
                _ => Vec::new(),
            };
            Some((start, shards))
        })
        .collect()
}

/// The partition keys of `plan`'s time window that its bucket directory lists, in time order:
/// every part of the directory the window covers, read as `plan` reads. `None` when the
/// plan's index keeps no directory.
pub(crate) async fn listed_partitions(db: &Db, plan: &QueryPlan) -> Result<Option<Vec<String>>> {
    let Some(shards) = plan.shards.as_ref().filter(|shards| shards.directory) else { return Ok(None) };
    let (Some(window), Some(index)) = (&shards.window, plan.index) else { return Ok(None) };
    if window.from > window.to {
        return Ok(Some(Vec::new()));
    }
    let partition = directory_partition(index.name, &window.partition);
    let last = directory_sort_key(window.bucket.start(window.to));
    let mut low = directory_sort_key(window.bucket.start(window.from));
    let stats = QueryStats::new(1);
    let mut listed = Vec::new();
    loop {
        let span = DirectorySpan { partition: partition.clone(), low, high: last.clone(), forward: true };
        let page = read(db, plan, span, WHOLE_READ_ENTRIES, &stats).await?;
        let entries = entries(plan, &page);
        for (start, written) in &entries {
            let within = written.iter().filter(|shard| window.shards.contains(shard));
            listed.extend(
                within.map(|&shard| bucket_partition(&window.partition, shard, window.bucket, *start)),
            );
        }
        match (page.last_evaluated_key, after_last(&entries)) {
            (Some(_), Some(next)) => low = next,
            _ => return Ok(Some(listed)),
        }
    }
}
