//! The batched backfill: whole items written with `BatchWriteItem` while existing items are
//! frozen. New items keep coming in during it, changes of existing ones are refused with
//! `Error::Frozen`, the freeze ends with the backfill (or with a conditional run after an
//! interrupted one), and a source index without whole items is refused.

use crate::{unique, Own};
use aws_sdk_dynamodb::types::{
    AttributeDefinition, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection, ProjectionType,
    ScalarAttributeType,
};
use dynashard::consumption::Measure;
use dynashard::metadata::ShardMetadata;
use dynashard::reshard::{Backfill, Layout, Phase, ReshardState};
use dynashard::{Db, Entity, Error, Table, Unprocessed};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

const METADATA: &str = "BatchedBackfillMetadata";

#[derive(Table)]
#[table(
    name = "BatchedBackfillTests",
    pk = "pk",
    sk = "sk",
    shard_metadata = "BatchedBackfillMetadata",
    stream = "new_image"
)]
#[gsi(ByFeed(pk = "feed_pk", sk = "feed_sk"))]
#[gsi(ByFeedNext(pk = "next_pk", sk = "next_sk"))]
struct Logs;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[entity(table = Logs, pk = "{file}", sk = "at#{at}")]
#[gsi(ByFeed(pk = "feed#{volume}", sk = "{at}#{file}"))]
#[shard(ByFeed(hash = 8, by = file))]
struct Access {
    volume: String,
    at: String,
    file: String,
    bytes: u64,
}

fn access(volume: &str, n: usize) -> Access {
    Access {
        volume: volume.to_owned(),
        at: format!("{n:08}"),
        file: format!("/f{}", n % 37),
        bytes: n as u64,
    }
}

/// A `Db` on a table of the test's own (resharding records are per table).
async fn setup(own: &Own, table: &str) -> Db {
    let db = own
        .db()
        .with_table_name::<Logs>(table)
        .expect("a valid table name")
        .with_shard_metadata(ShardMetadata::new(METADATA).cache_for(Duration::from_millis(100)));
    db.create_table::<Logs>().await.unwrap();
    db.create_shard_metadata_table().await.unwrap();
    db
}

async fn feed(db: &Db, volume: &str) -> Vec<Access> {
    db.stream(Access::query_by_feed(volume)).try_collect().await.unwrap()
}

/// A batch write refused by the freeze: `puts` and `deletes` writes handed back unwritten.
#[track_caller]
fn assert_batch_refused(result: Result<(), Error>, puts: usize, deletes: usize) {
    match &result {
        Err(Error::BatchIncomplete {
            unprocessed: Unprocessed::Writes { puts: p, deletes: d },
            last_error,
            ..
        }) => {
            assert_eq!((p.len(), d.len()), (puts, deletes), "{result:?}");
            assert!(matches!(last_error.as_deref(), Some(Error::Frozen { .. })), "{result:?}");
        }
        _ => panic!("a refused batch write: {result:?}"),
    }
}

#[track_caller]
fn assert_frozen(result: Result<impl std::fmt::Debug, Error>, what: &str) {
    assert!(
        matches!(&result, Err(Error::Frozen { entity: "Access", index }) if index == "ByFeed"),
        "{what}: {result:?}"
    );
}

type Running = tokio::task::JoinHandle<dynashard::Result<ReshardState>>;

/// Starts `options`' backfill, calling `report` after every page, and returns once it waits in
/// its first progress report, which it leaves when the returned sender sends (or after a minute).
async fn paused_backfill(
    db: &Db,
    options: Backfill,
    report: impl Fn(&ReshardState) + Send + Sync + 'static,
) -> (Running, mpsc::Sender<()>) {
    let (paused_tx, paused) = mpsc::channel::<()>();
    let (resume, resume_rx) = mpsc::channel::<()>();
    let resume_rx = Mutex::new(resume_rx);
    let first = AtomicBool::new(true);
    let options = options.on_progress(move |state| {
        report(state);
        if first.swap(false, Ordering::SeqCst) {
            paused_tx.send(()).unwrap();
            // Handing this worker's other tasks to another thread while it waits.
            let wait = || resume_rx.lock().unwrap().recv_timeout(Duration::from_secs(60));
            tokio::task::block_in_place(wait).expect("resumed");
        }
    });
    let db = db.clone();
    let running = tokio::spawn(async move { db.backfill::<Access>(Logs::BY_FEED, options).await });
    tokio::task::spawn_blocking(move || paused.recv().unwrap()).await.unwrap();
    (running, resume)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batched_backfill_freezes_existing_items_and_takes_new_ones() {
    let (table, volume) = (unique("BatchedFreeze"), unique("vol"));
    let own = crate::own().await;
    let db = setup(&own, &table).await;
    let existing: Vec<Access> = (0..1_000).map(|n| access(&volume, n)).collect();
    db.batch_put(&existing).await.unwrap();
    db.start_resharding::<Access>(Logs::BY_FEED, Logs::BY_FEED_NEXT, Layout::hash(16)).await.unwrap();

    // An appender creating new items throughout, singly and in batches.
    let written = Arc::new(Mutex::new(existing.clone()));
    let stop = Arc::new(AtomicBool::new(false));
    let appender = {
        let (db, volume, written, stop) = (db.clone(), volume.clone(), written.clone(), stop.clone());
        tokio::spawn(async move {
            let mut n = 1_000;
            while !stop.load(Ordering::Relaxed) {
                let batch: Vec<Access> = (n..n + 4).map(|n| access(&volume, n)).collect();
                db.put(&batch[0]).await.expect("a new item is created during the freeze");
                db.batch_put(&batch[1..]).await.expect("new items are batch-created during the freeze");
                written.lock().unwrap().extend(batch);
                n += 4;
            }
        })
    };

    // The backfill stops in its first progress report until the checks below are done.
    let reports = Arc::new(AtomicUsize::new(0));
    let counted = reports.clone();
    let (backfill, resume) =
        paused_backfill(&db, Backfill::default().batched().page_size(40), move |state| {
            assert!(state.frozen, "existing items are frozen while the batched backfill runs");
            counted.fetch_add(1, Ordering::SeqCst);
        })
        .await;

    let old = existing[7].clone();
    let key = Access::key(&old.file, &old.at).unwrap();
    assert_frozen(db.update(key.clone()).add(Access::fields().bytes, 1).await, "an update");
    assert_frozen(db.delete(key.clone()).await, "a delete");
    assert_frozen(db.put(&old).await, "an overwriting put");
    assert!(matches!(db.put(&old).create_only().await, Err(Error::AlreadyExists)));
    let fresh = access(&volume, 999_999);
    assert_batch_refused(db.batch_put(&[old.clone(), fresh.clone()]).await, 1, 0);
    assert_eq!(db.get(Access::key(&fresh.file, &fresh.at).unwrap()).await.unwrap(), Some(fresh.clone()));
    written.lock().unwrap().push(fresh);
    assert_batch_refused(db.batch_delete([key.clone()]).await, 0, 1);
    let in_transaction = db.transaction().update(db.update(key.clone()).add(Access::fields().bytes, 1)).await;
    assert_frozen(in_transaction, "an update in a transaction");
    let put_in_transaction = db.transaction().put(&old).await;
    assert!(
        matches!(&put_in_transaction, Err(Error::TransactionCanceled { reasons })
            if matches!(reasons[0].error.as_deref(), Some(Error::Frozen { .. }))),
        "{put_in_transaction:?}"
    );
    assert_eq!(db.get(key.clone()).await.unwrap(), Some(old.clone()), "nothing changed");

    resume.send(()).unwrap();
    let state = backfill.await.unwrap().unwrap();
    stop.store(true, Ordering::Relaxed);
    appender.await.unwrap();
    assert_eq!(state.phase, Phase::Backfilled);
    assert!(!state.frozen, "the freeze ends with the backfill");
    assert!(reports.load(Ordering::SeqCst) > 8, "several pages per segment");
    let (scanned, placed) = state.backfill_totals();
    assert!(scanned >= 1_000 && placed >= 1_000, "every existing item was written: {scanned} {placed}");

    tokio::time::sleep(Duration::from_millis(150)).await; // writers see the end of the freeze
    db.update(key.clone()).set(Access::fields().bytes, old.bytes).await.expect("changes are allowed again");

    assert!(db
        .verify_resharding::<Access>(Logs::BY_FEED, dynashard::reshard::Verify::default())
        .await
        .unwrap()
        .is_clean());

    db.cut_over::<Access>(Logs::BY_FEED).await.unwrap();
    tokio::time::sleep(Duration::from_millis(150)).await;
    let mut expected = written.lock().unwrap().clone();
    expected.sort_by(|a, b| (&a.at, &a.file).cmp(&(&b.at, &b.file)));
    assert!(expected.len() > 1_000, "the appender wrote during the backfill");
    let stream = db.stream(Access::query_by_feed(&volume));
    let stats = stream.stats().clone();
    let listed: Vec<Access> = stream.try_collect().await.unwrap();
    assert_eq!(listed, expected, "the new layout holds every item once, in order");
    let per_shard = stats.per_shard_requests();
    assert_eq!(per_shard.len(), 16, "requests are counted for each of the new layout's shards");
    assert!(per_shard.iter().all(|requests| *requests >= 1), "{per_shard:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_batched_backfill_is_finished_conditionally_and_unfrozen() {
    let (table, volume) = (unique("BatchedResume"), unique("vol"));
    let own = crate::own().await;
    let db = setup(&own, &table).await;
    let existing: Vec<Access> = (0..400).map(|n| access(&volume, n)).collect();
    db.batch_put(&existing).await.unwrap();
    db.start_resharding::<Access>(Logs::BY_FEED, Logs::BY_FEED_NEXT, Layout::hash(16)).await.unwrap();

    // Killed after its first page, as a process that died.
    let options = Backfill::default().batched().page_size(20).on_progress(|_| panic!("killed"));
    let killed = tokio::spawn({
        let db = db.clone();
        async move { db.backfill::<Access>(Logs::BY_FEED, options).await }
    });
    assert!(killed.await.unwrap_err().is_panic());
    let halfway = db.resharding::<Access>(Logs::BY_FEED).await.unwrap().unwrap();
    assert!(halfway.frozen && halfway.phase == Phase::DualWrites, "{halfway:?}");
    tokio::time::sleep(Duration::from_millis(150)).await;
    let key = Access::key(&existing[3].file, &existing[3].at).unwrap();
    assert_frozen(db.update(key.clone()).add(Access::fields().bytes, 1).await, "an update");

    let refused = db.backfill::<Access>(Logs::BY_FEED, Backfill::default()).await;
    assert!(
        matches!(&refused, Err(Error::Resharding { reason, .. }) if reason.contains("holds existing items frozen")),
        "a conditional run waits out the freeze lease (60 s): {refused:?}"
    );
    let taken_over = Backfill::default().freeze_lease(Duration::ZERO);
    let state = db.backfill::<Access>(Logs::BY_FEED, taken_over).await.unwrap();
    assert!(!state.frozen && state.phase == Phase::Backfilled);
    assert_eq!(state.backfill_totals().0, 400, "the conditional run scanned the source index anew");
    tokio::time::sleep(Duration::from_millis(150)).await;
    db.update(key).set(Access::fields().bytes, 3u64).await.expect("the freeze is lifted");
    assert!(db
        .verify_resharding::<Access>(Logs::BY_FEED, dynashard::reshard::Verify::default())
        .await
        .unwrap()
        .is_clean());
    db.cut_over::<Access>(Logs::BY_FEED).await.unwrap();
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert_eq!(feed(&db, &volume).await.len(), 400);
}

#[tokio::test]
async fn a_batched_backfill_reads_whole_items_from_the_table_whatever_the_index_projects() {
    let table = unique("BatchedKeysOnly");
    let own = crate::own().await;
    let db = own
        .db()
        .with_table_name::<Logs>(&table)
        .expect("a valid table name")
        .with_shard_metadata(ShardMetadata::new(METADATA));
    db.create_shard_metadata_table().await.unwrap();
    let string = |name: &str| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(ScalarAttributeType::S)
            .build()
            .unwrap()
    };
    let key =
        |name: &str, kind| KeySchemaElement::builder().attribute_name(name).key_type(kind).build().unwrap();
    let index = |name: &str, pk: &str, sk: &str, projection| {
        GlobalSecondaryIndex::builder()
            .index_name(name)
            .key_schema(key(pk, KeyType::Hash))
            .key_schema(key(sk, KeyType::Range))
            .projection(Projection::builder().projection_type(projection).build())
            .build()
            .unwrap()
    };
    db.client()
        .create_table()
        .table_name(&table)
        .billing_mode(aws_sdk_dynamodb::types::BillingMode::PayPerRequest)
        .set_attribute_definitions(Some(
            ["pk", "sk", "feed_pk", "feed_sk", "next_pk", "next_sk"].map(string).to_vec(),
        ))
        .key_schema(key("pk", KeyType::Hash))
        .key_schema(key("sk", KeyType::Range))
        .global_secondary_indexes(index("ByFeed", "feed_pk", "feed_sk", ProjectionType::KeysOnly))
        .global_secondary_indexes(index("ByFeedNext", "next_pk", "next_sk", ProjectionType::All))
        .stream_specification(
            aws_sdk_dynamodb::types::StreamSpecification::builder()
                .stream_enabled(true)
                .stream_view_type(aws_sdk_dynamodb::types::StreamViewType::NewImage)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let existing: Vec<Access> = (0..60).map(|n| access("v", n)).collect();
    db.batch_put(&existing).await.unwrap();
    db.start_resharding::<Access>(Logs::BY_FEED, Logs::BY_FEED_NEXT, Layout::hash(16)).await.unwrap();
    let measured = db.backfill::<Access>(Logs::BY_FEED, Backfill::default().batched()).measured().await;
    let state = measured.output.as_ref().unwrap();
    assert_eq!(state.backfill_totals(), (60, 60));
    // Its scan's pages and its puts count in what it measured, under the entity type.
    assert!(measured.read_units() > 0.0 && measured.write_units() >= 60.0, "{:#?}", measured.consumed);
    assert!(measured.consumed.iter().all(|consumed| consumed.entity == "Access"), "{:#?}", measured.consumed);
    assert!(state.scan.as_ref().is_some_and(|scan| scan.scan_table), "a batched backfill scans the table");
    for item in &existing {
        let stored = db.get(Access::key(&item.file, &item.at).unwrap()).await.unwrap();
        assert_eq!(stored.as_ref(), Some(item), "the keys-only index did not cost any attribute");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batched_backfill_whose_freeze_was_lifted_stops() {
    let (table, volume) = (unique("BatchedTakeover"), unique("vol"));
    let own = crate::own().await;
    let db = setup(&own, &table).await;
    let existing: Vec<Access> = (0..300).map(|n| access(&volume, n)).collect();
    db.batch_put(&existing).await.unwrap();
    db.start_resharding::<Access>(Logs::BY_FEED, Logs::BY_FEED_NEXT, Layout::hash(16)).await.unwrap();
    // One segment at a time, paused after its first page (of several).
    let batched = Backfill::default().batched().page_size(10).concurrency(1);
    let (first, resume_first) = paused_backfill(&db, batched, |_| {}).await;
    // While it waits, a conditional run (in another process) lifts its freeze and does the work.
    let other = setup(&own, &table).await;
    let lifted = Backfill::default().freeze_lease(Duration::ZERO);
    let state = other.backfill::<Access>(Logs::BY_FEED, lifted).await.unwrap();
    assert!(!state.frozen && state.phase == Phase::Backfilled);

    resume_first.send(()).unwrap();
    // It stops: at its next page (the freeze it renews is gone), or at its next look at the
    // record (another worker finished the backfill), whichever comes first.
    let stopped = first.await.unwrap();
    assert!(
        matches!(&stopped, Err(Error::Resharding { reason, .. }) if reason.contains("freeze was lifted"))
            || stopped.as_ref().is_ok_and(|state| state.phase == Phase::Backfilled),
        "{stopped:?}"
    );
    assert!(db
        .verify_resharding::<Access>(Logs::BY_FEED, dynashard::reshard::Verify::default())
        .await
        .unwrap()
        .is_clean());
    db.cut_over::<Access>(Logs::BY_FEED).await.unwrap();
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert_eq!(feed(&db, &volume).await, existing);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batched_workers_share_one_freeze() {
    let (table, volume) = (unique("BatchedShared"), unique("vol"));
    let own = crate::own().await;
    let db = setup(&own, &table).await;
    let existing: Vec<Access> = (0..300).map(|n| access(&volume, n)).collect();
    db.batch_put(&existing).await.unwrap();
    db.start_resharding::<Access>(Logs::BY_FEED, Logs::BY_FEED_NEXT, Layout::hash(16)).await.unwrap();
    // One segment at a time each, so that neither can take every segment before the other starts.
    let pages = [Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0))];
    let options = |pages: &Arc<AtomicUsize>| {
        let pages = Arc::clone(pages);
        let count = move |_: &ReshardState| _ = pages.fetch_add(1, Ordering::Relaxed);
        Backfill::default().batched().segments(4).concurrency(1).page_size(5).on_progress(count)
    };
    let second = setup(&own, &table).await;
    let (a, b) = tokio::join!(
        db.backfill::<Access>(Logs::BY_FEED, options(&pages[0])),
        second.backfill::<Access>(Logs::BY_FEED, options(&pages[1]))
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    assert!(a.phase == Phase::Backfilled && b.phase == Phase::Backfilled && !a.frozen && !b.frozen);
    let pages = pages.map(|pages| pages.load(Ordering::Relaxed));
    assert!(pages.iter().all(|pages| *pages > 0), "both worked under the one freeze: {pages:?}");
    let state = db.resharding::<Access>(Logs::BY_FEED).await.unwrap().unwrap();
    assert!(state.segments.values().all(|segment| segment.done && segment.owner.is_none()));
    assert_eq!(state.backfill_totals(), (300, 300));
    assert!(db
        .verify_resharding::<Access>(Logs::BY_FEED, dynashard::reshard::Verify::default())
        .await
        .unwrap()
        .is_clean());
}
