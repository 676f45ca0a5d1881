//! How many items to ask of one partition: its share of what a page still needs, rounded up to
//! whole read units.
//!
//! DynamoDB charges a query for the items it reads, rounded up to 4 KB per request, and at least
//! one unit per request: a request for three items of 500 bytes costs what eight cost. So a
//! request asks for its share of the shortfall, then for as many more as fit in the units that
//! share pays for anyway (before any item's size is known, at least the share and one more).
//! Before a partition was read, its share is an even one; after, it is
//! one and a half times the share of the output it supplied so far, so a skewed shard is asked
//! for what it holds. With [`RequestSizing::OneRoundTrip`], a shard that supplied nothing yet is
//! asked instead for a binomial quantile of the page, so that a second round is rare.

use super::heap::Demand;

/// The bytes DynamoDB reads per unit of a query.
pub(crate) const READ_UNIT_BYTES: u64 = 4_096;

/// The item size assumed before any item was seen: five items fill a read unit, with the spare
/// [`fill_units`] keeps. Larger than most items on purpose: a unit filled with items taken as
/// 500 bytes costs two for items of 560, where one taken too large costs a few items more.
pub(crate) const ASSUMED_ITEM_BYTES: u64 = 680;

/// How a merge sizes its first request to each shard of a page.
///
/// A page of `n` items over `s` shards needs about `n / s` items of each, but which shards hold
/// more is only known once they answered: a shard that held more than it was asked for is asked
/// again, a second round trip.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RequestSizing {
    /// Each shard is first asked for its even share, filled to the nearest whole read unit: the
    /// fewest read units, usually with a second round trip to a few shards (a page of 100 items
    /// of 500 bytes over 21 shards: about 1.8 times the read units of an unsharded page).
    #[default]
    Floor,
    /// Each shard that has supplied nothing yet is asked for as many items as any one of them
    /// holds in all but one page in twenty, rounded up to whole read units: one round trip, at
    /// more read units (the same page: about 3 times those of an unsharded page). For pages
    /// whose latency matters more than their cost.
    OneRoundTrip,
}

impl RequestSizing {
    /// The items a merged page of `page` items asks of each of `shards` shards in its first
    /// requests, for items of about `item_bytes` as DynamoDB sizes them: the request a page's
    /// cost starts from (`dynashard plan` prices it). A shard holding more of the page than it
    /// was asked for is asked again; a single partition is asked for the page.
    ///
    /// ```
    /// use dynashard::query::RequestSizing;
    ///
    /// // A page of 100 items of 500 bytes over 21 shards: one read unit (eight items) a shard,
    /// // or two (sixteen) for one round trip.
    /// assert_eq!(RequestSizing::Floor.first_request(100, 21, 500), 8);
    /// assert_eq!(RequestSizing::OneRoundTrip.first_request(100, 21, 500), 16);
    /// assert_eq!(RequestSizing::Floor.first_request(100, 1, 500), 100);
    /// ```
    pub fn first_request(self, page: usize, shards: usize, item_bytes: u64) -> usize {
        let demand = Demand { need: page, competing: shards.max(1), supplied: None, held: None };
        let sizes = ItemSizes::starting_at(Some(item_bytes));
        limit(&demand, &sizes, Some(page), self).unwrap_or(page)
    }
}

/// The mean size of the items a read has seen (DynamoDB's item size arithmetic), corrected by
/// what DynamoDB charged for them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ItemSizes {
    bytes: u64,
    items: u64,
    /// Bytes DynamoDB read at least, by what it charged (`units - 1` whole units a request), for
    /// `charged_items` items: more than item sizes show when a projection returns less than it
    /// reads.
    charged_bytes: u64,
    charged_items: u64,
}

impl ItemSizes {
    /// Sizes starting from a mean learnt earlier (`None`: nothing known yet), which counts as one
    /// item seen: the first answers correct it, so a read of smaller items than the last one's
    /// asks for more of them.
    pub(crate) fn starting_at(mean: Option<u64>) -> Self {
        match mean {
            Some(mean) => ItemSizes { bytes: mean.max(1), items: 1, ..ItemSizes::default() },
            None => ItemSizes::default(),
        }
    }

    /// Counts items of `bytes` in all, for which DynamoDB charged `units` read units (4 KB each)
    /// when known: `units` of them mean more than `units - 1` units' worth of bytes. The bound
    /// holds for all the items charged together, not for each request: one request of items a
    /// little larger than the rest does not set the size of all.
    pub(crate) fn record(&mut self, items: usize, bytes: u64, units: Option<u64>) {
        self.items = self.items.saturating_add(items as u64);
        self.bytes = self.bytes.saturating_add(bytes);
        if let Some(units) = units.filter(|_| items > 0) {
            let least = units.saturating_sub(1).saturating_mul(READ_UNIT_BYTES);
            self.charged_bytes = self.charged_bytes.saturating_add(least);
            self.charged_items = self.charged_items.saturating_add(items as u64);
        }
    }

    /// The mean item size, if any item was seen.
    pub(crate) fn mean(&self) -> Option<u64> {
        let charged = match self.charged_bytes {
            0 => 0,
            bytes => bytes / self.charged_items.max(1) + 1,
        };
        (self.items > 0).then(|| (self.bytes / self.items).max(charged).max(1))
    }
}

/// The `Limit` of a request for `demand`, with items of `sizes`, at most `cap` (the page size,
/// or what is still wanted); without a limit on the read (`need` 0), `cap` alone.
pub(crate) fn limit(
    demand: &Demand,
    sizes: &ItemSizes,
    cap: Option<usize>,
    sizing: RequestSizing,
) -> Option<usize> {
    if demand.need == 0 {
        return cap;
    }
    let known = sizes.mean();
    let mean = known.unwrap_or(ASSUMED_ITEM_BYTES);
    let capped = |items: usize| match cap {
        Some(cap) => items.min(cap.max(1)),
        None => items,
    };
    // What a page end knows the lane holds of the page, and the item after them, so that the
    // lane does not block the merge inside it.
    if let Some(held) = demand.held {
        return Some(capped(fill_started_units(held.saturating_add(1), mean)));
    }
    if sizing == RequestSizing::OneRoundTrip && demand.supplied.is_none() && demand.competing > 1 {
        return Some(capped(fill_started_units(one_round_share(demand.need, demand.competing), mean)));
    }
    let share = match demand.supplied {
        // A lane asked again ran out inside the page: it is likely denser there than it was on
        // average, so it is asked for half as much again as its share, which saves a third
        // round more often than it costs a unit.
        Some((supplied, rank)) => {
            let share = (3 * demand.need as u128 * supplied as u128).div_ceil(2 * rank.max(1) as u128);
            usize::try_from(share).unwrap_or(demand.need).min(demand.need)
        }
        None => demand.need.div_ceil(demand.competing.max(1)),
    };
    // A lane alone in its group is asked for exactly what is missing; among several, each
    // share is a guess, so it fills the units it pays for.
    let filled = match demand.competing {
        0 | 1 => share.max(1),
        // Items of a size not known yet: the share and the item after it (what the page needs of
        // the lane), at least, filling a unit of items taken as `ASSUMED_ITEM_BYTES`.
        _ if known.is_none() && demand.supplied.is_none() => {
            fill_units(share.max(1), mean).max(share.saturating_add(1))
        }
        // A lane believed to hold all that is missing is asked for all of it.
        _ if share >= demand.need => fill_started_units(share.max(1), mean),
        _ => fill_units(share.max(1), mean),
    };
    Some(capped(filled))
}

/// How often a first round of [`RequestSizing::OneRoundTrip`] may leave some lane short: one
/// page in twenty.
const SECOND_ROUND_ODDS: f64 = 0.05;

/// Above this many items expected of a lane, the binomial tail is taken from its normal
/// approximation, whose skew is then negligible; below, it is summed term by term (at most about
/// this many terms).
const EXACT_TAIL_UP_TO: f64 = 10_000.0;

/// The items a lane's first request asks for so that no lane of `competing` (items spread
/// evenly over them) holds more of the `need` wanted, but one page in twenty: the least `k`
/// with `P(X >= k) <= SECOND_ROUND_ODDS / competing` for `X ~ Binomial(need, 1 / competing)`.
pub(crate) fn one_round_share(need: usize, competing: usize) -> usize {
    let competing = competing.max(1);
    if competing == 1 || need == 0 {
        return need;
    }
    let p = 1.0 / competing as f64;
    let odds = SECOND_ROUND_ODDS / competing as f64;
    let n = need as f64;
    if n * p > EXACT_TAIL_UP_TO {
        // `z` standard deviations above the mean, with `P(Z > z) <= exp(-z^2 / 2) = odds`: a
        // bound on the normal tail, so a little above the exact quantile.
        let z = (2.0 * (1.0 / odds).ln()).sqrt();
        let share = n * p + z * (n * p * (1.0 - p)).sqrt();
        return (share.ceil() as usize).min(need);
    }
    // The probability of each count in turn, in logarithms so that the first terms (as small
    // as (1 - p)^10000) do not vanish before they grow.
    let mut log_term = n * (1.0 - p).ln();
    let ratio = (p / (1.0 - p)).ln();
    let mut below = 0.0;
    for count in 0..need {
        below += log_term.exp();
        if 1.0 - below <= odds {
            return count + 1;
        }
        log_term += ((n - count as f64) / (count as f64 + 1.0)).ln() + ratio;
    }
    need
}

/// The items of `item_bytes` that fill the whole read units nearest to what `items` of them take
/// (at least one item), keeping a hundredth of the last unit spare for items a little larger
/// than the mean. A share is a guess: rounding it up to whole units would cost a unit more as
/// often as it saves a request.
pub(crate) fn fill_units(items: usize, item_bytes: u64) -> usize {
    fill(items, item_bytes, READ_UNIT_BYTES / 2)
}

/// The items of `item_bytes` that fill the whole read units `items` of them start: at least
/// `items`, for a request that must bring all of them.
pub(crate) fn fill_started_units(items: usize, item_bytes: u64) -> usize {
    fill(items, item_bytes, READ_UNIT_BYTES - 1).max(items)
}

/// Fills the units `items` of `item_bytes` take, a unit counted once `round_at` bytes of it are.
fn fill(items: usize, item_bytes: u64, round_at: u64) -> usize {
    let item_bytes = item_bytes.max(1);
    let bytes = (items as u64).saturating_mul(item_bytes);
    let units = bytes.saturating_add(round_at).div_euclid(READ_UNIT_BYTES).max(1);
    let usable = units.saturating_mul(READ_UNIT_BYTES).saturating_sub(READ_UNIT_BYTES / 100);
    let fitting = usable / item_bytes;
    usize::try_from(fitting).unwrap_or(usize::MAX).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demand(need: usize, competing: usize) -> Demand {
        Demand { need, competing, supplied: None, held: None }
    }

    fn limit_floor(demand: &Demand, sizes: &ItemSizes, cap: Option<usize>) -> Option<usize> {
        limit(demand, sizes, cap, RequestSizing::Floor)
    }

    /// `P(X >= k)` for `X ~ Binomial(n, p)`, summed directly.
    fn tail(n: usize, p: f64, k: usize) -> f64 {
        let mut choose = 1.0f64;
        let mut sum = 0.0;
        for i in 0..=n {
            if i > 0 {
                choose = choose * (n - i + 1) as f64 / i as f64;
            }
            if i >= k {
                sum += choose * p.powi(i as i32) * (1.0 - p).powi((n - i) as i32);
            }
        }
        sum
    }

    #[test]
    fn one_round_shares_leave_a_lane_short_one_page_in_twenty() {
        for (need, competing) in [(100, 21), (100, 2), (20, 4), (1_000, 21), (50, 100), (300, 8)] {
            let share = one_round_share(need, competing);
            let odds = SECOND_ROUND_ODDS / competing as f64;
            let p = 1.0 / competing as f64;
            assert!(tail(need, p, share) <= odds, "{need} over {competing}: {share} too few");
            assert!(tail(need, p, share - 1) > odds, "{need} over {competing}: {share} more than needed");
        }
        assert_eq!(one_round_share(100, 21), 13);
        assert_eq!(one_round_share(100, 1), 100);
        assert_eq!(one_round_share(0, 21), 0);
        // Many lanes with few items each: the exact sum, skew and all.
        for (need, competing, exact) in [(10_001, 10_000, 9), (10_000, 10_000, 9), (100_000, 2_000, 82)] {
            assert_eq!(one_round_share(need, competing), exact, "{need} over {competing}");
        }
        // Many items a lane: the normal bound, a little above the mean plus its spread.
        let wide = one_round_share(1_000_000, 21);
        let (mean, spread) = (1_000_000.0 / 21.0, (1_000_000.0f64 / 21.0 * 20.0 / 21.0).sqrt());
        assert!(wide as f64 > mean + 3.0 * spread && (wide as f64) < mean + 4.5 * spread, "{wide}");
        let halves = one_round_share(40_000, 2);
        assert!((20_200..=20_500).contains(&halves), "{halves}");
    }

    #[test]
    fn one_round_trip_fills_the_units_of_its_share_on_the_first_request_only() {
        let sizes = ItemSizes::starting_at(Some(485));
        let one_round = |demand: &Demand| limit(demand, &sizes, Some(100), RequestSizing::OneRoundTrip);
        // Thirteen items of 485 bytes start a second unit, which holds sixteen.
        assert_eq!(one_round(&demand(100, 21)), Some(16));
        assert_eq!(one_round(&demand(100, 1)), Some(100), "alone: exactly what is missing");
        let again = Demand { need: 60, competing: 21, supplied: Some((5, 100)), held: None };
        assert_eq!(one_round(&again), limit_floor(&again, &sizes, Some(100)), "later rounds as the floor");
        assert_eq!(limit(&demand(0, 21), &sizes, Some(7), RequestSizing::OneRoundTrip), Some(7));
    }

    #[test]
    fn a_share_fills_the_units_it_pays_for() {
        let sizes = ItemSizes::starting_at(Some(500));
        // A page of 100 over 21 shards: five items each, eight fit in one unit.
        assert_eq!(limit_floor(&demand(100, 21), &sizes, Some(100)), Some(8));
        // A page of 1,000: 48 items take six units, which hold 49.
        assert_eq!(limit_floor(&demand(1_000, 21), &sizes, Some(1_000)), Some(49));
        // One shard: exactly what is missing, never more than the cap.
        assert_eq!(limit_floor(&demand(100, 1), &sizes, Some(100)), Some(100));
        assert_eq!(limit_floor(&demand(3, 1), &sizes, Some(100)), Some(3));
        assert_eq!(limit_floor(&demand(300, 1), &sizes, Some(100)), Some(100));
        // No limit on the read: the cap alone.
        assert_eq!(limit_floor(&demand(0, 1), &sizes, None), None);
        assert_eq!(limit_floor(&demand(0, 1), &sizes, Some(25)), Some(25));
    }

    #[test]
    fn sizes_are_learnt() {
        let mut sizes = ItemSizes::default();
        assert_eq!(sizes.mean(), None);
        // Sizes unknown: the share and the item after it, which cost a unit whatever their size
        // up to about 680 bytes (filling the unit with items taken as 500 bytes would cost two
        // for items of 560); a small share fills a unit of items taken as 680 bytes.
        assert_eq!(limit_floor(&demand(100, 21), &sizes, None), Some(6), "the share and one more");
        assert_eq!(limit_floor(&demand(10, 21), &sizes, None), Some(5), "a unit of 680-byte items");
        sizes.record(4, 400, None);
        assert_eq!(limit_floor(&demand(100, 21), &sizes, None), Some(40), "100-byte items: 40 a unit");
        // DynamoDB charged two units for eight items of 505 bytes: they count as more than 512.
        let mut counted = ItemSizes::default();
        counted.record(8, 8 * 505, Some(2));
        assert_eq!(counted.mean(), Some(513));
        assert_eq!(limit_floor(&demand(100, 21), &counted, None), Some(7));
        // The bound holds for all the items charged: eight more charged one unit leave it at
        // 4,096 bytes over sixteen items, and the items' own sizes are larger.
        counted.record(8, 8 * 505, Some(1));
        assert_eq!(counted.mean(), Some(505), "one request's charge is not every item's size");
        assert_eq!(limit_floor(&demand(100, 21), &counted, None), Some(8));
        // A projection returning 100 of the 1,000 bytes it reads: the charges tell.
        let mut projected = ItemSizes::default();
        for _ in 0..4 {
            projected.record(8, 8 * 100, Some(2));
        }
        assert_eq!(projected.mean(), Some(513));
        // A mean learnt earlier counts as one item: the first answers correct it.
        let mut resumed = ItemSizes::starting_at(Some(522));
        assert_eq!(limit_floor(&demand(100, 21), &resumed, None), Some(7));
        resumed.record(8, 8 * 504, Some(1));
        assert_eq!(resumed.mean(), Some(506));
        assert_eq!(limit_floor(&demand(100, 21), &resumed, None), Some(8));
        let large = ItemSizes::starting_at(Some(10_000));
        assert_eq!(
            limit_floor(&demand(100, 21), &large, None),
            Some(4),
            "large items: the nearest whole units"
        );
    }

    #[test]
    fn a_shard_once_read_is_asked_for_its_share_of_the_output() {
        let sizes = ItemSizes::starting_at(Some(500));
        // It supplied all 8 of the first 8 items: it holds everything, so it gets the shortfall.
        let skewed = Demand { need: 92, competing: 21, supplied: Some((8, 8)), held: None };
        assert_eq!(limit_floor(&skewed, &sizes, Some(100)), Some(98));
        // One twentieth of the output: 1.5 times a twentieth of the shortfall, filling its unit.
        let even = Demand { need: 60, competing: 21, supplied: Some((5, 100)), held: None };
        assert_eq!(limit_floor(&even, &sizes, Some(100)), Some(8));
        let dense = Demand { need: 80, competing: 21, supplied: Some((8, 60)), held: None };
        assert_eq!(limit_floor(&dense, &sizes, Some(100)), Some(16), "two units for sixteen");
        let alone = Demand { need: 10, competing: 1, supplied: Some((3, 12)), held: None };
        assert_eq!(limit_floor(&alone, &sizes, Some(100)), Some(4), "alone: exactly its share");
    }

    #[test]
    fn fill_units_fills_the_nearest_whole_units() {
        let units = |n: usize, size: u64| (n as u64 * size).div_ceil(READ_UNIT_BYTES).max(1);
        for items in [1, 3, 7, 8, 9, 12, 13, 100, 1_000] {
            for bytes in [1, 100, 500, 4_096, 5_000, 400_000] {
                let filled = fill_units(items, bytes);
                assert!(filled >= 1, "{items} of {bytes}");
                let nearest = (items as f64 * bytes as f64 / READ_UNIT_BYTES as f64).round().max(1.0) as u64;
                let wanted = nearest.max(units(1, bytes));
                assert!(units(filled, bytes) <= wanted, "{items} of {bytes}: {filled} take more units");
                if filled > 1 {
                    let usable = wanted * READ_UNIT_BYTES - READ_UNIT_BYTES / 100;
                    assert!(filled as u64 * bytes <= usable, "{items} of {bytes}: no spare");
                    assert!((filled as u64 + 1) * bytes > usable, "{items} of {bytes}: one more would fit");
                }
            }
        }
        assert_eq!(fill_units(12, 485), 8, "12 of 485 bytes are nearer one unit than two");
        assert_eq!(fill_units(13, 485), 16);
    }
}
