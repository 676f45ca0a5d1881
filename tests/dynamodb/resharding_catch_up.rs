//! A resharding that loses nothing whatever its writers know: a writer whose cache still says
//! there is no resharding (as a slow request built before the start, or a process with a long
//! cache time, would be), and a writer that bypasses dynashard and writes whole items without the
//! new layout, both write through every phase; after the cut-over and after the finish, every
//! acknowledged write is read from the new layout, once, in order, and no deleted item returns.

use crate::{unique, Own};
use aws_sdk_dynamodb::types::AttributeValue;
use dynashard::metadata::ShardMetadata;
use dynashard::reshard::{Backfill, Layout, Phase, Verify};
use dynashard::{Db, Entity, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const METADATA: &str = "ReshardCatchUpMetadata";
/// The longest a write may take to show in the change log and be placed from it.
const LAG: Duration = Duration::from_secs(10);

#[derive(Table)]
#[table(
    name = "ReshardCatchUpTests",
    pk = "pk",
    sk = "sk",
    shard_metadata = "ReshardCatchUpMetadata",
    stream = "new_image"
)]
#[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
#[gsi(ByTitleNext(pk = "next_pk", sk = "next_sk"))]
struct Shelves;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[entity(table = Shelves, pk = "{shelf}", sk = "record#{title}")]
#[gsi(ByTitle(pk = "titles#{shelf}", sk = "{title}"))]
#[shard(ByTitle(hash = 16, by = title))]
struct Record {
    shelf: String,
    title: String,
    note: String,
}

/// A process with its own shard metadata cache, kept for `cache`, on the table named `table`
/// (one per test: each reshards it).
async fn process(own: &Own, table: &str, cache: Duration) -> Db {
    let db = own
        .db()
        .with_table_name::<Shelves>(table)
        .expect("a valid table name")
        .with_shard_metadata(ShardMetadata::new(METADATA).cache_for(cache));
    db.create_table::<Shelves>().await.unwrap();
    db.create_shard_metadata_table().await.unwrap();
    db
}

fn record(shelf: &str, n: usize, note: &str) -> Record {
    Record { shelf: shelf.to_owned(), title: format!("t{n:06}"), note: note.to_owned() }
}

/// What every writer acknowledged: title to note, `None` once deleted.
type Acknowledged = Arc<Mutex<BTreeMap<String, Option<String>>>>;

/// Held for reading by a writer through each of its rounds, for writing by a check: a check
/// waits for the rounds under way and holds the writers off until it is done.
type Writers = Arc<tokio::sync::RwLock<()>>;

/// Puts, overwrites and deletes through a `Db` that will not see the resharding for an hour.
async fn stale_writer(db: Db, shelf: String, acked: Acknowledged, writers: Writers, stop: Arc<AtomicBool>) {
    let mut n = 10_000;
    while !stop.load(Ordering::Relaxed) {
        let _round = writers.read().await;
        let item = record(&shelf, n, "stale");
        db.put(&item).await.unwrap();
        acked.lock().unwrap().insert(item.title.clone(), Some(item.note));
        // An overwrite of a preloaded item: a put replaces the item, its new place with it.
        let old = record(&shelf, n % 300, &format!("stale-{n}"));
        db.put(&old).await.unwrap();
        acked.lock().unwrap().insert(old.title.clone(), Some(old.note));
        if n % 7 == 0 {
            let gone = record(&shelf, 150 + n % 100, "");
            db.delete(Record::key(&shelf, &gone.title).unwrap()).await.unwrap();
            acked.lock().unwrap().insert(gone.title, None);
        }
        n += 1;
        drop(_round);
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Rewrites whole items with the raw SDK, as a service that knows only the source layout would:
/// the item's fields, a new note, and its place in the source index computed by hand.
async fn foreign_writer(db: Db, shelf: String, acked: Acknowledged, writers: Writers, stop: Arc<AtomicBool>) {
    let table = db.table_name::<Shelves>().to_owned();
    let mut n = 0;
    while !stop.load(Ordering::Relaxed) {
        let _round = writers.read().await;
        let title = format!("t{:06}", 20 + n % 100);
        let note = format!("foreign-{n}");
        let shard = dynashard::shard::hash_shard(&title, 16);
        let item = [
            ("pk", shelf.clone()),
            ("sk", format!("record#{title}")),
            ("_type", "Record".to_owned()),
            ("shelf", shelf.clone()),
            ("title", title.clone()),
            ("note", note.clone()),
            ("title_pk", format!("titles#{shelf}#{shard}")),
            ("title_sk", title.clone()),
        ]
        .map(|(name, value)| (name.to_owned(), AttributeValue::S(value)));
        db.client().put_item().table_name(&table).set_item(Some(item.into())).send().await.unwrap();
        acked.lock().unwrap().insert(title, Some(note));
        n += 1;
        drop(_round);
        tokio::time::sleep(Duration::from_millis(7)).await;
    }
}

async fn listed(db: &Db, shelf: &str) -> Vec<Record> {
    db.stream(Record::query_by_title(shelf)).try_collect().await.unwrap()
}

/// With the writers held between two writes: every acknowledged write is read back from the
/// layout reads use now, once and in order, and nothing else, no deleted item among it, once the
/// catch-up has read the log past the last write (a stream shows a record shortly after its
/// write, as an index shows an item: [`LAG`] bounds the wait). Returns how long that took.
async fn check(db: &Db, shelf: &str, acked: &Acknowledged, writers: &Writers, when: &str) -> Duration {
    let _held = writers.write().await;
    let acked = acked.lock().unwrap().clone();
    let started = Instant::now();
    loop {
        // The background catch-up may hold the log: pass until one reads all of it.
        while !db.catch_up::<Record>(Shelves::BY_TITLE).await.unwrap().caught_up {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let read = listed(db, shelf).await;
        assert!(read.windows(2).all(|pair| pair[0].title < pair[1].title), "{when}: in order, none twice");
        let read: BTreeMap<String, String> =
            read.into_iter().map(|record| (record.title, record.note)).collect();
        let missing: Vec<&String> = acked
            .iter()
            .filter(|(title, note)| note.is_some() && !read.contains_key(*title))
            .map(|(t, _)| t)
            .collect();
        if !missing.is_empty() {
            assert!(
                started.elapsed() < LAG,
                "{when}: {} acknowledged writes missing: {missing:?}",
                missing.len()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        }
        let back: Vec<&String> = acked
            .iter()
            .filter(|(title, note)| note.is_none() && read.contains_key(*title))
            .map(|(t, _)| t)
            .collect();
        assert!(back.is_empty(), "{when}: deleted items came back: {back:?}");
        let live = acked.values().filter(|note| note.is_some()).count();
        assert_eq!(read.len(), live, "{when}: nothing more than was written");
        return started.elapsed();
    }
}

#[tokio::test]
async fn writers_that_never_see_the_resharding_lose_nothing() {
    let table = unique("ReshardCatchUp");
    let own = crate::own().await;
    let operator = process(&own, &table, Duration::from_millis(100)).await;
    let stale = process(&own, &table, Duration::from_secs(3_600)).await;
    let shelf = unique("catch-up");
    let preload: Vec<Record> = (0..300).map(|n| record(&shelf, n, "first")).collect();
    operator.batch_put(&preload).await.unwrap();
    let acked: Acknowledged =
        Arc::new(Mutex::new(preload.iter().map(|r| (r.title.clone(), Some(r.note.clone()))).collect()));
    // The stale writer reads the resharding state now, before there is one, and keeps it.
    stale.put(&record(&shelf, 9_999, "warm-up")).await.unwrap();
    acked.lock().unwrap().insert(record(&shelf, 9_999, "").title, Some("warm-up".into()));

    let state = operator
        .start_resharding::<Record>(Shelves::BY_TITLE, Shelves::BY_TITLE_NEXT, Layout::hash(32))
        .await
        .unwrap();
    assert_eq!(state.phase, Phase::DualWrites);
    let (stop, held): (_, Writers) = (Arc::new(AtomicBool::new(false)), Arc::default());
    let writers = [
        tokio::spawn(stale_writer(stale.clone(), shelf.clone(), acked.clone(), held.clone(), stop.clone())),
        tokio::spawn(foreign_writer(
            operator.clone(),
            shelf.clone(),
            acked.clone(),
            held.clone(),
            stop.clone(),
        )),
    ];
    let (stop_catch_up, stopped) = tokio::sync::oneshot::channel::<()>();
    let catch_up = {
        let operator = operator.clone();
        tokio::spawn(async move {
            let stopped = async move {
                let _ = stopped.await;
            };
            operator.run_catch_up::<Record>(Shelves::BY_TITLE, Duration::from_millis(100), stopped).await
        })
    };

    operator.backfill::<Record>(Shelves::BY_TITLE, Backfill::default().segments(4)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Writers go on while it verifies: what it finds the catch-up has not placed yet, it repairs.
    let verified =
        operator.verify_resharding::<Record>(Shelves::BY_TITLE, Verify::default().repair()).await.unwrap();
    assert!(verified.is_clean(), "{verified:?}");
    operator.cut_over::<Record>(Shelves::BY_TITLE).await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let lag = check(&operator, &shelf, &acked, &held, "after the cut-over").await;
    eprintln!("placed within {lag:?} after the cut-over");
    let done = operator.finish_resharding::<Record>(Shelves::BY_TITLE, Backfill::default()).await.unwrap();
    assert_eq!(done.phase, Phase::Done);
    tokio::time::sleep(Duration::from_millis(300)).await;

    stop.store(true, Ordering::Relaxed);
    for writer in writers {
        writer.await.unwrap();
    }
    stop_catch_up.send(()).unwrap();
    catch_up.await.unwrap().unwrap();
    let lag = check(&operator, &shelf, &acked, &held, "after the finish").await;
    eprintln!("placed within {lag:?} after the finish");
    // The stale writer wrote through every phase, none of it with the new layout.
    let stale_writes = acked.lock().unwrap().values().filter(|note| note.as_deref() == Some("stale")).count();
    assert!(stale_writes > 50, "{stale_writes}");
}

/// A proxy to `upstream` that holds every request naming `target` (such as
/// `DynamoDB_20120810.PutItem`) for `delay` before passing it on, and what follows it on its
/// connection behind it: a slow network path for one kind of request.
async fn delaying_proxy(upstream: &str, target: &'static str, delay: Duration) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let upstream = upstream.trim_start_matches("http://").trim_end_matches('/').to_owned();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let Ok(server) = tokio::net::TcpStream::connect(&upstream).await else { continue };
            let ((mut from_client, mut to_client), (mut from_server, mut to_server)) =
                (client.into_split(), server.into_split());
            let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
            tokio::spawn(async move {
                let (mut buffer, mut due) = (vec![0; 64 * 1024], Instant::now());
                while let Ok(read @ 1..) = from_client.read(&mut buffer).await {
                    let chunk = buffer[..read].to_vec();
                    let named = chunk.windows(target.len()).any(|window| window == target.as_bytes());
                    due = due.max(Instant::now() + if named { delay } else { Duration::ZERO });
                    if sender.send((due, chunk)).is_err() {
                        break;
                    }
                }
            });
            tokio::spawn(async move {
                while let Some((due, chunk)) = receiver.recv().await {
                    tokio::time::sleep_until(due.into()).await;
                    if to_server.write_all(&chunk).await.is_err() {
                        break;
                    }
                }
                let _ = to_server.shutdown().await;
            });
            tokio::spawn(async move {
                let _ = tokio::io::copy(&mut from_server, &mut to_client).await;
            });
        }
    });
    endpoint
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_that_arrive_25_s_late_lose_nothing() {
    const DELAY: Duration = Duration::from_secs(25);
    let table = unique("ReshardLate");
    let own = crate::own().await;
    let operator = process(&own, &table, Duration::from_millis(100)).await;
    let endpoint = own.endpoint().to_owned();
    let slow_path = delaying_proxy(&endpoint, "DynamoDB_20120810.PutItem", DELAY).await;
    // A writer with the default cache time, and timeouts longer than its network's delay.
    let patient = dynashard::Timeouts::default().attempt(DELAY * 2).operation(DELAY * 3);
    let slow = Db::new(dynashard::client::client_for_endpoint_with(&slow_path, patient))
        .with_streams_client(dynashard::client::streams_client_for_endpoint(&endpoint))
        .with_table_name::<Shelves>(&table)
        .expect("a valid table name")
        .with_shard_metadata(ShardMetadata::new(METADATA));
    let shelf = unique("late");
    let preload: Vec<Record> = (0..50).map(|n| record(&shelf, n, "first")).collect();
    operator.batch_put(&preload).await.unwrap();
    let acked: Acknowledged =
        Arc::new(Mutex::new(preload.iter().map(|r| (r.title.clone(), Some(r.note.clone()))).collect()));

    // Built now, before the resharding starts; they reach DynamoDB after it has cut over.
    slow.resolve_shards(&preload[0]).await.unwrap();
    let late = (0..30).map(|n| {
        let (slow, acked) = (slow.clone(), acked.clone());
        let item = match n % 3 {
            0 => record(&shelf, n, "late overwrite"),
            _ => record(&shelf, 1_000 + n, "late"),
        };
        tokio::spawn(async move {
            slow.put(&item).await.unwrap();
            acked.lock().unwrap().insert(item.title, Some(item.note));
        })
    });
    let late: Vec<_> = late.collect();
    tokio::time::sleep(Duration::from_millis(200)).await; // every put is on its way

    operator
        .start_resharding::<Record>(Shelves::BY_TITLE, Shelves::BY_TITLE_NEXT, Layout::hash(32))
        .await
        .unwrap();
    operator.backfill::<Record>(Shelves::BY_TITLE, Backfill::default()).await.unwrap();
    assert!(operator
        .verify_resharding::<Record>(Shelves::BY_TITLE, Verify::default())
        .await
        .unwrap()
        .is_clean());
    operator.cut_over::<Record>(Shelves::BY_TITLE).await.unwrap();
    assert!(!late.iter().any(|put| put.is_finished()), "cut over before the late writes arrived");
    for put in late {
        put.await.unwrap();
    }
    let held: Writers = Arc::default();
    check(&operator, &shelf, &acked, &held, "late writes after the cut-over").await;
    operator.finish_resharding::<Record>(Shelves::BY_TITLE, Backfill::default()).await.unwrap();
    check(&operator, &shelf, &acked, &held, "late writes after the finish").await;
}

/// Time to live deletes items during the backfill: DynamoDB deletes them itself (a `REMOVE` in the
/// change log, by the service), here between the backfill's scan of a page and its rewrites,
/// which a slow network path holds back. No deleted item comes back, in the table or in either
/// layout; every other item is placed, once, in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn items_time_to_live_deletes_during_the_backfill_stay_deleted() {
    let table = unique("ReshardTtl");
    let own = crate::own().await;
    let operator = process(&own, &table, Duration::from_millis(100)).await;
    let endpoint = own.endpoint().to_owned();
    let slow_path = delaying_proxy(&endpoint, "BatchExecuteStatement", Duration::from_secs(2)).await;
    let backfiller = Db::new(dynashard::client_for_endpoint(&slow_path))
        .with_streams_client(dynashard::client::streams_client_for_endpoint(&endpoint))
        .with_table_name::<Shelves>(&table)
        .expect("a valid table name")
        .with_shard_metadata(ShardMetadata::new(METADATA).cache_for(Duration::from_millis(100)));
    let shelf = unique("ttl");
    let records: Vec<Record> = (0..300).map(|n| record(&shelf, n, "expiring")).collect();
    operator.batch_put(&records).await.unwrap();
    operator
        .start_resharding::<Record>(Shelves::BY_TITLE, Shelves::BY_TITLE_NEXT, Layout::hash(32))
        .await
        .unwrap();
    let backfill = {
        let options = Backfill::default().segments(2).page_size(50);
        tokio::spawn(async move { backfiller.backfill::<Record>(Shelves::BY_TITLE, options).await })
    };
    // While the first pages' rewrites are held on their way: every third item expires.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let expired: Vec<&Record> = records.iter().step_by(3).collect();
    for record in &expired {
        let key = Record::key(&record.shelf, &record.title).unwrap();
        operator
            .client()
            .delete_item()
            .table_name(&table)
            .key("pk", AttributeValue::S(key.pk().to_owned()))
            .key("sk", AttributeValue::S(key.sk().unwrap().to_owned()))
            .send()
            .await
            .unwrap();
    }
    assert!(!backfill.is_finished(), "the deletions came while the backfill ran");
    backfill.await.unwrap().unwrap();

    let kept: Vec<Record> =
        records.iter().skip(1).step_by(3).chain(records.iter().skip(2).step_by(3)).cloned().collect();
    let stored: Vec<dynashard::Item> = operator
        .client()
        .scan()
        .table_name(&table)
        .into_paginator()
        .items()
        .send()
        .try_collect()
        .await
        .unwrap();
    let ours = stored.iter().filter(|item| item.get("pk") == Some(&AttributeValue::S(shelf.clone())));
    assert_eq!(ours.count(), kept.len(), "no deleted item came back, not even as a bare place");
    let verified = operator.verify_resharding::<Record>(Shelves::BY_TITLE, Verify::default()).await.unwrap();
    assert!(verified.is_clean(), "{verified:?}");
    operator.cut_over::<Record>(Shelves::BY_TITLE).await.unwrap();
    let mut expected = kept;
    expected.sort_by(|a, b| a.title.cmp(&b.title));
    assert_eq!(listed(&operator, &shelf).await, expected, "the rest once, in order, from the new layout");
}
