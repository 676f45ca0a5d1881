//! Keeping a scan within a capacity budget: what it consumed, as DynamoDB reported it
//! (`ConsumedCapacity`), and how long to wait before the next page so that it spends no more
//! than its share. Sans-IO: time comes in as arguments.

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

    /// Sets this segment's share: `budget` split evenly over the `unfinished` segments (every
    /// segment not yet done, held or not), so that the segments running anywhere never spend
    /// more than the budget together.
    pub fn share(&mut self, budget: Budget, unfinished: u32, now: Instant) {
        // A budget of 0 is the least there can be (one unit a second), not none.
        let split =
            |units: Option<u32>| units.map(|units| f64::from(units.max(1)) / f64::from(unfinished.max(1)));
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
    fn fewer_unfinished_segments_get_larger_shares() {
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
