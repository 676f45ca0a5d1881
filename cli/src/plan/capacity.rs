//! Capacity arithmetic: how many partitions a workload needs, from DynamoDB's per-partition
//! limits, computed two ways.
//!
//! - *Bandwidth* (the seed's arithmetic): bytes per second over what one partition moves. A
//!   partition serves 3,000 RCU/s, one RCU reading 4 KB strongly or 8 KB eventually consistent,
//!   so 24.6 MB/s of eventually consistent reads; and 1,000 WCU/s of 1 KB, so 1 MB/s of writes.
//! - *Capacity units*, as DynamoDB bills them: a read request's bytes round up to whole 4 KB
//!   units, each item written to whole 1 KB units. This is the stricter figure for small items.
//!
//! Everything is exact, checked integer arithmetic in 128 bits; ratios are kept as fractions
//! until printed. A workload whose numbers exceed 2^128 is rejected rather than wrapped.

use crate::error::PlanError;

/// Read capacity units one partition serves per second.
pub const PARTITION_RCU_PER_S: u64 = 3_000;
/// Write capacity units one partition serves per second.
pub const PARTITION_WCU_PER_S: u64 = 1_000;
/// Bytes one strongly consistent read unit reads (eventually consistent reads cost half).
pub const RCU_BYTES: u64 = 4_096;
/// Bytes one write unit writes.
pub const WCU_BYTES: u64 = 1_024;

/// The peak load to plan for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Workload {
    /// Average item size in bytes.
    pub item_bytes: u64,
    /// Read requests per second.
    pub reads_per_s: u64,
    /// Items each read request returns.
    pub items_per_read: u64,
    /// Items written per second.
    pub writes_per_s: u64,
    /// Whether reads are strongly consistent.
    pub consistent_reads: bool,
    /// Spare capacity on top of the load, in percent.
    pub headroom_percent: u32,
}

/// A load as a fraction of one partition's capacity: `numerator / denominator` partitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Load {
    /// Demand per second, in the unit of `denominator`.
    pub numerator: u128,
    /// What one partition serves per second (never zero).
    pub denominator: u128,
}

impl Load {
    /// The load in partitions, for printing.
    pub fn ratio(self) -> f64 {
        self.numerator as f64 / self.denominator as f64
    }

    /// Whole partitions needed: the ratio rounded up (at least 1).
    pub fn partitions(self) -> u128 {
        self.numerator.div_ceil(self.denominator).max(1)
    }

    /// Whether this load is larger than `other`, compared exactly and without overflow: whole
    /// partitions first, then the remainders, whose cross products stay below the product of
    /// the (small) denominators.
    pub fn exceeds(self, other: Load) -> bool {
        let (whole, other_whole) = (self.numerator / self.denominator, other.numerator / other.denominator);
        if whole != other_whole {
            return whole > other_whole;
        }
        let (rest, other_rest) = (self.numerator % self.denominator, other.numerator % other.denominator);
        rest.saturating_mul(other.denominator) > other_rest.saturating_mul(self.denominator)
    }

    /// `ceil(self * percent / 100)`: whole partitions for this load plus `headroom_percent`,
    /// or `None` when that is beyond `u128`.
    pub fn with_headroom(self, headroom_percent: u32) -> Option<u128> {
        let factor = 100 + u128::from(headroom_percent);
        let divisor = self.denominator.checked_mul(100)?;
        // n * f / d = (n / d) * f + (n % d) * f / d, so no product exceeds the result by much.
        let (whole, rest) = (self.numerator / divisor, self.numerator % divisor);
        whole.checked_mul(factor)?.checked_add(rest.checked_mul(factor)?.div_ceil(divisor))
    }
}

/// `factors` multiplied, or [`PlanError::TooLarge`] naming `quantity`.
fn product(quantity: &'static str, factors: &[u128]) -> Result<u128, PlanError> {
    factors.iter().try_fold(1u128, |product, &factor| product.checked_mul(factor)).ok_or_else(|| {
        let formula = factors.iter().map(|&factor| crate::format::count(factor)).collect::<Vec<_>>();
        PlanError::TooLarge { quantity, formula: formula.join(" x ") }
    })
}

/// Every step of the plan.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    /// The workload planned for.
    pub workload: Workload,
    /// Bytes read per second: item size x items per read x reads per second.
    pub read_bytes_per_s: u128,
    /// Bytes written per second: item size x writes per second.
    pub write_bytes_per_s: u128,
    /// Bytes one partition reads per second at this consistency.
    pub partition_read_bytes_per_s: u128,
    /// Bytes one partition writes per second.
    pub partition_write_bytes_per_s: u128,
    /// Reads by bandwidth.
    pub reads_by_bandwidth: Load,
    /// Writes by bandwidth.
    pub writes_by_bandwidth: Load,
    /// Bytes one read request returns.
    pub bytes_per_read: u128,
    /// Whole 4 KB units one read request rounds up to.
    pub read_blocks_per_read: u128,
    /// Read units one request costs, in halves.
    pub read_half_units_per_read: u128,
    /// Read units per second, in halves (eventually consistent reads cost half a unit per block).
    pub read_half_units_per_s: u128,
    /// Reads by capacity units (in half units over half units).
    pub reads_by_units: Load,
    /// Write units per item: its size rounded up to whole KB.
    pub write_units_per_item: u128,
    /// Write units per second.
    pub write_units_per_s: u128,
    /// Writes by capacity units.
    pub writes_by_units: Load,
    /// The larger of the unit-based loads.
    pub peak: Load,
    /// Shards for the peak load plus headroom, before any limit on the shard count.
    pub recommended_shards: u128,
}

impl Plan {
    /// Works out the plan for `workload`; every step is checked, and a quantity beyond 2^128
    /// is [`PlanError::TooLarge`].
    pub fn new(workload: Workload) -> Result<Self, PlanError> {
        let item = u128::from(workload.item_bytes);
        let (items_per_read, reads) = (u128::from(workload.items_per_read), u128::from(workload.reads_per_s));
        let writes = u128::from(workload.writes_per_s);
        let bytes_per_read = product("bytes per read", &[item, items_per_read])?;
        let read_bytes_per_s = product("read bandwidth", &[item, items_per_read, reads])?;
        let write_bytes_per_s = product("write bandwidth", &[item, writes])?;
        let reads_per_unit = if workload.consistent_reads { 1 } else { 2 };
        let partition_read_bytes_per_s = u128::from(PARTITION_RCU_PER_S * RCU_BYTES) * reads_per_unit;
        let partition_write_bytes_per_s = u128::from(PARTITION_WCU_PER_S * WCU_BYTES);

        let read_blocks_per_read = bytes_per_read.div_ceil(u128::from(RCU_BYTES));
        let half_units_per_block = if workload.consistent_reads { 2 } else { 1 };
        let read_half_units_per_read =
            product("read units per read", &[read_blocks_per_read, half_units_per_block])?;
        let read_half_units_per_s = product("read units per second", &[read_half_units_per_read, reads])?;
        let write_units_per_item = item.div_ceil(u128::from(WCU_BYTES));
        let write_units_per_s = product("write units per second", &[write_units_per_item, writes])?;

        let reads_by_units =
            Load { numerator: read_half_units_per_s, denominator: 2 * u128::from(PARTITION_RCU_PER_S) };
        let writes_by_units =
            Load { numerator: write_units_per_s, denominator: u128::from(PARTITION_WCU_PER_S) };
        let peak = if reads_by_units.exceeds(writes_by_units) { reads_by_units } else { writes_by_units };
        let recommended_shards =
            peak.with_headroom(workload.headroom_percent).ok_or_else(|| PlanError::TooLarge {
                quantity: "shard count with headroom",
                formula: format!(
                    "{:.2} partitions x {}%",
                    peak.ratio(),
                    100 + u64::from(workload.headroom_percent)
                ),
            })?;
        Ok(Self {
            workload,
            read_bytes_per_s,
            write_bytes_per_s,
            partition_read_bytes_per_s,
            partition_write_bytes_per_s,
            reads_by_bandwidth: Load { numerator: read_bytes_per_s, denominator: partition_read_bytes_per_s },
            writes_by_bandwidth: Load {
                numerator: write_bytes_per_s,
                denominator: partition_write_bytes_per_s,
            },
            bytes_per_read,
            read_blocks_per_read,
            read_half_units_per_read,
            read_half_units_per_s,
            reads_by_units,
            write_units_per_item,
            write_units_per_s,
            writes_by_units,
            peak,
            recommended_shards: recommended_shards.max(1),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's index: 500-byte items, 10,000 queries/s of 100 items, 10,000 writes/s.
    fn seed() -> Workload {
        Workload {
            item_bytes: 500,
            reads_per_s: 10_000,
            items_per_read: 100,
            writes_per_s: 10_000,
            consistent_reads: false,
            headroom_percent: 20,
        }
    }

    #[test]
    fn the_seed_needs_21_partitions_for_reads_and_5_for_writes() {
        let plan = Plan::new(seed()).expect("fits");
        assert_eq!(plan.read_bytes_per_s, 500_000_000);
        assert_eq!(plan.write_bytes_per_s, 5_000_000);
        assert_eq!(plan.partition_read_bytes_per_s, 24_576_000);
        assert_eq!(plan.partition_write_bytes_per_s, 1_024_000);
        assert_eq!(plan.reads_by_bandwidth.partitions(), 21);
        assert_eq!(plan.writes_by_bandwidth.partitions(), 5);
    }

    #[test]
    fn units_round_each_request_up() {
        let plan = Plan::new(seed()).expect("fits");
        // 100 x 500 B = 50,000 B = 13 blocks of 4 KB, half a unit each when eventually consistent.
        assert_eq!(plan.read_blocks_per_read, 13);
        assert_eq!(plan.read_half_units_per_s, 130_000);
        assert_eq!(plan.reads_by_units.partitions(), 22);
        // A 500-byte write costs a whole 1 KB unit.
        assert_eq!(plan.write_units_per_s, 10_000);
        assert_eq!(plan.writes_by_units.partitions(), 10);
        // 21.67 partitions of reads plus 20% headroom.
        assert_eq!(plan.peak, plan.reads_by_units);
        assert_eq!(plan.recommended_shards, 26);
    }

    #[test]
    fn strong_consistency_doubles_read_cost() {
        let plan = Plan::new(Workload { consistent_reads: true, ..seed() }).expect("fits");
        assert_eq!(plan.partition_read_bytes_per_s, 12_288_000);
        assert_eq!(plan.reads_by_bandwidth.partitions(), 41);
        assert_eq!(plan.reads_by_units.partitions(), 44);
    }

    #[test]
    fn idle_workloads_need_one_shard() {
        let plan = Plan::new(Workload { reads_per_s: 0, writes_per_s: 0, headroom_percent: 0, ..seed() })
            .expect("fits");
        assert_eq!(plan.reads_by_bandwidth.partitions(), 1);
        assert_eq!(plan.recommended_shards, 1);
    }

    #[test]
    fn write_heavy_workloads_are_sized_by_writes() {
        let plan = Plan::new(Workload { item_bytes: 2_000, reads_per_s: 10, writes_per_s: 3_000, ..seed() })
            .expect("fits");
        assert_eq!(plan.write_units_per_item, 2);
        assert_eq!(plan.peak, plan.writes_by_units);
        assert_eq!(plan.recommended_shards, 8, "6 partitions of writes plus 20%: 7.2, rounded up");
    }

    #[test]
    fn numbers_beyond_2_to_the_128_are_errors_not_wraps() {
        let max = Workload { item_bytes: 409_600, items_per_read: u64::MAX, reads_per_s: u64::MAX, ..seed() };
        let error = Plan::new(max).expect_err("beyond 2^128");
        assert!(matches!(&error, PlanError::TooLarge { quantity: "read bandwidth", .. }), "{error}");
        assert!(error
            .to_string()
            .starts_with("the read bandwidth is too large to compute (409,600 x 18,446,"));
        // The largest writes fit: 400 units per item.
        let writes =
            Workload { item_bytes: 409_600, writes_per_s: u64::MAX, headroom_percent: u32::MAX, ..seed() };
        let plan = Plan::new(writes).expect("fits in 128 bits");
        assert_eq!(plan.write_units_per_s, 400 * u128::from(u64::MAX));
    }

    #[test]
    fn loads_compare_and_add_headroom_exactly() {
        let load = |numerator: u128, denominator: u128| Load { numerator, denominator };
        assert!(load(6_001, 6_000).exceeds(load(1_000, 1_000)));
        assert!(!load(6_000, 6_000).exceeds(load(1_000, 1_000)));
        assert!(load(u128::MAX, 1_000).exceeds(load(u128::MAX, 6_000)));
        assert!(!load(u128::MAX, 6_000).exceeds(load(u128::MAX, 1_000)));
        assert_eq!(load(21_667, 1_000).with_headroom(20), Some(27), "26.0004 rounds up");
        assert_eq!(load(10_000, 1_000).with_headroom(20), Some(12));
        assert_eq!(load(u128::MAX, 1_000).with_headroom(0), Some(u128::MAX.div_ceil(1_000)));
        assert_eq!(load(u128::MAX, 1_000).with_headroom(u32::MAX), None);
    }
}
