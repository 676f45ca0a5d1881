//! `dynashard plan`: how many shards a workload needs, from DynamoDB's per-partition limits.

pub mod capacity;
pub mod pages;
pub mod recommendation;
pub mod report;
pub mod warm;

use crate::args::PlanArgs;
use crate::error::CliError;
use capacity::{Plan, Workload};
use std::io::Write;

/// Runs `dynashard plan`.
pub fn run(args: PlanArgs) -> Result<(), CliError> {
    let plan = Plan::new(Workload {
        item_bytes: args.item_bytes,
        reads_per_s: args.reads_per_s,
        items_per_read: args.items_per_read,
        writes_per_s: args.writes_per_s,
        consistent_reads: args.consistent_reads,
        headroom_percent: args.headroom,
    })?;
    std::io::stdout()
        .lock()
        .write_all(report::render(&plan).as_bytes())
        .map_err(|error| CliError::io("writing the plan", error))
}
