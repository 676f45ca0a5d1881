//! `dynashard inspect`: items per shard of a table or index from a parallel scan, with a
//! histogram, the hot shards and the max/mean ratio of each sharded key, and for time-bucketed
//! keys the buckets, the hot buckets and the fullest partition.

pub mod balance;
pub mod bucket_label;
pub mod buckets;
pub mod histogram;
pub mod partition_key;
pub mod report;

use crate::args::InspectArgs;
use crate::dynamo::{self, Target};
use crate::error::CliError;
use crate::progress;
use aws_sdk_dynamodb::types::AttributeValue;
use balance::{Balance, Counted};
use std::collections::HashMap;
use std::io::Write;

/// Runs `dynashard inspect`.
pub fn run(args: InspectArgs) -> Result<(), CliError> {
    let text = crate::runtime()?.block_on(inspect(&args))?;
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .map_err(|error| CliError::io("writing the report", error))
}

async fn inspect(args: &InspectArgs) -> Result<String, CliError> {
    let endpoint = args.connection.endpoint.as_deref();
    let client = dynamo::client(endpoint).await;
    let target = Target { table: args.table.clone(), index: args.index.clone() };
    let shape = dynamo::describe(&client, &target, &dynamo::describe_endpoint(endpoint)).await?;
    let bar = progress::items(shape.item_count, "scanning");
    let mut counts: HashMap<String, u64> = HashMap::new();
    dynamo::scan_attribute(&client, &target, &shape.partition_key, args.connection.segments, |page| {
        bar.inc(page.len() as u64);
        for value in page.into_iter().flatten() {
            *counts.entry(partition_text(value)).or_default() += 1;
        }
        Ok(())
    })
    .await?;
    bar.finish_and_clear();
    let recorded = match (&args.metadata_table, &args.index) {
        (Some(metadata), Some(index)) => {
            recorded_counts(metadata, &args.table, index, &counts, endpoint).await?
        }
        _ => HashMap::new(),
    };
    let count_of = |logical: &str| match (recorded.get(logical), args.shards) {
        (Some(&count), _) => Some((count, Counted::Recorded)),
        (None, Some(declared)) => Some((declared, Counted::Declared)),
        (None, None) => None,
    };
    Ok(report::render(&target.to_string(), &shape.partition_key, &Balance::new(counts, &count_of), args.top))
}

/// The shard counts the shard metadata table `metadata` records for the logical keys of `index`
/// found in `counts` (those that may hold items: up to the largest count its history records).
async fn recorded_counts(
    metadata: &str,
    table: &str,
    index: &str,
    counts: &HashMap<String, u64>,
    endpoint: Option<&str>,
) -> Result<HashMap<String, u32>, CliError> {
    use futures::{StreamExt, TryStreamExt};
    let db = dynashard::Db::new(dynamo::client(endpoint).await);
    let logical: std::collections::BTreeSet<&str> = counts
        .keys()
        .filter_map(|value| match partition_key::split_bucket(value) {
            Some(bucketed) => Some(bucketed.logical),
            None => {
                let key = partition_key::split_shard(value);
                key.shard.map(|_| key.logical)
            }
        })
        .collect();
    futures::stream::iter(logical)
        .map(|logical| {
            let db = &db;
            async move {
                let state = db.recorded_shard_state(metadata, table, index, logical).await;
                state.map(|state| state.map(|state| (logical.to_owned(), state.readable())))
            }
        })
        .buffer_unordered(16)
        .try_filter_map(|found| async move { Ok(found) })
        .try_collect()
        .await
        .map_err(|error| CliError::Dynamo {
            context: format!("reading the recorded shard counts in {metadata}"),
            message: error.to_string(),
        })
}

/// A partition key value as text: strings as they are, numbers in their decimal form, binary
/// values as `<N bytes>` with their hex.
fn partition_text(value: AttributeValue) -> String {
    match value {
        AttributeValue::S(text) | AttributeValue::N(text) => text,
        AttributeValue::B(blob) => {
            let hex: String = blob.as_ref().iter().map(|byte| format!("{byte:02x}")).collect();
            format!("<{} bytes> {hex}", blob.as_ref().len())
        }
        other => format!("{other:?}"),
    }
}
