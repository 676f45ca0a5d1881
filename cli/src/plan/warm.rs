//! The warm throughput to declare for a workload's peak: what a table must serve at once,
//! before DynamoDB has scaled it up by itself.

use super::capacity::Plan;

/// Read units per second a new on-demand table serves at once.
pub const NEW_TABLE_READS: u128 = 12_000;
/// Write units per second a new on-demand table serves at once.
pub const NEW_TABLE_WRITES: u128 = 4_000;

/// What to declare as warm throughput.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Warm {
    /// The peak with its headroom fits what a new table serves at once: nothing to declare.
    NotNeeded,
    /// Declare these units per second (`warm_reads`, `warm_writes`), the peak with its headroom.
    Declare {
        /// Read units per second.
        reads: u128,
        /// Write units per second.
        writes: u128,
    },
}

impl Warm {
    /// The warm throughput for `plan`'s peak read and write units plus its headroom.
    pub fn new(plan: &Plan) -> Self {
        let with_headroom = |units: u128| {
            let percent = 100 + u128::from(plan.workload.headroom_percent);
            units.saturating_mul(percent).div_ceil(100)
        };
        let reads = with_headroom(plan.read_half_units_per_s.div_ceil(2));
        let writes = with_headroom(plan.write_units_per_s);
        if reads <= NEW_TABLE_READS && writes <= NEW_TABLE_WRITES {
            return Warm::NotNeeded;
        }
        Warm::Declare { reads: reads.max(NEW_TABLE_READS), writes: writes.max(NEW_TABLE_WRITES) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::capacity::Workload;

    fn warm(reads_per_s: u64, writes_per_s: u64) -> Warm {
        let workload = Workload {
            item_bytes: 500,
            reads_per_s,
            items_per_read: 100,
            writes_per_s,
            consistent_reads: false,
            headroom_percent: 20,
        };
        Warm::new(&Plan::new(workload).expect("fits"))
    }

    #[test]
    fn the_peak_with_headroom_or_nothing_below_a_new_tables_throughput() {
        // 65,000 RCU/s and 10,000 WCU/s, plus 20%.
        assert_eq!(warm(10_000, 10_000), Warm::Declare { reads: 78_000, writes: 12_000 });
        // 650 RCU/s and 100 WCU/s fit.
        assert_eq!(warm(100, 100), Warm::NotNeeded);
        // Writes over, reads under: reads stay at the new table's own.
        assert_eq!(warm(10, 5_000), Warm::Declare { reads: 12_000, writes: 6_000 });
    }
}
