//! What each operation measures it consumed, against what the emulator charged for it.

use super::model::{client, emulator, Access};
use crate::unique;
use dynashard::consumption::{Measure, Measured};
use dynashard::{Db, Error};
use dynashard_local::emulator::{Emulator, PartitionLimits};
use futures::TryStreamExt;

/// The read and write units the emulator charged so far, on the table and both its indexes.
fn charged(emulator: &Emulator) -> (f64, f64) {
    let usage = emulator.usage();
    [None, Some("ByFile"), Some("ByUser")].iter().fold((0.0, 0.0), |(read, write), index| {
        let total = usage.total("EmulatorTests", *index);
        (read + total.read_units, write + total.write_units)
    })
}

/// Checks that `measured` is what the emulator charged since `before`, all of it on `Access`.
fn check<T>(emulator: &Emulator, before: &mut (f64, f64), name: &str, measured: &Measured<Result<T, Error>>) {
    if let Err(error) = &measured.output {
        panic!("{name}: {error}");
    }
    let now = charged(emulator);
    let spent = (now.0 - before.0, now.1 - before.1);
    assert!(spent.0 + spent.1 > 0.0, "{name}: the emulator charged nothing");
    let near = |a: f64, b: f64| (a - b).abs() < 1e-9;
    let units = (measured.read_units(), measured.write_units());
    assert!(
        near(units.0, spent.0) && near(units.1, spent.1),
        "{name}: {units:?} against {spent:?}: {:#?}",
        measured.consumed
    );
    assert!(
        measured.consumed.iter().all(|consumed| consumed.entity == "Access"),
        "{name}: {:#?}",
        measured.consumed
    );
    *before = now;
}

#[tokio::test]
async fn every_operation_measures_what_the_emulator_charged_it() -> Result<(), Error> {
    let emulator = emulator(PartitionLimits::dynamodb()).await;
    let db = Db::new(client(&emulator));
    let (path, user) = (unique("/measured"), unique("reader"));
    let accesses: Vec<Access> =
        (0..30).map(|n| Access::new(unique("m"), &path, &user, n, 300 * (1 + n as usize % 8))).collect();
    let key = |n: usize| Access::key(&accesses[n].id);
    let mut before = charged(&emulator);

    let put = db.put(&accesses[0]).measured().await;
    check(&emulator, &mut before, "put", &put);
    let get = db.get(key(0)?).consistent().measured().await;
    check(&emulator, &mut before, "get", &get);
    let update = db.update(key(0)?).set(Access::fields().note, "n".repeat(5000)).measured().await;
    check(&emulator, &mut before, "update", &update);
    let delete = db.delete(key(0)?).measured().await;
    check(&emulator, &mut before, "delete", &delete);
    let batch = db.batch_put(&accesses).measured().await;
    check(&emulator, &mut before, "batch put", &batch);
    let keys: Vec<_> = (0..30).map(key).collect::<Result<_, _>>()?;
    let batch_get = db.batch_get(keys).measured().await;
    assert_eq!(batch_get.output.as_ref().map(Vec::len).ok(), Some(30));
    check(&emulator, &mut before, "batch get", &batch_get);
    let transaction = db
        .transaction()
        .put(&Access::new(unique("m"), &path, &user, 99, 2500))
        .update(db.update(key(1)?).set(Access::fields().note, "short".to_owned()))
        .delete(key(2)?)
        .measured()
        .await;
    // What the backend reported of the transaction short of what the emulator charged.
    let mut unreported = (0.0, 0.0);
    if crate::backend_has("a transaction's index writes reported at twice their units") {
        check(&emulator, &mut before, "transaction", &transaction);
    } else {
        let now = charged(&emulator);
        unreported =
            (now.0 - before.0 - transaction.read_units(), now.1 - before.1 - transaction.write_units());
        before = now;
    }
    let transact_get = db.transact_get().get(key(3)?).get(key(4)?).measured().await;
    check(&emulator, &mut before, "transact get", &transact_get);
    let query =
        async { db.stream(Access::query_by_file(&path)).try_collect::<Vec<_>>().await }.measured().await;
    assert_eq!(query.output.as_ref().map(Vec::len).ok(), Some(30));
    check(&emulator, &mut before, "query", &query);
    let count = db.count(&Access::query_by_user(&user)).measured().await;
    check(&emulator, &mut before, "count", &count);
    let scan = async { db.stream(Access::scan().segments(3)).try_collect::<Vec<_>>().await }.measured().await;
    check(&emulator, &mut before, "scan", &scan);

    // The `Db`'s totals hold every unit charged, on the table and each index.
    let consumed = db.consumed();
    let totals = consumed
        .iter()
        .fold((0.0, 0.0), |(read, write), total| (read + total.read_units, write + total.write_units));
    let all = charged(&emulator);
    let all = (all.0 - unreported.0, all.1 - unreported.1);
    assert!((totals.0 - all.0).abs() < 1e-9 && (totals.1 - all.1).abs() < 1e-9, "{all:?}: {consumed:#?}");
    Ok(())
}

#[tokio::test]
async fn a_batch_shares_its_units_among_the_keys_it_wrote() -> Result<(), Error> {
    let emulator = emulator(PartitionLimits::dynamodb()).await;
    let db = Db::new(client(&emulator));
    let (path, user) = (unique("/batched"), unique("importer"));
    let accesses: Vec<Access> =
        (0..40).map(|n| Access::new(unique("b"), &path, &user, n, 200 * (1 + n as usize % 10))).collect();
    db.batch_put(&accesses).await?;
    let usage = emulator.usage();
    let hot = db.hot_keys(usize::MAX);
    let counted = |index: Option<&str>, key: String| {
        let place = dynashard::consumption::KeyPlace {
            table: "EmulatorTests".into(),
            index: index.map(Into::into),
            partition_key: key,
        };
        hot.consumed.iter().find(|hot| hot.place == place).map_or(0.0, |hot| hot.count)
    };
    for (index, key) in [(Some("ByFile"), format!("file#{path}")), (Some("ByUser"), format!("user#{user}"))] {
        let charged = usage.partition("EmulatorTests", index, &key).write_units;
        assert!((counted(index, key.clone()) - charged).abs() < 1e-9, "{key}: {charged} charged, {hot:#?}");
    }
    // Each item's own partition: its share is what it cost alone.
    for access in &accesses[..5] {
        let key = format!("access#{}", access.id);
        let charged = usage.partition("EmulatorTests", None, &key).write_units;
        assert!((counted(None, key.clone()) - charged).abs() < 1e-9, "{key}: {charged}");
    }
    assert!(hot.throttled.is_empty());
    Ok(())
}
