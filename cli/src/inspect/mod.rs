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
use balance::Balance;
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
    Ok(report::render(
        &target.to_string(),
        &shape.partition_key,
        &Balance::new(counts, args.shards),
        args.top,
    ))
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
