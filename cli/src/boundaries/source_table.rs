//! Keys for `dynashard boundaries --from-table`: one attribute of every item of a table or
//! index, read with a parallel scan.

use super::key_set::KeySet;
use crate::args::BoundariesArgs;
use crate::dynamo::{self, Target};
use crate::error::CliError;
use crate::input::Counts;
use crate::progress;
use aws_sdk_dynamodb::types::AttributeValue;
use dynashard::shard::Normalization;

/// Scans `table` (or `--index`) and normalizes the `--attribute` of every item; items without
/// a non-empty string there are counted as skipped.
pub fn read(
    args: &BoundariesArgs,
    table: &str,
    normalization: Normalization,
) -> Result<(KeySet, Counts), CliError> {
    let attribute = args
        .attribute
        .as_deref()
        .ok_or_else(|| CliError::Usage("--from-table needs --attribute NAME".to_owned()))?;
    let target = Target { table: table.to_owned(), index: args.index.clone() };
    crate::runtime()?.block_on(async {
        let endpoint = args.connection.endpoint.as_deref();
        let client = dynamo::client(endpoint).await;
        let shape = dynamo::describe(&client, &target, &dynamo::describe_endpoint(endpoint)).await?;
        let bar = progress::items(shape.item_count, "scanning");
        let mut keys = KeySet::new(normalization, 1 << 20);
        let mut counts = Counts::default();
        dynamo::scan_attribute(&client, &target, attribute, args.connection.segments, |page| {
            bar.inc(page.len() as u64);
            for value in page {
                match value {
                    Some(AttributeValue::S(text)) if !text.is_empty() => {
                        counts.keys += 1;
                        keys.push(&text)?;
                    }
                    _ => counts.skipped += 1,
                }
            }
            Ok(())
        })
        .await?;
        bar.finish_and_clear();
        Ok((keys, counts))
    })
}
