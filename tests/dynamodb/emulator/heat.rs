//! Heat maps from the emulator's counters over a run and from a `Db`'s hot-key tracking.

use super::model::{client, emulator, Access};
use crate::unique;
use dynashard::emulator::PartitionLimits;
use dynashard::{Db, Error};
use std::time::Duration;

#[tokio::test]
async fn a_recording_holds_every_unit_the_emulator_counted_and_the_key_over_its_limit() -> Result<(), Error> {
    let emulator = emulator(PartitionLimits::dynamodb().write_units(20.0).burst(Duration::ZERO)).await;
    let db = Db::new(client(&emulator));
    let recording = emulator.record_heat(Duration::from_millis(100));
    let path = unique("/heated");
    let mut throttled = 0;
    for n in 0..60u64 {
        match db.put(&Access::new(unique("h"), &path, &unique("u"), n, 900)).await {
            Ok(()) => {}
            Err(error) if error.is_throttled() => throttled += 1,
            Err(error) => return Err(error),
        }
    }
    let map = recording.finish();
    let usage = emulator.usage();
    let drawn: f64 = map.rows.iter().map(|row| row.total().write_units).sum();
    let counted: f64 = usage.partitions().map(|(_, used)| used.write_units).sum();
    assert!((drawn - counted).abs() < 1e-9, "every unit counted is in a cell: {drawn} of {counted}");
    let throttles: u64 = map.rows.iter().map(|row| row.total().throttles).sum();
    assert_eq!(throttles, usage.partitions().map(|(_, used)| used.throttled()).sum::<u64>());
    assert!(throttled > 0, "the file's partition was throttled");
    let over = map.over_limit();
    assert_eq!(over[0].place.partition_key, format!("file#{path}"), "{over:?}");
    assert_eq!(over[0].place.index.as_deref(), Some("ByFile"));
    assert!(map.svg().contains(&format!("file#{path}")));
    Ok(())
}

#[tokio::test]
async fn a_db_draws_its_hottest_keys_a_slice_a_period() -> Result<(), Error> {
    let emulator = emulator(PartitionLimits::dynamodb()).await;
    let db = Db::new(client(&emulator));
    let path = unique("/drawn");
    for n in 0..12u64 {
        db.put(&Access::new(unique("d"), &path, &unique("u"), n, 1_500)).await?;
    }
    let map = db.heat_map(1);
    let hot = db.hot_keys(1);
    assert_eq!(map.rows.len(), 1, "the one hottest key");
    assert_eq!(map.rows[0].place, hot.consumed[0].place);
    assert_eq!(map.rows[0].total().write_units, hot.consumed[0].count, "its units, period by period");
    assert_eq!(map.slice_ms, 10_000, "a slice a period of the window");
    let untracked = Db::new(client(&emulator)).without_hot_key_tracking();
    assert!(untracked.heat_map(5).rows.is_empty());
    Ok(())
}
