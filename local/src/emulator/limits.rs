//! The limits the emulator enforces: per partition, and optionally per table or index.

use dynashard::throttling::ThrottleLimit;
use std::time::Duration;

/// DynamoDB's write limit of one partition: 1,000 write units per second.
pub const PARTITION_WRITE_UNITS: f64 = 1_000.0;
/// DynamoDB's read limit of one partition: 3,000 read units per second.
pub const PARTITION_READ_UNITS: f64 = 3_000.0;

/// What the emulator enforces: a read and a write limit for every partition key value of every
/// table and global secondary index, and optional limits of whole tables and indexes.
///
/// Each limit is a token bucket refilled at its rate and holding up to `burst` of it, so a
/// partition that was idle can take a short burst above its rate.
///
/// ```
/// use dynashard_local::emulator::{PartitionLimits, TableLimit};
///
/// // A tenth of DynamoDB's partitions (100 write and 300 read units per second), and a table
/// // provisioned with 250 write units.
/// let limits = PartitionLimits::dynamodb()
///     .scaled(0.1)
///     .table("AuditLog", TableLimit::provisioned().write_units(250.0));
/// assert_eq!(limits.partition_write_units(), 100.0);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionLimits {
    read_units: f64,
    write_units: f64,
    burst: Duration,
    tables: Vec<ResourceLimit>,
    round_trip: Duration,
}

/// A limit of a whole table or index.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ResourceLimit {
    pub table: String,
    pub index: Option<String>,
    pub limit: TableLimit,
}

/// A limit of a whole table or global secondary index, of one of the kinds DynamoDB has.
///
/// Requests over it fail with the matching reason: `...ProvisionedThroughputExceeded`,
/// `...MaxOnDemandThroughputExceeded` or `...AccountLimitExceeded`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TableLimit {
    kind: ThrottleLimit,
    read_units: Option<f64>,
    write_units: Option<f64>,
}

impl TableLimit {
    fn of(kind: ThrottleLimit) -> Self {
        Self { kind, read_units: None, write_units: None }
    }

    /// Provisioned capacity (provisioned mode).
    pub fn provisioned() -> Self {
        Self::of(ThrottleLimit::Provisioned)
    }

    /// A configured maximum throughput (on-demand mode).
    pub fn on_demand_maximum() -> Self {
        Self::of(ThrottleLimit::MaxOnDemand)
    }

    /// The account's per-table quota (on-demand mode).
    pub fn account_quota() -> Self {
        Self::of(ThrottleLimit::AccountLimit)
    }

    /// Read units per second (unlimited when not set; anything but a positive number counts
    /// as 1).
    pub fn read_units(mut self, units: f64) -> Self {
        self.read_units = Some(positive(units));
        self
    }

    /// Write units per second (unlimited when not set; anything but a positive number counts
    /// as 1).
    pub fn write_units(mut self, units: f64) -> Self {
        self.write_units = Some(positive(units));
        self
    }

    pub(crate) fn kind(&self) -> ThrottleLimit {
        self.kind
    }

    pub(crate) fn rates(&self) -> (Option<f64>, Option<f64>) {
        (self.read_units, self.write_units)
    }
}

impl Default for PartitionLimits {
    fn default() -> Self {
        Self::dynamodb()
    }
}

impl PartitionLimits {
    /// DynamoDB's limits: 1,000 write and 3,000 read units per second per partition, a burst of
    /// one second, no table limits.
    pub fn dynamodb() -> Self {
        Self {
            read_units: PARTITION_READ_UNITS,
            write_units: PARTITION_WRITE_UNITS,
            burst: Duration::from_secs(1),
            tables: Vec::new(),
            round_trip: Duration::ZERO,
        }
    }

    /// Every rate (partitions and tables) times `factor`, so that a small machine, whose
    /// DynamoDB Local serves a few thousand requests a second, reaches the limits. Keeps the
    /// ratios DynamoDB has.
    pub fn scaled(mut self, factor: f64) -> Self {
        let factor = if factor.is_finite() && factor > 0.0 { factor } else { 1.0 };
        self.read_units *= factor;
        self.write_units *= factor;
        for resource in &mut self.tables {
            resource.limit.read_units = resource.limit.read_units.map(|units| units * factor);
            resource.limit.write_units = resource.limit.write_units.map(|units| units * factor);
        }
        self
    }

    /// Write units per second per partition.
    pub fn write_units(mut self, units: f64) -> Self {
        self.write_units = positive(units);
        self
    }

    /// Read units per second per partition.
    pub fn read_units(mut self, units: f64) -> Self {
        self.read_units = positive(units);
        self
    }

    /// How much unused capacity a partition or table keeps for a burst, in seconds of its rate
    /// (default 1 s).
    pub fn burst(mut self, burst: Duration) -> Self {
        self.burst = burst;
        self
    }

    /// Answers every request no sooner than `round_trip` after it arrived (default: at once), as
    /// a client in a region sees DynamoDB answer: work spread over many requests in flight then
    /// overlaps as it does against DynamoDB, and what one worker does is bound by the round trip,
    /// not by how fast the local DynamoDB answers.
    pub fn round_trip(mut self, round_trip: Duration) -> Self {
        self.round_trip = round_trip;
        self
    }

    /// The time every request takes at least.
    pub fn round_trip_time(&self) -> Duration {
        self.round_trip
    }

    /// Adds a limit of the whole table `table`.
    pub fn table(mut self, table: impl Into<String>, limit: TableLimit) -> Self {
        self.tables.push(ResourceLimit { table: table.into(), index: None, limit });
        self
    }

    /// Adds a limit of the whole global secondary index `index` of `table`.
    pub fn index(mut self, table: impl Into<String>, index: impl Into<String>, limit: TableLimit) -> Self {
        self.tables.push(ResourceLimit { table: table.into(), index: Some(index.into()), limit });
        self
    }

    /// Write units per second per partition.
    pub fn partition_write_units(&self) -> f64 {
        self.write_units
    }

    /// Read units per second per partition.
    pub fn partition_read_units(&self) -> f64 {
        self.read_units
    }

    pub(crate) fn burst_seconds(&self) -> f64 {
        self.burst.as_secs_f64()
    }

    /// The limit of a table (`index: None`) or index, if one was set.
    pub(crate) fn resource_limit(&self, table: &str, index: Option<&str>) -> Option<&TableLimit> {
        self.tables
            .iter()
            .rev()
            .find(|resource| resource.table == table && resource.index.as_deref() == index)
            .map(|resource| &resource.limit)
    }
}

/// A rate that is a positive number, or 1 for anything else.
fn positive(units: f64) -> f64 {
    if units.is_finite() && units > 0.0 {
        units
    } else {
        1.0
    }
}
