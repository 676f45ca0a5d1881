//! How many items to ask of one partition: its share of what a page still needs, rounded up to
//! whole read units.
//!
//! DynamoDB charges a query for the items it reads, rounded up to 4 KB per request, and at least
//! one unit per request: a request for three items of 500 bytes costs what eight cost. So a
//! request asks for its share of the shortfall, then for as many more as fit in the units that
//! share pays for anyway (before any item's size is known, at least the share and one more).
//! Before a partition was read, its share is an even one; after, it is a multiple of the share
//! of the output it supplied so far (see `again_factor`), so a skewed shard is asked for what it
//! holds. Items are taken at the partition's own sizes (`sizes::LaneSizes`), with room left in
//! the last unit for their spread. With [`RequestSizing::OneRoundTrip`], a shard that supplied nothing yet is
//! asked instead for a binomial quantile of the page, so that a second round is rare.

use super::heap::Demand;

mod sizes;

pub(crate) use sizes::{LaneSizes, Size};

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
    /// of 500 bytes over 21 shards: about 1.8 times the read units of an unsharded page). When
    /// the [`Db`](crate::Db) knows no item size for the index yet (it never read it, and the
    /// read does not resume from a cursor), one shard is asked first, alone, and the others once
    /// its items say how many of them a unit holds: one round trip more, once.
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
        let demand =
            Demand { need: page, competing: shards.max(1), supplied: None, held: None, dense: false };
        limit(&demand, Some(Size::exactly(item_bytes)), Some(page), self).unwrap_or(page)
    }
}

/// The `Limit` of a request for `demand`, with items of `known` size (`None`: not known yet),
/// at most `cap` (the page size, or what is still wanted); without a limit on the read (`need`
/// 0), `cap` alone.
pub(crate) fn limit(
    demand: &Demand,
    known: Option<Size>,
    cap: Option<usize>,
    sizing: RequestSizing,
) -> Option<usize> {
    if demand.need == 0 {
        return cap;
    }
    let size = known.unwrap_or(Size::exactly(ASSUMED_ITEM_BYTES));
    let mean = size.mean;
    let capped = |items: usize| match cap {
        Some(cap) => items.min(cap.max(1)),
        None => items,
    };
    // What a page end knows the lane holds of the page, and the item after them, so that the
    // lane does not block the merge inside it.
    if let Some(held) = demand.held {
        return Some(capped(fill_started_units(held.saturating_add(1), size)));
    }
    if sizing == RequestSizing::OneRoundTrip && demand.supplied.is_none() && demand.competing > 1 {
        return Some(capped(fill_started_units(one_round_share(demand.need, demand.competing), size)));
    }
    let share = match demand.supplied {
        // A lane dense where it stopped is asked for all that is missing (the bound of the page
        // keeps it from reading far past a run that ends early).
        Some(_) if demand.dense => demand.need,
        // A lane asked again ran out inside the page: it is likely denser there than it was on
        // average, so it is asked for half as much again as its share, which saves a third
        // round more often than it costs a unit.
        Some((supplied, rank)) => {
            let (times, over) = again_factor(mean, supplied.saturating_mul(2) >= rank);
            let share = (times * demand.need as u128 * supplied as u128).div_ceil(over * rank.max(1) as u128);
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
            fill_units(share.max(1), size).max(share.saturating_add(1))
        }
        // A lane believed to hold all that is missing is asked for all of it.
        _ if share >= demand.need => fill_started_units(share.max(1), size),
        _ => fill_units(share.max(1), size),
    };
    Some(capped(filled))
}

/// How much of its share of what is missing a lane that ran out inside the page is asked for,
/// as a fraction: half as much again for items of which a unit holds four or more (a further
/// round costs at least a whole unit, more than the items asked in excess), three quarters for
/// larger ones (each item asked in excess costs a quarter unit or more, a further round only the
/// rounding of its last unit).
fn again_factor(item_bytes: u64, most: bool) -> (u128, u128) {
    if most || item_bytes.saturating_mul(4) <= READ_UNIT_BYTES {
        (3, 2)
    } else {
        (3, 4)
    }
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

/// The items of `size` that fill the whole read units nearest to what `items` of them take (at
/// least one item), keeping spare room for items larger than the mean. A share is a guess:
/// rounding it up to whole units would cost a unit more as often as it saves a request.
pub(crate) fn fill_units(items: usize, size: Size) -> usize {
    fill(items, size, READ_UNIT_BYTES / 2)
}

/// The items of `size` that fill the whole read units `items` of them start: at least `items`,
/// for a request that must bring all of them.
pub(crate) fn fill_started_units(items: usize, size: Size) -> usize {
    fill(items, size, READ_UNIT_BYTES - 1).max(items)
}

/// Standard deviations of a request's bytes kept spare in its last unit: items of varying size
/// then spill into a unit more about one request in forty.
const SPARE_SPREADS: f64 = 2.0;

/// Fills the units `items` of `size` take, a unit counted once `round_at` bytes of it are. The
/// last unit keeps a hundredth spare, and twice the spread of the total of the items filling
/// the units (`spread * sqrt(n)` for `n` items).
fn fill(items: usize, size: Size, round_at: u64) -> usize {
    let mean = size.mean.max(1);
    let bytes = (items as u64).saturating_mul(mean);
    let units = bytes.saturating_add(round_at).div_euclid(READ_UNIT_BYTES).max(1);
    let usable = units.saturating_mul(READ_UNIT_BYTES).saturating_sub(READ_UNIT_BYTES / 100);
    let mut fitting = usable / mean;
    let spare = |n: u64| SPARE_SPREADS * size.spread as f64 * (n as f64).sqrt();
    // Each item fewer frees a mean's bytes and shrinks the spare: few steps, at most a few
    // dozen even for small items of a wide spread.
    while fitting > 1 && (fitting * mean) as f64 + spare(fitting) > usable as f64 {
        fitting -= 1;
    }
    usize::try_from(fitting).unwrap_or(usize::MAX).max(1)
}

/// Whether a read sends one request alone before the others, to learn the size of the index's
/// items: when none is known (`item_bytes`, from an earlier read of the index or the page before),
/// the read has a limit, and `sizing` is [`RequestSizing::Floor`].
///
/// Requests sized for items of an assumed size cost up to half as much again as the page's floor
/// when the items are much smaller (a unit asked for five items holds twenty, and every shard
/// holding more than five is asked twice) or larger. One round trip more, once per index and
/// [`Db`](crate::Db), sizes all the other first requests by the items themselves.
pub(crate) fn probes(item_bytes: Option<u64>, limit: Option<usize>, sizing: RequestSizing) -> bool {
    item_bytes.is_none() && limit.is_some_and(|limit| limit > 0) && sizing == RequestSizing::Floor
}

/// Whether a request of `limit` items of `known` size is worth ending at the last key a page can hold
/// ([`Merger::output_bound`](super::heap::Merger::output_bound)). Only when it may read more
/// than one unit: a request costs a unit at least, and the items a one-unit request reads past
/// the page cost nothing more, while they place the lane's floor past the page end, which tells
/// the next page whether to ask the lane at all.
pub(crate) fn worth_bounding(limit: Option<usize>, known: Option<Size>) -> bool {
    let mean = known.map_or(ASSUMED_ITEM_BYTES, |size| size.mean);
    limit.is_none_or(|limit| (limit as u64).saturating_mul(mean) > READ_UNIT_BYTES)
}

#[cfg(test)]
mod tests;
