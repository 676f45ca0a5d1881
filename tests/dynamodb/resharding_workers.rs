//! A backfill shared by many workers: segments leased one worker at a time, a silent worker's
//! segments taken over once its leases expire (each item scanned once in effect, from the last
//! recorded position), the cleanup shared the same way, and a capacity budget recorded for all.

use crate::{unique, Own};
use dynashard::metadata::ShardMetadata;
use dynashard::reshard::{Backfill, Budget, Layout, Phase, ReshardState, Verify};
use dynashard::{Db, Entity, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Table)]
#[table(
    name = "ReshardWorkerTests",
    pk = "pk",
    sk = "sk",
    shard_metadata = "ReshardWorkerMetadata",
    stream = "new_image"
)]
#[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
#[gsi(ByTitleNext(pk = "next_pk", sk = "next_sk"))]
struct Shelves;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[entity(table = Shelves, pk = "{shelf}", sk = "record#{title}")]
#[gsi(ByTitle(pk = "titles", sk = "{title}"))]
#[shard(ByTitle(hash = 16, by = title))]
struct Record {
    shelf: String,
    title: String,
}

/// A `Db` of its own: another process, as far as leases go.
async fn worker(own: &Own, table: &str) -> Db {
    let db = own.db().with_table_name::<Shelves>(table).expect("a valid table name").with_shard_metadata(
        ShardMetadata::new("ReshardWorkerMetadata").cache_for(Duration::from_millis(100)),
    );
    db.create_table::<Shelves>().await.unwrap();
    db.create_shard_metadata_table().await.unwrap();
    db
}

async fn started(own: &Own, table: &str, shelf: &str, items: usize) -> (Db, Vec<Record>) {
    let db = worker(own, table).await;
    // Spread over 50 table partitions, so that every scan segment holds some.
    let records: Vec<Record> = (0..items)
        .map(|n| Record { shelf: format!("{shelf}-{}", n % 50), title: format!("t{n:04}") })
        .collect();
    db.batch_put(&records).await.unwrap();
    db.start_resharding::<Record>(Shelves::BY_TITLE, Shelves::BY_TITLE_NEXT, Layout::hash(32)).await.unwrap();
    (db, records)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn workers_share_a_backfill_and_take_over_a_silent_one() {
    let (table, shelf) = (unique("ReshardWorkers"), unique("shelf"));
    let own = crate::own().await;
    let (db, records) = started(&own, &table, &shelf, 600).await;
    let options =
        || Backfill::default().segments(6).concurrency(2).page_size(25).lease(Duration::from_secs(3));

    // A worker that hangs after its first page of items: its leases go silent (no beats),
    // unreleased.
    let (hung_tx, hung) = mpsc::channel::<()>();
    let (release, release_rx) = mpsc::channel::<()>();
    let release_rx = Mutex::new(release_rx);
    let silent = {
        let db = worker(&own, &table).await;
        let first = std::sync::atomic::AtomicBool::new(true);
        let options = options().worker("silent").on_progress(move |state| {
            if state.backfill_totals().0 > 0 && first.swap(false, Ordering::SeqCst) {
                hung_tx.send(()).unwrap();
                let wait = || release_rx.lock().unwrap().recv_timeout(Duration::from_secs(300));
                tokio::task::block_in_place(wait).expect("released");
            }
        });
        tokio::spawn(async move { db.backfill::<Record>(Shelves::BY_TITLE, options).await })
    };
    tokio::task::spawn_blocking(move || hung.recv().unwrap()).await.unwrap();
    let held = db.resharding::<Record>(Shelves::BY_TITLE).await.unwrap().unwrap();
    let silent_held: Vec<u32> = segments_of(&held, "silent");
    assert!(!silent_held.is_empty(), "it holds the segment it hangs in: {:?}", held.segments);

    // Two more workers do the rest, and the silent one's segments once its leases expire.
    let pages = [Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0))];
    let counted = |name: &str, pages: &Arc<AtomicUsize>| {
        let pages = Arc::clone(pages);
        options().worker(name).on_progress(move |_| _ = pages.fetch_add(1, Ordering::Relaxed))
    };
    let (b, c) = (worker(&own, &table).await, worker(&own, &table).await);
    let both = async {
        tokio::join!(
            b.backfill::<Record>(Shelves::BY_TITLE, counted("b", &pages[0])),
            c.backfill::<Record>(Shelves::BY_TITLE, counted("c", &pages[1]))
        )
    };
    // A takeover that never comes fails rather than hangs (the silent worker is let go only
    // afterwards): bounded by a stall of the recorded resharding, not by time, which a loaded
    // DynamoDB Local stretches many times over.
    let (done_b, done_c) = unstalled(&db, both).await.expect("the silent worker's segments taken over");
    assert_eq!(done_b.unwrap().phase, Phase::Backfilled);
    assert_eq!(done_c.unwrap().phase, Phase::Backfilled);
    let pages = pages.map(|pages| pages.load(Ordering::Relaxed));
    assert!(pages.iter().sum::<usize>() > 0, "they worked: {pages:?}");
    let state = db.resharding::<Record>(Shelves::BY_TITLE).await.unwrap().unwrap();
    assert!(state.segments.values().all(|segment| segment.done), "{:?}", state.segments);
    assert!(segments_of(&state, "silent").is_empty(), "its segments were taken over and finished");
    let progress = db.resharding_progress::<Record>(Shelves::BY_TITLE).await.unwrap().unwrap();
    // The source's partitions are known (`pk = "titles"`, 16 hash shards): one piece each, read
    // by Query, though 6 segments were asked for.
    assert_eq!((progress.segments, progress.scanned, progress.fraction()), ((16, 16), 600, 1.0));
    assert_eq!(progress.remaining, Some(Duration::ZERO));
    assert!(progress.caught_up_ago.is_some(), "the backfill applied the log to its end");
    let all = db.reshardings("ReshardWorkerMetadata").await.unwrap();
    assert!(
        all.iter().any(|found| found.table == table && found.state == progress.state),
        "listed for the CLI"
    );
    assert_eq!(state.backfill_totals().0, 600, "every item scanned once in effect: a takeover resumes");

    // The silent worker, let go, finds its leases taken and the backfill done.
    release.send(()).unwrap();
    let late = silent.await.unwrap().expect("a worker whose leases were taken stops quietly");
    assert_eq!(late.phase, Phase::Backfilled);
    let verified = db.verify_resharding::<Record>(Shelves::BY_TITLE, Verify::default()).await.unwrap();
    assert!(verified.is_clean(), "every item has exactly its place: {verified:?}");

    // The cleanup is shared the same way.
    db.cut_over::<Record>(Shelves::BY_TITLE).await.unwrap();
    let (finish_b, finish_c) = tokio::join!(
        b.finish_resharding::<Record>(Shelves::BY_TITLE, options().worker("b")),
        c.finish_resharding::<Record>(Shelves::BY_TITLE, options().worker("c"))
    );
    let (finish_b, finish_c) = (finish_b.unwrap(), finish_c.unwrap());
    assert!(finish_b.phase == Phase::Done && finish_c.phase == Phase::Done);
    assert_eq!(finish_b.backfill_totals().0, 600, "the cleanup scanned every item once: {finish_b:?}");
    let listed: Vec<Record> = db.stream(Record::query_by_title()).try_collect().await.unwrap();
    assert_eq!(listed, records, "every item once, in order, from the new layout");
}

/// Runs `work` to its end, or `Err` once the recorded resharding of `Record`'s `ByTitle` has not
/// changed (no page, no change of owner, no catch-up) for three minutes.
async fn unstalled<F: std::future::Future>(db: &Db, work: F) -> Result<F::Output, String> {
    let watch = async {
        let (mut last, mut since) = (None, Instant::now());
        loop {
            tokio::time::sleep(Duration::from_secs(2)).await;
            let now = db.resharding::<Record>(Shelves::BY_TITLE).await.unwrap();
            if now != last {
                (last, since) = (now, Instant::now());
            } else if since.elapsed() > Duration::from_secs(180) {
                return format!("no progress for three minutes: {last:?}");
            }
        }
    };
    // Boxed: the backfills' futures are large, too large for a test thread's stack in debug.
    tokio::select! {
        output = Box::pin(work) => Ok(output),
        stalled = Box::pin(watch) => Err(stalled),
    }
}

/// The segments `owner` holds in `state`.
fn segments_of(state: &ReshardState, owner: &str) -> Vec<u32> {
    let held = state.segments.iter().filter(|(_, segment)| segment.owner.as_deref() == Some(owner));
    held.map(|(number, _)| *number).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_budget_holds_every_worker_and_paces_the_writes() {
    let (table, shelf) = (unique("ReshardBudget"), unique("shelf"));
    let own = crate::own().await;
    let (db, _) = started(&own, &table, &shelf, 240).await;
    // About one write unit an item: 240 units at 40 a second take five seconds or more (one
    // second's worth may be spent at once); unpaced, about two.
    let budget = Budget { write_units: Some(40), read_units: None };
    let options = Backfill::default().segments(4).page_size(20).budget(budget);
    let began = Instant::now();
    let state = db.backfill::<Record>(Shelves::BY_TITLE, options).await.unwrap();
    let took = began.elapsed();
    assert_eq!(state.scan.map(|scan| scan.budget), Some(budget), "recorded with the scan");
    assert!(took >= Duration::from_millis(3_500), "the writes were paced: {took:?}");
    assert_eq!(state.backfill_totals(), (240, 240));
}

/// Workers of one backfill read the leases they need to take segments, a few at a time, not
/// every segment's at every look (8 workers over 208 segments read 47,000 that way: each of the
/// 208 takes was preceded by a read of all of them; about 6,900 now).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_read_a_few_leases_a_look_not_every_segments() {
    use dynashard_local::emulator::{Emulator, PartitionLimits};
    const WORKERS: usize = 8;
    let (table, shelf) = (unique("ReshardLeaseReads"), unique("shelf"));
    let own = crate::own().await;
    let (db, _) = started(&own, &table, &shelf, 1_600).await;
    let emulator = Emulator::start(own.endpoint(), PartitionLimits::dynamodb()).expect("the emulator");
    let metadata = ShardMetadata::new("ReshardWorkerMetadata").cache_for(Duration::from_millis(100));
    let through = Db::new(dynashard::client_for_endpoint(emulator.endpoint()))
        .with_streams_client(dynashard::client::streams_client_for_endpoint(own.endpoint()))
        .with_table_name::<Shelves>(&table)
        .expect("a valid table name")
        .with_shard_metadata(metadata);
    let backfills = (0..WORKERS).map(|worker| {
        let db = through.clone();
        let options =
            Backfill::default().segments(200).concurrency(1).page_size(25).worker(format!("w{worker}"));
        async move { db.backfill::<Record>(Shelves::BY_TITLE, options).await }
    });
    for state in futures::future::try_join_all(backfills).await.expect("the backfills") {
        assert_eq!(state.phase, Phase::Backfilled);
    }
    let progress = db.resharding_progress::<Record>(Shelves::BY_TITLE).await.unwrap().unwrap();
    let segments = u64::from(progress.segments.1);
    assert!(segments >= 150, "a segment a piece, cut from the data: {:?}", progress.segments);
    assert_eq!(progress.scanned, 1_600);
    // A lease is one read unit: each take reads 25 at first, more only while none of them is
    // free, and the progress a worker returns is what it saw of the leases as they ended.
    let usage = emulator.usage();
    let leases =
        usage.partitions_of("ReshardWorkerMetadata", None).filter(|(id, _)| id.key.contains("/backfill/"));
    let read: f64 = leases.map(|(_, used)| used.read_units).sum();
    let most = (25 + 2 * WORKERS as u64) * segments;
    assert!(read < most as f64, "{read} lease reads for {segments} segments, {most} at most");
    let verified = db.verify_resharding::<Record>(Shelves::BY_TITLE, Verify::default()).await.unwrap();
    assert!(verified.is_clean(), "every item has exactly its place: {verified:?}");
}
