//! Hot keys: the partition keys a [`Db`](crate::Db) consumed the most capacity on, and was
//! throttled on the most, over a sliding window.
//!
//! Each `Db` (and its clones) counts every unit it is charged and every request throttled
//! against the partition key (shard suffix and all) of the table or index it went to, in two
//! bounded [space-saving](https://doi.org/10.1007/978-3-540-30570-5_27) summaries per period of
//! the window. [`Db::hot_keys`](crate::Db::hot_keys) combines the periods of the window: each
//! key's count is at least what it really consumed, and more by at most its `error`.
//!
//! The load on the routing values of range-sharded mappings is counted the same way, per
//! partition and value, for [`Db::suggest_split`](crate::Db::suggest_split).
//!
//! Memory is bounded by the configuration, whatever the traffic: at most
//! `counters * periods` keys for units, as many for throttles and as many routing values, each
//! held once per period it appears in, at about 250 bytes and twice its names' length (reported
//! as [`HotKeys::memory_bytes`]). The defaults (256 counters, 6 periods of 10 seconds) hold at
//! most 1,536 keys of each kind: about 0.5 MB each when table, key and value take 40 bytes
//! together, and nothing for the kinds not counted (throttles while none happen, routing values
//! without range-sharded mappings).

mod sketch;
mod window;

#[cfg(test)]
mod tests;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use window::Window;

/// How a `Db` tracks hot keys: counters per period, periods per window, a period's length.
///
/// ```
/// use dynashard::consumption::HotKeyTracking;
/// use std::time::Duration;
///
/// // The last five minutes, a minute at a time, 1,024 keys a minute.
/// let tracking = HotKeyTracking::default().counters(1_024).period(Duration::from_secs(60)).periods(5);
/// assert_eq!(tracking.window(), Duration::from_secs(300));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HotKeyTracking {
    counters: usize,
    periods: u32,
    period: Duration,
}

impl Default for HotKeyTracking {
    /// 256 counters, six periods of ten seconds: the last minute.
    fn default() -> Self {
        HotKeyTracking { counters: 256, periods: 6, period: Duration::from_secs(10) }
    }
}

impl HotKeyTracking {
    /// Counters a period's summary keeps (at least one): a key that took more than
    /// `1 / counters` of a period's units is always among them.
    pub fn counters(mut self, counters: usize) -> Self {
        self.counters = counters.max(1);
        self
    }

    /// Periods the window spans (at least one).
    pub fn periods(mut self, periods: u32) -> Self {
        self.periods = periods.max(1);
        self
    }

    /// The length of a period (at least a millisecond).
    pub fn period(mut self, period: Duration) -> Self {
        self.period = period.max(Duration::from_millis(1));
        self
    }

    /// The window: `periods` periods.
    pub fn window(&self) -> Duration {
        self.period.saturating_mul(self.periods)
    }
}

/// Where a hot key lives: a table, or one of its indexes, and the partition key's value as
/// stored (with its shard suffix).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
pub struct KeyPlace {
    /// The table's name.
    pub table: String,
    /// The index, `None` for the table itself.
    pub index: Option<String>,
    /// The partition key's value, as stored (a binary's in base64, the attributes of a
    /// multi-attribute key joined by `#`).
    pub partition_key: String,
}

impl KeyPlace {
    /// The bytes its strings own.
    fn heap(&self) -> usize {
        self.table.capacity()
            + self.index.as_ref().map_or(0, String::capacity)
            + self.partition_key.capacity()
    }
}

/// One hot key over the window.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct HotKey {
    /// The key.
    pub place: KeyPlace,
    /// Units consumed on it (or requests throttled on it) in the window, as counted: never less
    /// than the truth.
    pub count: f64,
    /// By how much `count` may exceed the truth.
    pub error: f64,
    /// `count` over everything counted in the window.
    pub share: f64,
}

/// The hot keys of a `Db` over its window ([`Db::hot_keys`](crate::Db::hot_keys)).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct HotKeys {
    /// The window the counts cover.
    pub window: Duration,
    /// Keys by read and write units consumed, the most first.
    pub consumed: Vec<HotKey>,
    /// All the units counted in the window.
    pub units: f64,
    /// Keys by requests throttled, the most first.
    pub throttled: Vec<HotKey>,
    /// All the throttled requests counted in the window.
    pub throttles: u64,
    /// The most units a key not listed in `consumed` may have taken.
    pub unlisted_units_at_most: f64,
    /// Keys held across the periods of the summaries (units, throttles, routing values).
    pub held: usize,
    /// About the bytes they take: each key twice, its counter and the maps' slack.
    pub memory_bytes: usize,
}

impl HotKeys {
    /// Nothing counted: a `Db` that tracks no hot keys.
    pub(crate) fn empty() -> Self {
        HotKeys {
            window: Duration::ZERO,
            consumed: Vec::new(),
            units: 0.0,
            throttled: Vec::new(),
            throttles: 0,
            unlisted_units_at_most: 0.0,
            held: 0,
            memory_bytes: 0,
        }
    }
}

/// What the hottest keys took in each period of a window ([`Tracker::history`]).
#[derive(Debug)]
pub(crate) struct KeyHistory {
    /// When the window's first period started, in milliseconds since the Unix epoch.
    pub start_ms: u64,
    /// The length of a period.
    pub period: Duration,
    /// When each period started, the key, the units it took in it, the requests throttled.
    pub cells: Vec<(u64, KeyPlace, f64, u64)>,
}

/// Units are counted in thousandths, so that half units and transaction doubles stay exact.
const PER_UNIT: f64 = 1_000.0;

/// The two windows of a `Db`, behind one lock held for a few map operations at a time.
pub(crate) struct Tracker {
    tracking: HotKeyTracking,
    started: Instant,
    /// When it started, in milliseconds since the Unix epoch: where a heat map's time begins.
    started_ms: u64,
    windows: Mutex<Windows>,
}

struct Windows {
    consumed: Window<KeyPlace>,
    throttled: Window<KeyPlace>,
    /// Units by partition key and routing value, in the partitions of range-sharded mappings.
    values: Window<(KeyPlace, String)>,
}

/// Its configuration only: a `Db`'s `Debug` does not list thousands of keys.
impl std::fmt::Debug for Tracker {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Tracker").field("tracking", &self.tracking).finish_non_exhaustive()
    }
}

impl Tracker {
    /// A tracker for `tracking`, its periods counted from now.
    pub(crate) fn new(tracking: HotKeyTracking) -> Arc<Self> {
        let windows = Windows {
            consumed: Window::new(tracking.counters, u64::from(tracking.periods)),
            throttled: Window::new(tracking.counters, u64::from(tracking.periods)),
            values: Window::new(tracking.counters, u64::from(tracking.periods)),
        };
        let started_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| u64::try_from(since.as_millis()).unwrap_or(u64::MAX));
        Arc::new(Tracker { tracking, started: Instant::now(), started_ms, windows: Mutex::new(windows) })
    }

    fn period(&self) -> u64 {
        let elapsed = self.started.elapsed().as_nanos();
        u64::try_from(elapsed / self.tracking.period.as_nanos().max(1)).unwrap_or(u64::MAX)
    }

    fn windows(&self) -> std::sync::MutexGuard<'_, Windows> {
        // A panic while counting leaves counts that are still bounds: keep using them.
        self.windows.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Counts `units` consumed on `place`.
    pub(crate) fn consumed(&self, place: &KeyPlace, units: f64) {
        if !(units.is_finite() && units > 0.0) {
            return;
        }
        let period = self.period();
        self.windows().consumed.add(period, place, (units * PER_UNIT).round() as u64);
    }

    /// Counts `units` consumed on the routing value `value` (normalized) of a range-sharded
    /// mapping, in its partition `place`.
    pub(crate) fn value_consumed(&self, place: &KeyPlace, value: &str, units: f64) {
        if !(units.is_finite() && units > 0.0) {
            return;
        }
        let period = self.period();
        let key = (place.clone(), value.to_owned());
        self.windows().values.add(period, &key, (units * PER_UNIT).round() as u64);
    }

    /// The units counted on each routing value held over the window ending now, in the
    /// partitions `wanted` keeps; each an upper bound, as [`HotKey::count`] is.
    pub(crate) fn value_loads(&self, wanted: impl Fn(&KeyPlace) -> bool) -> Vec<(KeyPlace, String, f64)> {
        let period = self.period();
        let windows = self.windows();
        let held = windows.values.counters();
        let top = windows.values.top(period, held);
        top.keys
            .into_iter()
            .filter(|estimate| wanted(&estimate.key.0))
            .map(|estimate| (estimate.key.0, estimate.key.1, estimate.count as f64 / PER_UNIT))
            .collect()
    }

    /// Counts a request throttled on `place`.
    pub(crate) fn throttled(&self, place: &KeyPlace) {
        let period = self.period();
        self.windows().throttled.add(period, place, 1);
    }

    /// The `n` keys that took the most units over the window ending now and the `n` throttled
    /// most, with what each took in each period of the window.
    pub(crate) fn history(&self, n: usize) -> KeyHistory {
        let period = self.period();
        let period_ms = u64::try_from(self.tracking.period.as_millis()).unwrap_or(u64::MAX).max(1);
        let windows = self.windows();
        let mut keys: Vec<KeyPlace> =
            windows.consumed.top(period, n).keys.into_iter().map(|estimate| estimate.key).collect();
        let throttled: Vec<KeyPlace> =
            windows.throttled.top(period, n).keys.into_iter().map(|estimate| estimate.key).collect();
        let more: Vec<KeyPlace> = throttled.into_iter().filter(|key| !keys.contains(key)).collect();
        keys.extend(more);
        let at = |period: u64| self.started_ms.saturating_add(period.saturating_mul(period_ms));
        let mut cells = Vec::new();
        for (at_period, counts) in windows.consumed.by_period(period, &keys) {
            let counted = keys.iter().zip(counts).filter(|(_, count)| *count > 0);
            cells
                .extend(counted.map(|(key, count)| (at(at_period), key.clone(), count as f64 / PER_UNIT, 0)));
        }
        for (at_period, counts) in windows.throttled.by_period(period, &keys) {
            let counted = keys.iter().zip(counts).filter(|(_, count)| *count > 0);
            cells.extend(counted.map(|(key, count)| (at(at_period), key.clone(), 0.0, count)));
        }
        let start = period.saturating_sub(u64::from(self.tracking.periods) - 1);
        KeyHistory { start_ms: at(start), period: self.tracking.period, cells }
    }

    /// The `n` hottest keys both ways over the window ending now.
    pub(crate) fn top(&self, n: usize) -> HotKeys {
        let period = self.period();
        let (consumed, throttled, held, memory_bytes) = {
            let windows = self.windows();
            let held = windows.consumed.counters() + windows.throttled.counters() + windows.values.counters();
            let valued = |(place, value): &(KeyPlace, String)| place.heap() + value.capacity();
            let memory = windows.consumed.bytes(KeyPlace::heap)
                + windows.throttled.bytes(KeyPlace::heap)
                + windows.values.bytes(valued);
            (windows.consumed.top(period, n), windows.throttled.top(period, n), held, memory)
        };
        let units = |count: u64| count as f64 / PER_UNIT;
        let keys = |top: window::Top<KeyPlace>, scale: &dyn Fn(u64) -> f64| {
            let total = top.total.max(1) as f64;
            top.keys
                .into_iter()
                .map(|estimate| HotKey {
                    share: estimate.count as f64 / total,
                    count: scale(estimate.count),
                    error: scale(estimate.error),
                    place: estimate.key,
                })
                .collect()
        };
        HotKeys {
            window: self.tracking.window(),
            units: units(consumed.total),
            unlisted_units_at_most: units(consumed.unlisted_at_most),
            throttles: throttled.total,
            consumed: keys(consumed, &units),
            throttled: keys(throttled, &|count| count as f64),
            held,
            memory_bytes,
        }
    }
}
