//! What one page of the workload's reads costs through each kind of layout, in requests and read
//! units, and what a merged listing asks of every shard.
//!
//! An unsharded partition or range shards read a page with one request (two when it crosses a
//! shard boundary), its bytes rounded up to whole 4 KB units. A merged page (hash, random,
//! dynamic shards) asks every shard about once, each for what dynashard's first request asks
//! ([`RequestSizing::first_request`]: its share of the page filled to whole units, or enough for
//! one round trip), and DynamoDB charges every request at least one unit. Every shard serves every
//! merged page: at the workload's read rate, each shard partition carries that rate of requests
//! whatever the shard count.

use super::capacity::{Plan, PARTITION_RCU_PER_S, RCU_BYTES};
use crate::limits::MAX_SHARDS;
use dynashard::query::RequestSizing;

/// The cost of one page per layout, in half read units (exact).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageCosts {
    /// The shards the page is merged over: the recommended count, at most the maximum.
    pub shards: u128,
    /// An unsharded page (and a range-sharded one that stays in one shard).
    pub single_half_units: u128,
    /// Items a merged page asks of each shard at first: its even share, filled to whole units.
    pub share: u128,
    /// Half units of one request of a merged page.
    pub request_half_units: u128,
    /// Half units of a merged page: every shard asked once.
    pub merged_half_units: u128,
    /// Half units per second every shard partition serves for merged pages at the read rate.
    pub shard_half_units_per_s: u128,
    /// Items a merged page in one round trip ([`RequestSizing::OneRoundTrip`]) asks of each shard.
    pub one_round_share: u128,
    /// Half units of one such request.
    pub one_round_request_half_units: u128,
    /// Half units of a merged page in one round trip.
    pub one_round_half_units: u128,
}

impl PageCosts {
    /// The costs of a page of the planned workload.
    pub fn new(plan: &Plan) -> Self {
        let work = &plan.workload;
        let shards = plan.recommended_shards.clamp(1, u128::from(MAX_SHARDS));
        let half_units_per_block = if work.consistent_reads { 2 } else { 1 };
        let first = |sizing: RequestSizing| {
            let page = usize::try_from(work.items_per_read).unwrap_or(usize::MAX);
            let shards = usize::try_from(shards).unwrap_or(usize::MAX);
            let share = sizing.first_request(page, shards, work.item_bytes) as u128;
            let blocks =
                share.saturating_mul(u128::from(work.item_bytes)).div_ceil(u128::from(RCU_BYTES)).max(1);
            (share, blocks * half_units_per_block)
        };
        let (share, request_half_units) = first(RequestSizing::Floor);
        let (one_round_share, one_round_request_half_units) = first(RequestSizing::OneRoundTrip);
        PageCosts {
            shards,
            single_half_units: plan.read_half_units_per_read.max(half_units_per_block),
            share,
            request_half_units,
            merged_half_units: request_half_units.saturating_mul(shards),
            shard_half_units_per_s: request_half_units.saturating_mul(u128::from(work.reads_per_s)),
            one_round_share,
            one_round_request_half_units,
            one_round_half_units: one_round_request_half_units.saturating_mul(shards),
        }
    }

    /// A merged page's read units over an unsharded page's.
    pub fn merged_ratio(&self) -> f64 {
        self.merged_half_units as f64 / self.single_half_units as f64
    }

    /// A merged page's read units in one round trip over an unsharded page's.
    pub fn one_round_ratio(&self) -> f64 {
        self.one_round_half_units as f64 / self.single_half_units as f64
    }

    /// Whether merged pages at the read rate ask more of every shard than a partition serves.
    pub fn merged_overloads_shards(&self) -> bool {
        self.shard_half_units_per_s > 2 * u128::from(PARTITION_RCU_PER_S)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::capacity::Workload;

    fn costs(items_per_read: u64, reads_per_s: u64, consistent_reads: bool) -> PageCosts {
        let workload = Workload {
            item_bytes: 500,
            reads_per_s,
            items_per_read,
            writes_per_s: 10_000,
            consistent_reads,
            headroom_percent: 20,
        };
        PageCosts::new(&Plan::new(workload).expect("fits"))
    }

    #[test]
    fn the_seed_merges_26_requests_of_one_unit_each() {
        let seed = costs(100, 10_000, false);
        // Four items each, filled to the eight a read unit holds.
        assert_eq!((seed.shards, seed.share), (26, 8));
        assert_eq!((seed.single_half_units, seed.request_half_units, seed.merged_half_units), (13, 1, 26));
        assert_eq!(seed.merged_ratio(), 2.0);
        // One round trip: no shard of 26 holds more than 12 of the 100 items but one page in
        // twenty; 12 items start a second unit, which holds 16.
        assert_eq!((seed.one_round_share, seed.one_round_request_half_units), (16, 2));
        assert_eq!((seed.one_round_half_units, seed.one_round_ratio()), (52, 4.0));
        // Every shard serves 10,000 requests of half a unit a second: 5,000 RCU/s.
        assert_eq!(seed.shard_half_units_per_s, 10_000);
        assert!(seed.merged_overloads_shards());
        assert!(!costs(100, 5_000, false).merged_overloads_shards());
    }

    #[test]
    fn large_pages_and_strong_reads_cost_whole_units() {
        let large = costs(1_000, 1_000, false);
        assert!(large.share >= 1_000u128.div_ceil(large.shards), "{large:?}");
        assert!(large.merged_ratio() < 1.3, "{large:?}");
        assert!(large.one_round_ratio() > large.merged_ratio(), "{large:?}");
        let strong = costs(100, 1_000, true);
        let blocks = (strong.share * 500).div_ceil(4_096);
        assert_eq!(strong.request_half_units, 2 * blocks, "{strong:?}");
        assert_eq!(strong.single_half_units, 26);
    }
}
