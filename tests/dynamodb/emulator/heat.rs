//! Heat maps from the emulator's counters over a run and from a `Db`'s hot-key tracking.

use super::model::{client, emulator, Access};
use crate::unique;
use dynashard::{Db, Error};
use dynashard_local::emulator::PartitionLimits;
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

#[tokio::test]
async fn a_range_shard_over_its_limit_is_cut_where_the_writes_on_its_values_balance() -> Result<(), Error> {
    use crate::sharded_album::{ShardedAlbum, ShardedMusic};
    use dynashard::shard::Layout;
    // One write a second per partition (with room for a long burst, so that none is
    // throttled): a shard taking two writes in any second needs three pieces or more, however
    // slowly the machine sends them.
    let emulator =
        emulator(PartitionLimits::dynamodb().write_units(1.0).burst(Duration::from_secs(600))).await;
    let setup = Db::new(dynashard::client_for_endpoint(emulator.endpoint()));
    setup.create_table::<ShardedMusic>().await?;
    let db = Db::new(client(&emulator));
    let recording = emulator.record_heat(Duration::from_secs(1));
    // Shard 8 of the 21 (`i live` to `kannaval`) takes every write: four on `jade` for each one
    // on `jolt` and two on `juno`.
    let pattern = ["jade", "jolt", "jade", "juno", "jade", "juno", "jade"];
    for n in 0..70 {
        let title = pattern[n % pattern.len()].to_owned();
        db.put(&ShardedAlbum { artist: unique("split"), title, year: 2000 }).await?;
    }
    let map = recording.finish();
    let hot = map.over_limit();
    let shard = hot.iter().find(|over| over.place.partition_key == "albums#8").expect("shard 8 over");
    assert!(shard.peak >= 2.0, "{shard:?}");

    let split = db.suggest_split::<ShardedAlbum>(ShardedMusic::BY_TITLE_RANGE, &map)?.expect("a split");
    let old = dynashard::range_shards::<ShardedAlbum>(ShardedMusic::BY_TITLE_RANGE)?.current();
    let mut expected: Vec<String> = old.values().to_vec();
    expected.splice(9..9, ["jo".to_owned(), "ju".to_owned()]);
    // Three pieces or more, of a load four sevenths on `jade`: the first cut after it, the
    // second before `juno`.
    assert_eq!(split.boundaries.values(), expected.as_slice());
    let cut = split.splits.iter().find(|cut| cut.partition_key == "albums#8").expect("shard 8 split");
    assert_eq!((cut.shard, cut.cuts.as_slice()), (8, ["jo".to_owned(), "ju".to_owned()].as_slice()));
    let layout = Layout::range(&split.boundaries);
    assert_eq!(
        (layout.route("jade"), layout.route("jolt"), layout.route("juno")),
        (Some(8), Some(9), Some(10))
    );

    // Batch writes count their items' shares on their values too.
    let batcher = Db::new(client(&emulator));
    let albums: Vec<ShardedAlbum> = (0..70)
        .map(|n| ShardedAlbum {
            artist: unique("batch"),
            title: pattern[n % pattern.len()].to_owned(),
            year: 2001,
        })
        .collect();
    batcher.batch_put(&albums).await?;
    let batched =
        batcher.suggest_split::<ShardedAlbum>(ShardedMusic::BY_TITLE_RANGE, &map)?.expect("a split");
    assert_eq!(batched.boundaries, split.boundaries);

    // Only a range-sharded mapping can be split; a Db that saw none of the writes has nothing to
    // cut by.
    let hashed = db.suggest_split::<ShardedAlbum>(ShardedMusic::BY_TITLE_HASH, &map);
    assert!(matches!(hashed, Err(Error::NotRangeSharded { .. })), "{hashed:?}");
    let unseen =
        Db::new(client(&emulator)).suggest_split::<ShardedAlbum>(ShardedMusic::BY_TITLE_RANGE, &map)?;
    assert!(unseen.is_none(), "{unseen:?}");
    Ok(())
}
