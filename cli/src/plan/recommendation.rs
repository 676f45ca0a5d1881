//! The shard count to recommend, within the most shards one index may have.
//!
//! A workload that needs more than [`MAX_SHARDS`] is still planned in full and the command
//! succeeds: its input is valid, and the operator needs exactly this arithmetic (how far over
//! the limit, bound by reads or writes, how many keys would carry it) to redesign the key. An
//! error would hide it. The report states plainly that one sharded key cannot serve it.

use super::capacity::{Load, Plan};
use crate::limits::MAX_SHARDS;

/// What to do about the shard count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Recommendation {
    /// The peak load plus headroom fits: this many shards.
    Shards(u128),
    /// The peak load fits, but not with all the headroom asked for: the maximum, which leaves
    /// `headroom_percent` spare capacity.
    Maximum {
        /// The spare capacity the maximum leaves, in percent of the peak load.
        headroom_percent: f64,
    },
    /// The peak load alone needs more than the maximum: one sharded key cannot serve it.
    Beyond {
        /// The share of the peak load the maximum serves, in percent.
        served_percent: f64,
        /// The load beyond what the maximum serves.
        shortfall: Load,
        /// Partition key values of at most the maximum shards each that carry the load with
        /// its headroom.
        keys: u128,
    },
}

impl Recommendation {
    /// The recommendation for `plan`.
    pub fn new(plan: &Plan) -> Self {
        let max = u128::from(MAX_SHARDS);
        if plan.recommended_shards <= max {
            return Recommendation::Shards(plan.recommended_shards);
        }
        // The denominator is a partition's capacity, a few thousand: no overflow.
        let served = max * plan.peak.denominator;
        let peak = plan.peak.ratio();
        let Some(beyond) = plan.peak.numerator.checked_sub(served).filter(|&beyond| beyond > 0) else {
            return Recommendation::Maximum {
                headroom_percent: (f64::from(MAX_SHARDS) / peak - 1.0) * 100.0,
            };
        };
        Recommendation::Beyond {
            served_percent: f64::from(MAX_SHARDS) / peak * 100.0,
            shortfall: Load { numerator: beyond, denominator: plan.peak.denominator },
            keys: plan.recommended_shards.div_ceil(max),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::capacity::Workload;

    fn writes(writes_per_s: u64) -> Recommendation {
        let workload = Workload {
            item_bytes: 1_000,
            reads_per_s: 0,
            items_per_read: 1,
            writes_per_s,
            consistent_reads: false,
            headroom_percent: 20,
        };
        Recommendation::new(&Plan::new(workload).expect("fits"))
    }

    #[test]
    fn within_the_maximum() {
        assert_eq!(writes(10_000), Recommendation::Shards(12));
        // 8,333.33 partitions + 20% = 10,000 shards exactly.
        assert_eq!(writes(8_333_333), Recommendation::Shards(10_000));
    }

    #[test]
    fn the_maximum_with_less_headroom() {
        let Recommendation::Maximum { headroom_percent } = writes(9_000_000) else {
            panic!("9,000 partitions fit in 10,000 shards");
        };
        assert!((headroom_percent - 11.11).abs() < 0.01, "{headroom_percent}");
        assert!(
            matches!(writes(10_000_000), Recommendation::Maximum { headroom_percent } if headroom_percent == 0.0)
        );
    }

    #[test]
    fn beyond_the_maximum() {
        let Recommendation::Beyond { served_percent, shortfall, keys } = writes(10_000_001) else {
            panic!("10,000.001 partitions do not fit in 10,000 shards");
        };
        assert!(served_percent < 100.0, "{served_percent}");
        assert_eq!(shortfall, Load { numerator: 1, denominator: 1_000 });
        assert_eq!(keys, 2);
        assert!(matches!(writes(100_000_000), Recommendation::Beyond { keys: 12, .. }));
    }
}
