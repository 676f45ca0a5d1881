//! Change feeds with more than one holder of a shard over time: a handler slower than its lease
//! keeps the lease (its beats go on while it runs), so no page is handled by two processes at
//! once; a holder frozen past its lease is taken over, and what it writes once it wakes is
//! refused by the fence, so every item ends at its last version.

use dynashard::changes::{Change, ChangeFeed, ChangePage};
use dynashard::metadata::ShardMetadata;
use dynashard::{Db, Entity, Error, Table};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const METADATA: &str = "ChangeFeedHolderMetadata";
/// The lease of the frozen holder's test (its successor is the only one beating).
const LEASE: Duration = Duration::from_millis(500);
/// The lease of the slow handler's test: long enough that a loaded machine's stalls do not take
/// it from a holder that beats every third of it.
const SLOW_LEASE: Duration = Duration::from_millis(1_500);

#[derive(Table)]
#[table(
    name = "ChangeFeedHolderTests",
    pk = "pk",
    sk = "sk",
    shard_metadata = "ChangeFeedHolderMetadata",
    stream = "new_and_old_images"
)]
struct Ledger;

/// One item of the stream's table, rewritten version after version.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[entity(table = Ledger, pk = "item#{item}", sk = "revision")]
struct Revision {
    item: u32,
    version: u32,
}

/// What a handler makes of it downstream, with the fence of the lease it was written under.
#[derive(Table)]
#[table(name = "ChangeFeedHolderViews", pk = "pk", sk = "sk")]
struct Views;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[entity(table = Views, pk = "view#{item}", sk = "view")]
struct View {
    item: u32,
    version: u32,
    fence: u64,
}

async fn tables(db: &Db) {
    db.create_table::<Ledger>().await.expect("create the ledger");
    db.create_table::<Views>().await.expect("create the views");
    db.create_shard_metadata_table().await.expect("create the metadata table");
}

fn with_metadata(db: Db) -> Db {
    db.with_shard_metadata(ShardMetadata::new(METADATA))
}

fn feed(db: &Db, consumer: &str, worker: &str) -> ChangeFeed {
    db.change_feed::<Ledger>(consumer).expect("a feed").lease(LEASE).page_size(25).worker(worker)
}

fn slow_feed(db: &Db, consumer: &str, worker: &str) -> ChangeFeed {
    feed(db, consumer, worker).lease(SLOW_LEASE).page_size(50)
}

fn revisions(page: &ChangePage) -> Vec<Revision> {
    let decoded = page.records.iter().map(|record| record.decode::<Revision>());
    decoded
        .filter_map(|change| if let Ok(Change::Item(change)) = change { change.new } else { None })
        .collect()
}

/// Applies `page` to the views under the page's fence: (writes that landed, writes refused).
async fn apply(db: &Db, page: &ChangePage) -> dynashard::Result<(u32, u32)> {
    let (mut landed, mut refused) = (0, 0);
    for revision in revisions(page) {
        let view = View { item: revision.item, version: revision.version, fence: page.lease.fence() };
        match db.put(&view).condition(page.lease.fenced(View::fields().fence)).await {
            Ok(()) => landed += 1,
            Err(Error::ConditionFailed { .. }) => refused += 1,
            Err(other) => return Err(other),
        }
    }
    Ok((landed, refused))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_slower_than_its_lease_keeps_it_and_no_page_is_handled_twice() {
    let own = crate::own().await;
    let db = with_metadata(own.db());
    tables(&db).await;
    let consumer = crate::unique("slow");
    let workers = [slow_feed(&db, &consumer, "a"), slow_feed(&db, &consumer, "b")];
    workers[0].begin().await.expect("begin");
    const ITEMS: u32 = 200;
    for item in 0..50 {
        db.put(&Revision { item, version: 1 }).await.expect("put");
    }
    // The rest written while the workers read.
    let writer = {
        let db = db.clone();
        tokio::spawn(async move {
            for item in 50..ITEMS {
                db.put(&Revision { item, version: 1 }).await.expect("put");
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
    };
    let handled = Arc::new(Mutex::new(Vec::<(String, u32)>::new()));
    let active = Arc::new(Mutex::new(HashMap::<String, u32>::new()));
    let overlaps = Arc::new(Mutex::new(0u32));
    let started = Instant::now();
    let runs = workers.into_iter().map(|worker| {
        let (handled, active, overlaps) = (handled.clone(), active.clone(), overlaps.clone());
        async move {
            while handled.lock().unwrap().len() < ITEMS as usize {
                assert!(started.elapsed() < Duration::from_secs(120), "the feed never caught up");
                let handler = |page: ChangePage| {
                    let (handled, active, overlaps) = (handled.clone(), active.clone(), overlaps.clone());
                    async move {
                        let at_once = {
                            let mut active = active.lock().unwrap();
                            let count = active.entry(page.shard.clone()).or_default();
                            *count += 1;
                            *count
                        };
                        if at_once > 1 {
                            *overlaps.lock().unwrap() += 1;
                        }
                        // Slower than the lease: a downstream call that takes its time.
                        tokio::time::sleep(SLOW_LEASE * 8 / 5).await;
                        let items =
                            revisions(&page).into_iter().map(|revision| (page.shard.clone(), revision.item));
                        handled.lock().unwrap().extend(items);
                        *active.lock().unwrap().entry(page.shard.clone()).or_default() -= 1;
                        Ok(())
                    }
                };
                worker.catch_up(handler).await.expect("a pass");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    });
    futures::future::join_all(runs).await;
    writer.await.expect("the writer");
    assert_eq!(*overlaps.lock().unwrap(), 0, "a page of a shard was handled while another was");
    let handled = handled.lock().unwrap().clone();
    let items: Vec<u32> = handled.iter().map(|(_, item)| *item).collect();
    assert_eq!(items, (0..ITEMS).collect::<Vec<_>>(), "each record once, in order: no lease was lost");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_holder_frozen_past_its_lease_is_fenced_out_and_every_item_ends_at_its_last_version() {
    const ITEMS: u32 = 20;
    const VERSIONS: u32 = 30;
    let own = crate::own().await;
    let db = with_metadata(own.db());
    tables(&db).await;
    let consumer = crate::unique("frozen");
    let successor = feed(&db, &consumer, "successor");
    successor.begin().await.expect("begin");
    for version in 1..=VERSIONS {
        for item in 0..ITEMS {
            db.put(&Revision { item, version }).await.expect("put");
        }
    }

    // The first holder runs on a thread of its own, whose runtime freezes in its handler (a
    // process stopped, a thread blocked): its beats stop with it.
    let (frozen_tx, frozen) = tokio::sync::oneshot::channel::<u64>();
    let (thaw, thawed) = std::sync::mpsc::channel::<()>();
    let first = {
        let (endpoint, consumer) = (own.endpoint().to_owned(), consumer.clone());
        std::thread::spawn(move || frozen_holder(&endpoint, &consumer, frozen_tx, thawed))
    };
    let first_fence = frozen.await.expect("the first holder froze");

    // The successor takes the shard over once the lease expired, and applies every version.
    let applied = Arc::new(Mutex::new(BTreeMap::<u32, u32>::new()));
    let fences = Arc::new(Mutex::new(Vec::new()));
    let started = Instant::now();
    while applied.lock().unwrap().values().filter(|version| **version == VERSIONS).count() < ITEMS as usize {
        assert!(started.elapsed() < Duration::from_secs(120), "the lease was never taken over");
        let (applied, fences, db) = (applied.clone(), fences.clone(), db.clone());
        successor
            .catch_up(move |page| {
                let (applied, fences, db) = (applied.clone(), fences.clone(), db.clone());
                async move {
                    fences.lock().unwrap().push(page.lease.fence());
                    let (_, refused) = apply(&db, &page).await?;
                    assert_eq!(refused, 0, "nothing overtakes the newest holder");
                    let mut applied = applied.lock().unwrap();
                    applied.extend(
                        revisions(&page).into_iter().map(|revision| (revision.item, revision.version)),
                    );
                    Ok(())
                }
            })
            .await
            .expect("a pass");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let successor_fence = *fences.lock().unwrap().first().expect("a page");
    assert!(successor_fence > first_fence, "fences grow: {first_fence} then {successor_fence}");

    // The first holder wakes and applies its stale page: every write is refused or never sent.
    thaw.send(()).expect("the first holder waits");
    let outcome = tokio::task::spawn_blocking(move || first.join()).await.expect("join").expect("no panic");
    assert!(
        !outcome.lost_when_woken,
        "a frozen process cannot know it lost its lease: the fence must refuse"
    );
    assert_eq!((outcome.landed, outcome.refused), (0, 25), "every stale write refused");
    assert!(!outcome.caught_up, "its pass ended with the lease lost");
    for item in 0..ITEMS {
        let view = db.get(View::key(item).expect("key")).consistent().await.expect("get").expect("a view");
        assert_eq!(view.version, VERSIONS, "item {item} ended at an older version: {view:?}");
    }
}

/// What the frozen holder did once it woke.
#[derive(Debug, Default)]
struct Frozen {
    lost_when_woken: bool,
    landed: u32,
    refused: u32,
    caught_up: bool,
}

/// Reads the feed as its own process would, freezing its whole runtime in its first page's
/// handler until `thawed` (its fence sent to `frozen` first), then applying the page from a task
/// of its own: requests already sent when a feed drops a handler still arrive, and all of them
/// must be refused.
fn frozen_holder(
    endpoint: &str,
    consumer: &str,
    frozen: tokio::sync::oneshot::Sender<u64>,
    thawed: std::sync::mpsc::Receiver<()>,
) -> Frozen {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    runtime.block_on(async move {
        let db = Db::new(dynashard::client_for_endpoint(endpoint))
            .with_streams_client(dynashard::client::streams_client_for_endpoint(endpoint));
        let db = with_metadata(db);
        let lost_when_woken = Mutex::new(None);
        let freeze = Mutex::new(Some((frozen, thawed)));
        let (applied_tx, applied) = tokio::sync::oneshot::channel();
        let applied_tx = Mutex::new(Some(applied_tx));
        let handler = |page: ChangePage| {
            let (db, lost_when_woken, freeze, applied_tx) = (&db, &lost_when_woken, &freeze, &applied_tx);
            async move {
                let freeze = freeze.lock().unwrap().take();
                let Some((frozen, thawed)) = freeze else { return Ok(()) };
                let _ = frozen.send(page.lease.fence());
                thawed.recv().expect("thawed"); // blocks the runtime's one thread: nothing beats
                *lost_when_woken.lock().unwrap() = Some(page.lease.is_lost());
                let (db, sender) = (db.clone(), applied_tx.lock().unwrap().take());
                let lease = page.lease.clone();
                tokio::spawn(async move {
                    let applied = apply(&db, &page).await;
                    if let Some(sender) = sender {
                        let _ = sender.send(applied);
                    }
                });
                lease.lost().await;
                Ok(())
            }
        };
        let pass = feed(&db, consumer, "first").catch_up(handler).await.expect("the first holder's pass");
        let (landed, refused) = applied.await.expect("the stale page applied").expect("no error");
        let lost_when_woken = lost_when_woken.into_inner().unwrap().expect("woken");
        Frozen { lost_when_woken, landed, refused, caught_up: pass.caught_up }
    })
}
