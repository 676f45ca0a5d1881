//! A heat map of what an emulator counts over a run: its counters sampled a slice at a time.

use super::state::Shared;
use super::usage::Usage;
use super::Emulator;
use dynashard::consumption::KeyPlace;
use dynashard::heat::{HeatCell, HeatMap, HeatMapBuilder};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A recording of an emulator's counters into a heat map, on a thread of its own
/// ([`Emulator::record_heat`]); [`HeatRecording::finish`] stops it.
#[derive(Debug)]
pub struct HeatRecording {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<HeatMapBuilder>>,
    fallback: HeatMapBuilder,
}

impl Emulator {
    /// Starts recording what every partition takes, a cell every `slice` (at least a
    /// millisecond), against the partition rates of the emulator's limits.
    ///
    /// The cells are as precise as the thread's clock: what a slice holds was counted between
    /// two samples. A picture, not a meter: [`Emulator::usage`] counts exactly.
    pub fn record_heat(&self, slice: Duration) -> HeatRecording {
        let slice = slice.max(Duration::from_millis(1));
        let builder = HeatMapBuilder::new(slice).starting_at(now_ms()).rate(self.shared.rate());
        let stop = Arc::new(AtomicBool::new(false));
        let (shared, stopping, fallback) = (Arc::clone(&self.shared), Arc::clone(&stop), builder.clone());
        let thread = std::thread::Builder::new()
            .name("dynashard-heat".into())
            .spawn(move || sample(&shared, builder, slice, &stopping))
            .ok();
        HeatRecording { stop, thread, fallback }
    }
}

impl HeatRecording {
    /// Takes a last sample, stops, and returns the map.
    pub fn finish(mut self) -> HeatMap {
        self.stop.store(true, Ordering::Release);
        let builder = self.thread.take().and_then(|thread| thread.join().ok());
        builder.unwrap_or_else(|| self.fallback.clone()).build()
    }
}

impl Drop for HeatRecording {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
    }
}

/// Samples `shared` every `slice` until `stop`, then once more.
fn sample(
    shared: &Shared,
    mut builder: HeatMapBuilder,
    slice: Duration,
    stop: &AtomicBool,
) -> HeatMapBuilder {
    let (mut previous, mut since) = (shared.usage(), now_ms());
    let step = slice.min(Duration::from_millis(20));
    loop {
        let due = std::time::Instant::now() + slice;
        while std::time::Instant::now() < due && !stop.load(Ordering::Acquire) {
            std::thread::sleep(step.min(due.saturating_duration_since(std::time::Instant::now())));
        }
        let now = shared.usage();
        add_usage(&mut builder, since, &now.since(&previous));
        (previous, since) = (now, now_ms());
        if stop.load(Ordering::Acquire) {
            return builder;
        }
    }
}

/// Adds what `usage` counted on each partition, at `at_ms`.
pub(crate) fn add_usage(builder: &mut HeatMapBuilder, at_ms: u64, usage: &Usage) {
    for (id, used) in usage.partitions() {
        let place =
            KeyPlace { table: id.table.clone(), index: id.index.clone(), partition_key: id.key.clone() };
        let cell = HeatCell {
            read_units: used.read_units,
            write_units: used.write_units,
            throttles: used.throttled(),
        };
        builder.add(at_ms, place, cell);
    }
}

fn now_ms() -> u64 {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}
