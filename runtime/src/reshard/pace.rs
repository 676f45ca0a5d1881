//! Keeping a scan within a capacity budget: what it consumed, as DynamoDB reported it
//! (`ConsumedCapacity`), how many items the next page may read, and how long to wait before it,
//! so that it spends no more than its share. Sans-IO: time comes in as arguments.
//!
//! A segment pays for a page after reading it, so over a run of `T` seconds it spends at most
//! its rate times `T`, plus one page. Pages are therefore sized to about [`PAGE_SECONDS`] of the
//! share (DynamoDB's 1 MB pages would cost some 500 write units each): the scan as a whole spends
//! at most about a second of the budget more than the budget allows, however short it is.

use crate::metadata::{Budget, Capacity};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Capacity units consumed, as reported by DynamoDB, added up from any number of tasks.
#[derive(Debug, Default)]
pub(crate) struct Meter {
    /// Thousandths of a unit, so that adding stays exact and lock-free.
    read: AtomicU64,
    write: AtomicU64,
}

impl Meter {
    /// Adds `units` of read capacity.
    pub fn read(&self, units: f64) {
        add(&self.read, units);
    }

    /// Adds `units` of write capacity.
    pub fn write(&self, units: f64) {
        add(&self.write, units);
    }

    /// What was consumed so far.
    pub fn consumed(&self) -> Capacity {
        Capacity { read: self.read.load(Ordering::Relaxed), write: self.write.load(Ordering::Relaxed) }
    }

    /// `(read, write)` units consumed so far.
    pub fn totals(&self) -> (f64, f64) {
        let consumed = self.consumed();
        (consumed.read_units(), consumed.write_units())
    }
}

/// Adds `units` to `counter` in thousandths, saturating: NaN or negative answers count as
/// nothing, absurd ones as the most there can be, rather than poisoning the sum.
fn add(counter: &AtomicU64, units: f64) {
    let milli =
        if units.is_finite() && units > 0.0 { (units * 1_000.0).min(u64::MAX as f64) as u64 } else { 0 };
    let _ = counter.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |sum| Some(sum.saturating_add(milli)));
}

/// The longest wait between two pages, whatever was consumed.
const LONGEST_WAIT: Duration = Duration::from_secs(60);

/// What a segment may save up while it reads a page more slowly than its share allows: a few
/// seconds of its rate, so that slow pages are made up for without long bursts.
const SAVED: f64 = 5.0;

/// What a page may cost, in seconds of the segment's share.
pub(crate) const PAGE_SECONDS: f64 = 1.0;

/// The items of a segment's first page under a budget, before it knows what an item costs: one
/// write request's worth.
pub(crate) const FIRST_PAGE: u32 = 25;

/// One lane of spending (reads or writes) held to a rate: a balance that grows by the rate
/// (up to [`SAVED`] seconds' worth) and shrinks by what was consumed; a request waits while it
/// is negative.
#[derive(Debug, Clone, Copy)]
struct Lane {
    rate: Option<f64>,
    balance: f64,
    at: Instant,
}

impl Lane {
    fn new(now: Instant) -> Self {
        Lane { rate: None, balance: 0.0, at: now }
    }

    fn accrue(&mut self, now: Instant) {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.at = self.at.max(now);
        if let Some(rate) = self.rate {
            self.balance = (self.balance + rate * elapsed).min(rate * SAVED);
        }
    }

    fn wait(&self) -> Duration {
        match self.rate {
            Some(rate) if self.balance < 0.0 && rate > 0.0 => {
                Duration::try_from_secs_f64(-self.balance / rate)
                    .map_or(LONGEST_WAIT, |wait| wait.min(LONGEST_WAIT))
            }
            _ => Duration::ZERO,
        }
    }
}

/// The pace of one scan segment: its share of the budget, and what it spent.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pace {
    read: Lane,
    write: Lane,
}

impl Pace {
    /// A pace without limits until [`Pace::share`] sets them.
    pub fn new(now: Instant) -> Self {
        Pace { read: Lane::new(now), write: Lane::new(now) }
    }

    /// Sets this segment's share: `budget` split evenly over the `held` segments (those being
    /// worked on, by any worker), so that the segments running anywhere spend the budget
    /// together and no more.
    pub fn share(&mut self, budget: Budget, held: u32, now: Instant) {
        // A budget of 0 is the least there can be (one unit a second), not none.
        let split = |units: Option<u32>| units.map(|units| f64::from(units.max(1)) / f64::from(held.max(1)));
        for (lane, rate) in
            [(&mut self.read, split(budget.read_units)), (&mut self.write, split(budget.write_units))]
        {
            lane.accrue(now);
            lane.rate = rate;
            if rate.is_none() {
                lane.balance = 0.0;
            }
        }
    }

    /// Records `(read, write)` units consumed.
    pub fn spend(&mut self, (read, write): (f64, f64), now: Instant) {
        self.read.accrue(now);
        self.write.accrue(now);
        self.read.balance -= read.max(0.0);
        self.write.balance -= write.max(0.0);
    }

    /// How many items the next page may read, for items that cost `per_item` `(read, write)`
    /// units each (`None`: not known yet): about [`PAGE_SECONDS`] of the share, at least one;
    /// `None` without a budget.
    pub fn page_items(&self, per_item: Option<(f64, f64)>) -> Option<u32> {
        let lanes =
            [(self.read.rate, per_item.map(|cost| cost.0)), (self.write.rate, per_item.map(|cost| cost.1))];
        let mut limit: Option<u32> = None;
        for (rate, cost) in lanes {
            let Some(rate) = rate else { continue };
            let items = match cost {
                Some(cost) if cost > 0.0 && cost.is_finite() => {
                    (rate * PAGE_SECONDS / cost).clamp(1.0, f64::from(u32::MAX)) as u32
                }
                Some(_) => continue,
                None => FIRST_PAGE,
            };
            limit = Some(limit.map_or(items, |limit| limit.min(items)));
        }
        limit
    }

    /// How long to wait before the next request, at `now`.
    pub fn wait(&mut self, now: Instant) -> Duration {
        self.read.accrue(now);
        self.write.accrue(now);
        self.read.wait().max(self.write.wait())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(write: u32) -> Budget {
        Budget { write_units: Some(write), read_units: None }
    }

    #[test]
    fn without_a_budget_nothing_waits() {
        let now = Instant::now();
        let mut pace = Pace::new(now);
        pace.spend((1e9, 1e9), now);
        assert_eq!(pace.wait(now), Duration::ZERO);
    }

    #[test]
    fn a_segment_spends_its_share_of_the_budget() {
        let start = Instant::now();
        let mut pace = Pace::new(start);
        pace.share(budget(100), 4, start); // 25 units a second
        let mut now = start;
        let mut spent = 0.0;
        // Pages of 10 units, each sent when the pace allows: over 60 s, about 25 units a second.
        while now < start + Duration::from_secs(60) {
            now += pace.wait(now);
            pace.spend((0.0, 10.0), now);
            spent += 10.0;
        }
        let rate = spent / now.duration_since(start).as_secs_f64();
        assert!((rate - 25.0).abs() / 25.0 < 0.05, "{rate} units a second");
    }

    #[test]
    fn fewer_held_segments_get_larger_shares() {
        let now = Instant::now();
        let mut pace = Pace::new(now);
        pace.share(budget(100), 4, now);
        pace.spend((0.0, 50.0), now);
        assert_eq!(pace.wait(now), Duration::from_secs(2), "50 units at 25 a second");
        pace.share(budget(100), 1, now);
        assert_eq!(pace.wait(now), Duration::from_millis(500), "50 units at 100 a second");
    }

    #[test]
    fn idle_time_saves_at_most_a_few_seconds_of_budget() {
        let start = Instant::now();
        let mut pace = Pace::new(start);
        pace.share(budget(10), 1, start);
        let later = start + Duration::from_secs(3_600);
        pace.spend((0.0, 70.0), later);
        assert_eq!(pace.wait(later), Duration::from_secs(2), "only 50 units were saved up");
    }

    #[test]
    fn pages_cost_about_a_second_of_the_share() {
        let now = Instant::now();
        let mut pace = Pace::new(now);
        assert_eq!(pace.page_items(Some((1.0, 1.0))), None, "no budget, no bound");
        pace.share(Budget { write_units: Some(400), read_units: Some(100) }, 4, now);
        assert_eq!(pace.page_items(None), Some(FIRST_PAGE));
        // 100 write units a second at 2 units an item: 50 items; 25 read units at 0.25: 100.
        assert_eq!(pace.page_items(Some((0.25, 2.0))), Some(50));
        assert_eq!(pace.page_items(Some((1.0, 0.5))), Some(25), "the read share bounds it");
        assert_eq!(pace.page_items(Some((0.0, 1e9))), Some(1), "at least one item");
        assert_eq!(pace.page_items(Some((f64::NAN, 0.0))), None, "items that cost nothing");
    }

    #[test]
    fn a_scan_of_pages_sized_by_the_pace_spends_within_its_budget() {
        // Pages take 50 ms; items cost 2 write units; the share is 25 units a second.
        let start = Instant::now();
        let mut pace = Pace::new(start);
        pace.share(budget(100), 4, start);
        let (mut now, mut spent, mut per_item) = (start, 0.0, None);
        for _ in 0..40 {
            now += pace.wait(now);
            let items = pace.page_items(per_item).unwrap();
            now += Duration::from_millis(50);
            pace.spend((0.0, 2.0 * f64::from(items)), now);
            spent += 2.0 * f64::from(items);
            per_item = Some((0.0, 2.0));
        }
        let rate = spent / now.duration_since(start).as_secs_f64();
        assert!((rate - 25.0).abs() / 25.0 < 0.05, "{rate} units a second");
    }

    #[test]
    fn the_meter_adds_exactly_and_ignores_nonsense() {
        let meter = Meter::default();
        for units in [0.5, 1.5, f64::NAN, -3.0, f64::INFINITY] {
            meter.write(units);
        }
        meter.read(0.5);
        assert_eq!(meter.totals(), (0.5, 2.0));
        for _ in 0..3 {
            meter.read(1e300);
        }
        assert_eq!(meter.consumed().read, u64::MAX, "absurd answers saturate, never wrap");
    }

    #[test]
    fn absurd_consumption_waits_at_most_a_minute() {
        let now = Instant::now();
        let mut pace = Pace::new(now);
        pace.share(budget(0), 4_000_000_000, now);
        pace.spend((0.0, 1e300), now);
        assert_eq!(pace.wait(now), LONGEST_WAIT);
    }
}
