//! A `Db`'s running totals and hot keys against what the emulator charged and throttled itself.

use super::model::{client, emulator, Access};
use crate::unique;
use dynashard::consumption::{HotKey, KeyPlace};
use dynashard::{Db, Error};
use dynashard_local::emulator::PartitionLimits;
use futures::TryStreamExt;

fn place(index: Option<&str>, partition_key: String) -> KeyPlace {
    KeyPlace { table: "EmulatorTests".into(), index: index.map(str::to_owned), partition_key }
}

fn find<'a>(keys: &'a [HotKey], place: &KeyPlace) -> &'a HotKey {
    keys.iter().find(|key| key.place == *place).unwrap_or_else(|| panic!("{place:?} among {keys:#?}"))
}

#[tokio::test]
async fn units_are_counted_on_the_keys_the_emulator_charged() -> Result<(), Error> {
    let emulator = emulator(PartitionLimits::dynamodb()).await;
    let db = Db::new(client(&emulator));
    let (path, user) = (unique("/popular"), unique("fan"));
    // Thirty accesses of one file by one user, of 1 to 3 KB; one each of ten other files.
    for n in 0..30u64 {
        db.put(&Access::new(unique("a"), &path, &user, n, 900 * (1 + n as usize % 3))).await?;
    }
    for n in 0..10 {
        db.put(&Access::new(unique("a"), &unique("/quiet"), &unique("u"), n, 100)).await?;
    }
    // A read of the file's partition, and a get and an update of one item.
    let listed: Vec<Access> = db.stream(Access::query_by_file(&path)).try_collect().await?;
    assert_eq!(listed.len(), 30);
    let first = &listed[0];
    db.get(Access::key(&first.id)?).await?;
    db.delete(Access::key(&listed[1].id)?).await?;

    let hot = db.hot_keys(3);
    let usage = emulator.usage();
    let file = format!("file#{path}");
    let charged = usage.partition("EmulatorTests", Some("ByFile"), &file);
    let by_user = usage.partition("EmulatorTests", Some("ByUser"), &format!("user#{user}"));
    // The file's and the user's index partitions took the most, as much as the emulator says.
    let counted = find(&hot.consumed, &place(Some("ByFile"), file.clone()));
    assert_eq!(counted.count, charged.write_units + charged.read_units, "{hot:#?}");
    assert_eq!(counted.error, 0.0, "fewer keys than counters: exact");
    assert_eq!(
        find(&hot.consumed, &place(Some("ByUser"), format!("user#{user}"))).count,
        by_user.write_units
    );
    assert_eq!(hot.consumed.len(), 3);
    let total: f64 = usage.partitions().map(|(_, used)| used.write_units + used.read_units).sum();
    assert_eq!(hot.units, total, "every unit charged is counted once");
    // The get and the delete counted on the item's own key.
    let own = usage.partition("EmulatorTests", None, &format!("access#{}", first.id));
    let all = db.hot_keys(usize::MAX);
    assert_eq!(
        find(&all.consumed, &place(None, format!("access#{}", first.id))).count,
        own.write_units + own.read_units
    );
    assert!(
        hot.held > 0 && hot.memory_bytes > hot.held * 200,
        "{} keys, {} bytes",
        hot.held,
        hot.memory_bytes
    );
    assert!(hot.throttled.is_empty());
    // The running totals: every unit the emulator charged, on the table and each index.
    let consumed = db.consumed();
    for index in [None, Some("ByFile"), Some("ByUser")] {
        let total = consumed.iter().find(|total| total.index.as_deref() == index).expect("a total");
        let charged = usage.total("EmulatorTests", index);
        assert_eq!((total.table.as_str(), total.entity), ("EmulatorTests", "Access"));
        assert_eq!(
            (total.read_units, total.write_units),
            (charged.read_units, charged.write_units),
            "{index:?}"
        );
    }
    assert_eq!(consumed.len(), 3, "{consumed:#?}");
    Ok(())
}

#[tokio::test]
async fn throttles_are_counted_on_the_key_their_reasons_name() -> Result<(), Error> {
    let emulator = emulator(PartitionLimits::dynamodb().write_units(10.0)).await;
    let db = Db::new(client(&emulator));
    let path = unique("/stampede");
    let mut throttled = 0u64;
    for n in 0..40 {
        match db.put(&Access::new(unique("a"), &path, &unique("u"), n, 100)).await {
            Ok(()) => {}
            Err(error) if error.is_throttled() => throttled += 1,
            Err(error) => return Err(error),
        }
    }
    assert!(throttled >= 10, "{throttled}");
    let hot = db.hot_keys(5);
    let [key] = hot.throttled.as_slice() else { panic!("one key throttled: {hot:#?}") };
    assert_eq!(key.place, place(Some("ByFile"), format!("file#{path}")));
    assert_eq!(key.count, throttled as f64);
    assert_eq!(
        throttled,
        emulator.usage().partition("EmulatorTests", Some("ByFile"), &format!("file#{path}")).throttled_writes
    );
    assert_eq!((hot.throttles, key.share), (throttled, 1.0));
    Ok(())
}

#[tokio::test]
async fn a_db_without_tracking_counts_nothing() -> Result<(), Error> {
    let emulator = emulator(PartitionLimits::dynamodb()).await;
    let db = Db::new(client(&emulator)).without_hot_key_tracking();
    db.put(&Access::new(unique("a"), &unique("/untracked"), "u", 1, 10)).await?;
    let hot = db.hot_keys(10);
    assert!(hot.consumed.is_empty() && hot.units == 0.0 && hot.held == 0);
    // Tracking again starts from nothing.
    let db = db.with_hot_key_tracking(dynashard::HotKeyTracking::default());
    db.put(&Access::new(unique("a"), &unique("/tracked"), "u", 1, 10)).await?;
    assert_eq!(db.hot_keys(10).consumed.len(), 3, "the table's key and both indexes'");
    Ok(())
}
