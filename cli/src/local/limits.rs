//! `dynashard local --partition-limits`: a local DynamoDB behind the partition-limit emulator, and
//! on the way out, the partitions that were hottest.

use super::served::Served;
use super::shutdown_signal;
use crate::args::LocalArgs;
use crate::error::CliError;
use dynashard_local::emulator::{Consumption, Emulator, PartitionId, PartitionLimits};
use std::net::Ipv4Addr;

/// How many partitions the summary lists.
const HOTTEST: usize = 10;

/// The limits the arguments ask for.
pub fn limits_of(args: &LocalArgs) -> PartitionLimits {
    let mut limits = PartitionLimits::dynamodb();
    if let Some(units) = args.partition_write_units {
        limits = limits.write_units(units);
    }
    if let Some(units) = args.partition_read_units {
        limits = limits.read_units(units);
    }
    for table in &args.table_limits {
        limits = match &table.index {
            Some(index) => limits.index(&table.table, index, table.limit),
            None => limits.table(&table.table, table.limit),
        };
    }
    match args.scale {
        Some(factor) => limits.scaled(factor),
        None => limits,
    }
}

/// Runs a local DynamoDB behind the emulator until Ctrl-C.
pub async fn serve(args: LocalArgs) -> Result<(), CliError> {
    let limits = limits_of(&args);
    let port = args.port.unwrap_or(0);
    if port != 0 {
        // A busy port fails at once rather than after the DynamoDB has started.
        std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, port))
            .map_err(|error| CliError::io(format!("cannot listen on 127.0.0.1:{port}"), error))?;
    }
    let served = Served::start(&args, None).await?;
    let emulator = Emulator::start_on(served.endpoint(), limits.clone(), port)?;
    let endpoint = emulator.endpoint().to_owned();
    println!("{endpoint}");
    eprintln!(
        "partition limits: {} write and {} read units per second per partition key value",
        limits.partition_write_units(),
        limits.partition_read_units()
    );
    eprintln!(
        "{} is running in memory behind the emulator: export AWS_ENDPOINT_URL_DYNAMODB={endpoint}; \
         press Ctrl-C to stop",
        super::capitalized(served.name())
    );
    let outcome = shutdown_signal().await;
    let usage = emulator.usage();
    let mut partitions: Vec<(&PartitionId, &Consumption)> = usage.partitions().collect();
    partitions.sort_by(|a, b| {
        (b.1.throttled(), b.1.write_units + b.1.read_units)
            .partial_cmp(&(a.1.throttled(), a.1.write_units + a.1.read_units))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    if !partitions.is_empty() {
        eprintln!("hottest partitions ({} throttled requests in all):", usage.throttled_requests());
        for (id, consumption) in partitions.into_iter().take(HOTTEST) {
            eprintln!("  {}", describe(id, consumption));
        }
    }
    drop(emulator);
    served.stop().await?;
    outcome
}

fn describe(id: &PartitionId, consumption: &Consumption) -> String {
    let place = match &id.index {
        Some(index) => format!("{}/{index}", id.table),
        None => id.table.clone(),
    };
    format!(
        "{place} {:?}: {} write units, {} read units, {} throttled writes, {} throttled reads",
        id.key,
        consumption.write_units,
        consumption.read_units,
        consumption.throttled_writes,
        consumption.throttled_reads
    )
}
