//! The heat map: partition keys against time, each cell the units consumed and the requests
//! throttled on one key in one slice of time.

use crate::consumption::{KeyHistory, KeyPlace};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::time::Duration;

/// What one partition key took in one slice of time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HeatCell {
    /// Read units consumed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub read_units: f64,
    /// Write units consumed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub write_units: f64,
    /// Requests throttled.
    #[serde(default, skip_serializing_if = "is_none")]
    pub throttles: u64,
}

fn is_zero(units: &f64) -> bool {
    *units == 0.0
}

fn is_none(count: &u64) -> bool {
    *count == 0
}

impl HeatCell {
    fn add(&mut self, other: &HeatCell) {
        self.read_units += finite(other.read_units);
        self.write_units += finite(other.write_units);
        self.throttles = self.throttles.saturating_add(other.throttles);
    }
}

/// What a count that is not one (NaN, infinite, negative) adds: nothing.
fn finite(units: f64) -> f64 {
    if units.is_finite() && units > 0.0 {
        units
    } else {
        0.0
    }
}

/// What one partition serves a second: DynamoDB's 3,000 read and 1,000 write units by default.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartitionRate {
    /// Read units a second.
    pub read_units: f64,
    /// Write units a second.
    pub write_units: f64,
}

impl Default for PartitionRate {
    fn default() -> Self {
        PartitionRate { read_units: 3_000.0, write_units: 1_000.0 }
    }
}

/// One partition key's row of cells.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeatRow {
    /// The table or index, and the partition key as stored (shard suffix and all).
    pub place: KeyPlace,
    /// One cell a slice, the first slice first.
    pub cells: Vec<HeatCell>,
}

impl HeatRow {
    /// Everything the key took over the map's time.
    pub fn total(&self) -> HeatCell {
        let mut total = HeatCell::default();
        self.cells.iter().for_each(|cell| total.add(cell));
        total
    }
}

/// Partition keys against time ([`HeatMapBuilder`] makes one), rendered with
/// [`HeatMap::svg`], [`HeatMap::html`] or [`HeatMap::terminal`]; a derived serde record, so that
/// one recorded now renders later (`dynashard heat map.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeatMap {
    /// When the first slice starts, in milliseconds since the Unix epoch.
    pub start_ms: u64,
    /// The length of a slice, in milliseconds (at least one).
    pub slice_ms: u64,
    /// What a partition serves a second, against which a cell's heat is measured.
    pub rate: PartitionRate,
    /// One row a partition key, by table, index and key (the shards of one key together, in
    /// shard order).
    pub rows: Vec<HeatRow>,
}

/// A key over its partition's limit in some slices.
#[derive(Clone, Debug, PartialEq)]
pub struct OverLimit {
    /// The key.
    pub place: KeyPlace,
    /// The slices in which it took more than its partition serves, or was throttled.
    pub slices: Vec<usize>,
    /// The most it took in a slice, as a share of what its partition serves (reads or writes,
    /// whichever is the larger share).
    pub peak: f64,
}

impl HeatMap {
    /// The number of slices.
    pub fn slices(&self) -> usize {
        self.rows.iter().map(|row| row.cells.len()).max().unwrap_or(0)
    }

    /// How hot a cell is: what it took as a share of what a partition serves in a slice (1.0:
    /// the limit), reads or writes, whichever is the larger.
    pub fn heat(&self, cell: &HeatCell) -> f64 {
        let seconds = self.slice_ms.max(1) as f64 / 1_000.0;
        let share = |units: f64, rate: f64| if rate > 0.0 { finite(units) / (rate * seconds) } else { 0.0 };
        share(cell.read_units, self.rate.read_units).max(share(cell.write_units, self.rate.write_units))
    }

    /// The rows of the `n` hottest keys, in key order: those throttled or over their limit
    /// first, then those that took the most over the whole time.
    pub fn hottest_rows(&self, n: usize) -> Vec<&HeatRow> {
        let mut rows: Vec<(usize, bool, f64)> = self
            .rows
            .iter()
            .enumerate()
            .map(|(index, row)| {
                let over = row.cells.iter().any(|cell| cell.throttles > 0 || self.heat(cell) > 1.0);
                (index, over, row.cells.iter().map(|cell| self.heat(cell)).sum())
            })
            .collect();
        rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| b.2.total_cmp(&a.2)).then_with(|| a.0.cmp(&b.0)));
        rows.truncate(n);
        rows.sort_by_key(|(index, ..)| *index);
        rows.into_iter().map(|(index, ..)| &self.rows[index]).collect()
    }

    /// The keys that took more than their partition serves, or were throttled, in some slice:
    /// the hottest first.
    pub fn over_limit(&self) -> Vec<OverLimit> {
        let mut over: Vec<OverLimit> = self
            .rows
            .iter()
            .filter_map(|row| {
                let slices: Vec<usize> = (0..row.cells.len())
                    .filter(|&slice| row.cells[slice].throttles > 0 || self.heat(&row.cells[slice]) > 1.0)
                    .collect();
                let peak = row.cells.iter().map(|cell| self.heat(cell)).fold(0.0, f64::max);
                (!slices.is_empty()).then(|| OverLimit { place: row.place.clone(), slices, peak })
            })
            .collect();
        over.sort_by(|a, b| b.peak.total_cmp(&a.peak).then_with(|| a.place.cmp(&b.place)));
        over
    }
}

/// The most slices a built map has: 10,000 (a year of hourly slices).
pub const MAX_SLICES: usize = 10_000;

/// Collects what keys took, when, into a [`HeatMap`].
///
/// ```
/// use dynashard::consumption::KeyPlace;
/// use dynashard::heat::{HeatCell, HeatMapBuilder};
/// use std::time::Duration;
///
/// let mut builder = HeatMapBuilder::new(Duration::from_secs(1)).starting_at(0);
/// let place = KeyPlace { table: "Music".into(), index: None, partition_key: "artist#1".into() };
/// builder.add(1_500, place, HeatCell { write_units: 1_200.0, ..HeatCell::default() });
/// let map = builder.build();
/// assert_eq!(map.slices(), 2);
/// assert_eq!(map.over_limit()[0].slices, [1]); // 1,200 units in a second: over 1,000
/// ```
#[derive(Clone, Debug)]
pub struct HeatMapBuilder {
    slice_ms: u64,
    start_ms: Option<u64>,
    rate: PartitionRate,
    cells: BTreeMap<KeyPlace, BTreeMap<u64, HeatCell>>,
}

impl HeatMapBuilder {
    /// A map of slices of `slice` (at least a millisecond), at DynamoDB's partition rates.
    pub fn new(slice: Duration) -> Self {
        let slice_ms = u64::try_from(slice.as_millis()).unwrap_or(u64::MAX).max(1);
        HeatMapBuilder { slice_ms, start_ms: None, rate: PartitionRate::default(), cells: BTreeMap::new() }
    }

    /// The first slice starts at `start_ms` (milliseconds since the Unix epoch); by default, at
    /// the first thing added.
    pub fn starting_at(mut self, start_ms: u64) -> Self {
        self.start_ms = Some(start_ms);
        self
    }

    /// What a partition serves a second (DynamoDB's by default; the emulator's when it limits
    /// otherwise).
    pub fn rate(mut self, rate: PartitionRate) -> Self {
        self.rate = rate;
        self
    }

    /// Adds what `place` took at `at_ms` (milliseconds since the Unix epoch; before the start,
    /// it counts in the first slice).
    pub fn add(&mut self, at_ms: u64, place: KeyPlace, cell: HeatCell) {
        let start = *self.start_ms.get_or_insert(at_ms);
        let slice = at_ms.saturating_sub(start) / self.slice_ms;
        self.cells.entry(place).or_default().entry(slice).or_default().add(&cell);
    }

    /// The map, its rows in key order (the shards of one key in shard order) and as many
    /// slices as the latest thing added needs: at most [`MAX_SLICES`], a longer time in
    /// longer slices (each a whole number of the builder's).
    pub fn build(&self) -> HeatMap {
        let span = self
            .cells
            .values()
            .filter_map(|cells| cells.keys().next_back())
            .max()
            .map_or(0, |last| last.saturating_add(1));
        let merged = span.div_ceil(MAX_SLICES as u64).max(1);
        let slices = usize::try_from(span.div_ceil(merged)).unwrap_or(MAX_SLICES);
        let mut rows: Vec<HeatRow> = self
            .cells
            .iter()
            .map(|(place, cells)| {
                let mut row = vec![HeatCell::default(); slices];
                for (slice, cell) in cells {
                    if let Some(target) =
                        usize::try_from(slice / merged).ok().and_then(|slice| row.get_mut(slice))
                    {
                        target.add(cell);
                    }
                }
                HeatRow { place: place.clone(), cells: row }
            })
            .collect();
        rows.sort_by(|a, b| key_order(&a.place, &b.place));
        let slice_ms = self.slice_ms.saturating_mul(merged);
        HeatMap { start_ms: self.start_ms.unwrap_or(0), slice_ms, rate: self.rate, rows }
    }
}

impl HeatMap {
    /// A `Db`'s hottest keys over its tracking window: a slice a period. Reads and writes are
    /// counted together there, so they are measured against the write rate.
    pub(crate) fn of_history(history: KeyHistory) -> HeatMap {
        let mut builder = HeatMapBuilder::new(history.period).starting_at(history.start_ms);
        for (at, place, units, throttles) in history.cells {
            builder.add(at, place, HeatCell { write_units: units, throttles, ..HeatCell::default() });
        }
        builder.build()
    }
}

/// Table, index (the table first), then the key with runs of digits compared as numbers, so
/// that `album#2` comes before `album#10`.
fn key_order(a: &KeyPlace, b: &KeyPlace) -> Ordering {
    (&a.table, &a.index)
        .cmp(&(&b.table, &b.index))
        .then_with(|| natural(&a.partition_key, &b.partition_key))
        .then_with(|| a.partition_key.cmp(&b.partition_key))
}

/// Compares text with its runs of ASCII digits as numbers.
fn natural(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    loop {
        match (a.first(), b.first()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let (x_digits, y_digits) = (digits(a), digits(b));
                let (x_run, y_run) = (trim_zeros(&a[..x_digits]), trim_zeros(&b[..y_digits]));
                let order = x_run.len().cmp(&y_run.len()).then_with(|| x_run.cmp(y_run));
                if order != Ordering::Equal {
                    return order;
                }
                (a, b) = (&a[x_digits..], &b[y_digits..]);
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(y);
                }
                (a, b) = (&a[1..], &b[1..]);
            }
        }
    }
}

fn digits(text: &[u8]) -> usize {
    text.iter().take_while(|byte| byte.is_ascii_digit()).count()
}

fn trim_zeros(run: &[u8]) -> &[u8] {
    let zeros = run.iter().take_while(|byte| **byte == b'0').count();
    &run[zeros.min(run.len().saturating_sub(1))..]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(key: &str) -> KeyPlace {
        KeyPlace { table: "T".into(), index: Some("I".into()), partition_key: key.into() }
    }

    #[test]
    fn shards_of_a_key_are_rows_in_shard_order() {
        let mut builder = HeatMapBuilder::new(Duration::from_secs(1)).starting_at(10_000);
        for key in ["album#10", "album#2", "album#1", "artist#007", "artist#7"] {
            builder.add(10_000, place(key), HeatCell { read_units: 1.0, ..HeatCell::default() });
        }
        let keys: Vec<String> = builder.build().rows.into_iter().map(|row| row.place.partition_key).collect();
        assert_eq!(keys, ["album#1", "album#2", "album#10", "artist#007", "artist#7"]);
    }

    #[test]
    fn cells_add_up_in_their_slices_and_what_is_not_a_count_adds_nothing() {
        let mut builder = HeatMapBuilder::new(Duration::from_millis(500)).starting_at(1_000);
        let hot = place("hot");
        builder.add(900, hot.clone(), HeatCell { write_units: 200.0, throttles: 1, ..HeatCell::default() });
        builder.add(1_499, hot.clone(), HeatCell { write_units: 400.0, ..HeatCell::default() });
        builder.add(2_600, hot.clone(), HeatCell { write_units: f64::NAN, read_units: -3.0, throttles: 0 });
        builder.add(2_700, hot, HeatCell { read_units: f64::INFINITY, write_units: 1.0, throttles: 0 });
        let map = builder.build();
        assert_eq!(map.slices(), 4);
        let cells = &map.rows[0].cells;
        assert_eq!(cells[0], HeatCell { read_units: 0.0, write_units: 600.0, throttles: 1 });
        assert_eq!(cells[3], HeatCell { read_units: 0.0, write_units: 1.0, throttles: 0 });
        assert_eq!(map.heat(&cells[0]), 1.2, "600 units in half a second: 1.2 times 1,000 a second");
        let over = map.over_limit();
        assert_eq!((over[0].slices.as_slice(), over[0].peak), ([0].as_slice(), 1.2));
    }

    #[test]
    fn a_long_time_is_drawn_in_longer_slices() {
        let mut builder = HeatMapBuilder::new(Duration::from_millis(1)).starting_at(0);
        builder.add(0, place("k"), HeatCell { write_units: 1.0, ..HeatCell::default() });
        builder.add(1, place("k"), HeatCell { write_units: 2.0, ..HeatCell::default() });
        builder.add(u64::MAX, place("k"), HeatCell { write_units: 4.0, ..HeatCell::default() });
        let map = builder.build();
        assert!(map.slices() <= MAX_SLICES, "{}", map.slices());
        assert!(map.slice_ms > 1_000_000_000_000_000, "slices of {} ms", map.slice_ms);
        let cells = &map.rows[0].cells;
        assert_eq!((cells[0].write_units, cells[cells.len() - 1].write_units), (3.0, 4.0));
    }

    #[test]
    fn an_empty_builder_builds_an_empty_map() {
        let map = HeatMapBuilder::new(Duration::ZERO).build();
        assert_eq!((map.slices(), map.slice_ms, map.rows.len()), (0, 1, 0));
        assert!(map.over_limit().is_empty());
    }
}
