//! The stream parts of the scale benchmark: `n` workers drain a backlog that grows with `n`
//! from a stream that the emulator splits into as many shards as they read at once (DynamoDB
//! gives a busy table's stream many shards; the local backends keep one), all through the
//! emulator.
//! A change feed's workers read one shard at a time (`concurrency(1)`), and the handler spends
//! one round trip a page, as a handler that writes each page downstream does; a resharding's
//! catch-up workers read four shards at once, as they do, over four times as many shards, and
//! place each item written into the target layout. The work grows with the
//! workers, so the rate of `n` of them is measured on a backlog of the size they would be run
//! for.

use dynashard::changes::ChangePage;
use dynashard::reshard::Layout;
use dynashard::{Db, Entity, Table};
use dynashard_local::emulator::{Emulator, PartitionLimits};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Records of a feed's backlog a worker (and a shard: one each).
pub const PER_WORKER: usize = 400;
/// Shards of the stream a catch-up worker: as many as one reads at once.
pub const CATCH_UP_SHARDS: usize = 4;
/// Records of a catch-up's backlog a shard.
const PER_CATCH_UP_SHARD: usize = 200;
/// Records a page of the stream.
const PAGE: u32 = 25;

#[derive(Table)]
#[table(
    name = "ScaleFeed",
    pk = "pk",
    sk = "sk",
    shard_metadata = "ScaleBenchMetadata",
    stream = "new_image"
)]
pub struct Events;

#[derive(Entity, Serialize, Deserialize, Clone)]
#[entity(table = Events, pk = "event#{id}", sk = "event")]
struct Event {
    id: u32,
    body: String,
}

#[derive(Table)]
#[table(
    name = "ScaleCatchUp",
    pk = "pk",
    sk = "sk",
    shard_metadata = "ScaleBenchMetadata",
    stream = "new_image"
)]
#[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
#[gsi(ByTitleNext(pk = "next_pk", sk = "next_sk"))]
pub struct Catalog;

#[derive(Entity, Serialize, Deserialize, Clone)]
#[entity(table = Catalog, pk = "record#{id}", sk = "record")]
#[gsi(ByTitle(pk = "records", sk = "{title}"))]
#[shard(ByTitle(hash = 16, by = title))]
struct Record {
    id: u32,
    title: String,
    body: String,
}

/// What the handlers were handed: every record's sequence number once, and how many in all.
#[derive(Default)]
struct Handled {
    distinct: HashSet<String>,
    all: u64,
}

/// One drain: its seconds, the records in the backlog and those handed over more than once,
/// and the thread of this process that was busiest while it drained (its name and share of
/// the drain's time: near 100%, what it runs bounds the rate).
pub struct Drained {
    pub seconds: f64,
    pub records: usize,
    pub repeated: u64,
    pub busiest: (String, f64),
    /// Passes that failed for a while and were tried again (catch-up workers only).
    pub failed: u64,
}

/// When a drain started: its time, and what each thread had used by then.
struct Started {
    at: Instant,
    threads: std::collections::HashMap<(u32, u32), (String, f64)>,
}

impl Started {
    fn now() -> Self {
        Self { threads: crate::machine::thread_seconds(), at: Instant::now() }
    }

    /// The seconds since, and the thread busiest meanwhile.
    fn seconds_and_busiest(&self) -> (f64, (String, f64)) {
        let seconds = self.at.elapsed().as_secs_f64();
        (seconds, crate::machine::busiest_thread(&self.threads, &crate::machine::thread_seconds(), seconds))
    }
}

/// Drains a backlog of `workers` times [`PER_WORKER`] records with `workers` feed workers.
pub async fn drain_feed(
    direct: &Db,
    emulated: &Db,
    emulator: &Emulator,
    workers: usize,
    round_trip: Duration,
) -> Drained {
    let table = format!("ScaleFeed{workers}");
    let direct = direct.clone().with_table_name::<Events>(&table).expect("a table name");
    direct.create_table::<Events>().await.expect("create the table");
    let db = emulated.clone().with_table_name::<Events>(&table).expect("a table name");
    let feed = |worker: usize| {
        let feed = db.change_feed::<Events>("scale").expect("a feed");
        feed.concurrency(1).page_size(PAGE).lease(Duration::from_secs(10)).worker(format!("w{worker}"))
    };
    // The split is made at the feed's first request: the empty shard closes, `workers` children
    // hold every record written after it.
    emulator.split_stream(&table, workers as u32);
    feed(0).begin().await.expect("the feed begins");
    let records = workers * PER_WORKER;
    let events: Vec<Event> = (0..records as u32)
        .map(|id| Event { id, body: "e".repeat(150 + (id as usize * 37) % 100) })
        .collect();
    direct.batch_put(&events).await.expect("the backlog");

    let handled = Arc::new(Mutex::new(Handled::default()));
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let stop = Arc::new(stop);
    let started = Started::now();
    let tasks: Vec<_> = (0..workers)
        .map(|worker| {
            let (feed, handled, stop, mut stopped) =
                (feed(worker), handled.clone(), stop.clone(), stopped.clone());
            tokio::spawn(async move {
                let handler = |page: ChangePage| {
                    let (handled, stop) = (handled.clone(), stop.clone());
                    async move {
                        tokio::time::sleep(round_trip).await; // the page written downstream
                        let mut handled = handled.lock().expect("the tally");
                        handled.all += page.records.len() as u64;
                        handled
                            .distinct
                            .extend(page.records.into_iter().filter_map(|record| record.sequence_number));
                        if handled.distinct.len() >= records {
                            _ = stop.send(true);
                        }
                        Ok(())
                    }
                };
                let stopped = async move { _ = stopped.wait_for(|stop| *stop).await };
                feed.run(handler, Duration::from_millis(100), stopped).await.expect("a feed worker")
            })
        })
        .collect();
    stopped.clone().wait_for(|stop| *stop).await.expect("the backlog is drained");
    let (seconds, busiest) = started.seconds_and_busiest();
    for task in tasks {
        task.await.expect("a feed worker's task");
    }
    let repeated = handled.lock().map(|handled| handled.all - handled.distinct.len() as u64).unwrap_or(0);
    direct.delete_table::<Events>().await.expect("delete the table");
    Drained { seconds, records, repeated, busiest, failed: 0 }
}

/// Drains a backlog of items written during a resharding with `workers` catch-up workers, each
/// running passes until every item has its place: [`CATCH_UP_SHARDS`] shards a worker (each
/// reads that many at once), of 200 records each.
pub async fn drain_catch_up(
    direct: &Db,
    emulated: &Db,
    emulator: &Emulator,
    round_trip: Duration,
    workers: usize,
) -> Drained {
    let table = format!("ScaleCatchUp{workers}");
    let direct = direct.clone().with_table_name::<Catalog>(&table).expect("a table name");
    direct.create_table::<Catalog>().await.expect("create the table");
    let db = emulated.clone().with_table_name::<Catalog>(&table).expect("a table name");
    // Until the backlog is written (the resharding's start, the first passes, which find
    // nothing to place), requests take the other parts' round trip: at the catch-up's, the 256
    // empty shards of 64 workers take minutes to read.
    emulator.set_limits(PartitionLimits::dynamodb().round_trip(SETUP_ROUND_TRIP));
    db.start_resharding::<Record>(Catalog::BY_TITLE, Catalog::BY_TITLE_NEXT, Layout::hash(64))
        .await
        .expect("a resharding starts");
    // The split is made at the first pass: the empty shard closes, `workers` children hold
    // every record written after it.
    emulator.split_stream(&table, (workers * CATCH_UP_SHARDS) as u32);
    // The first passes, by every worker, until every shard was read (the empty parent to its
    // end, then its children, which the workers share as they would share them running: alone,
    // the worker that read the parent would read them all, `CATCH_UP_SHARDS` at a time).
    let children = workers * CATCH_UP_SHARDS;
    let all_read = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let first: Vec<_> = (0..workers)
        .map(|_| {
            let (db, all_read) = (db.clone(), all_read.clone());
            tokio::spawn(async move {
                while !all_read.load(Ordering::Relaxed) {
                    db.catch_up::<Record>(Catalog::BY_TITLE).await.expect("a first pass");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            })
        })
        .collect();
    while leases_taken(&direct, &table).await < children {
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    all_read.store(true, Ordering::Relaxed);
    for pass in first {
        pass.await.expect("a worker's first passes");
    }
    emulator.set_limits(PartitionLimits::dynamodb().round_trip(round_trip));
    let records = workers * CATCH_UP_SHARDS * PER_CATCH_UP_SHARD;
    let items: Vec<Record> = (0..records as u32)
        .map(|id| Record {
            id,
            title: format!("title {id:06}"),
            body: "r".repeat(150 + (id as usize * 37) % 100),
        })
        .collect();
    // Written past dynashard (as a writer that knows nothing of the resharding writes): only the
    // catch-up gives them their place in the target layout.
    raw_put(&direct, &table, &items).await;

    let tally = Arc::new(Tally::default());
    let (done, finished) = tokio::sync::watch::channel(false);
    let (started, usage) = (Started::now(), emulator.usage());
    let tasks: Vec<_> = (0..workers)
        .map(|_| {
            let (db, tally, finished) = (db.clone(), tally.clone(), finished.clone());
            tokio::spawn(async move {
                while !*finished.borrow() {
                    // A pass that fails for a while is tried again, as `run_catch_up` does.
                    match db.catch_up::<Record>(Catalog::BY_TITLE).await {
                        Ok(pass) => _ = tally.placed.fetch_add(pass.placed, Ordering::Relaxed),
                        Err(error) if error.is_transient() => tally.fail(&error),
                        Err(error) => panic!("a catch-up pass: {error}"),
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            })
        })
        .collect();
    // Drained once the target index holds every item: a pass reports what it placed only at its
    // end, and goes on after its shards to the records of its own places (and to any shard
    // left), so the passes' reports come later than the places.
    // Counting the index is a scan of it on the thread that serves every worker: once a second.
    let trace = std::env::var_os("SCALE_TRACE").is_some();
    loop {
        let placed = placed_in_target(&direct, &table).await;
        if trace {
            let reported = tally.placed.load(Ordering::Relaxed);
            println!("  ({:.0} s: {placed} placed, {reported} reported)", started.at.elapsed().as_secs_f64());
        }
        if placed >= records {
            break;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    let (seconds, busiest) = started.seconds_and_busiest();
    _ = done.send(true);
    // What the drain asked of the metadata (leases, records, fences) and of the table.
    let used = emulator.usage().since(&usage);
    let (metadata, data) = (used.total("ScaleBenchMetadata", None), used.total(&table, None));
    println!(
        "  ({workers} workers: metadata {:.0} read and {:.0} write units, the table {:.0} read units)",
        metadata.read_units, metadata.write_units, data.read_units
    );
    // The passes under way end (nothing is left to place), so that every place is reported.
    let mut stopped = 0;
    for task in tasks {
        let abort = task.abort_handle();
        match tokio::time::timeout(PASSES_END, task).await {
            Ok(ended) => ended.expect("a catch-up worker's task"),
            Err(_) => {
                abort.abort();
                stopped += 1;
            }
        }
    }
    // Placed more than once: an item placed again after a pass lost its shard's lease.
    let repeated = tally.placed.load(Ordering::Relaxed).saturating_sub(records as u64);
    let failed = tally.failed.load(Ordering::Relaxed);
    for (kind, count) in tally.failures.lock().expect("the failures").iter() {
        println!("  ({count} passes failed with: {kind})");
    }
    if stopped > 0 {
        println!(
            "  ({stopped} workers' passes were stopped before they ended: what they placed is not counted)"
        );
    }
    direct.delete_table::<Catalog>().await.expect("delete the table");
    Drained { seconds, records, repeated, busiest, failed }
}

/// The round trip of a catch-up's first passes.
const SETUP_ROUND_TRIP: Duration = Duration::from_millis(200);

/// How long the passes under way when a drain ends are waited for.
const PASSES_END: Duration = Duration::from_secs(120);

/// What the catch-up workers' passes reported: items placed, and passes that failed.
#[derive(Default)]
struct Tally {
    placed: AtomicU64,
    failed: AtomicU64,
    /// How often each kind of failure came (its message, without the request ids).
    failures: Mutex<std::collections::BTreeMap<String, u64>>,
}

impl Tally {
    /// Counts a pass that failed for a while.
    fn fail(&self, error: &dynashard::Error) {
        self.failed.fetch_add(1, Ordering::Relaxed);
        let kind: String = error.to_string().chars().take(160).collect();
        *self.failures.lock().expect("the failures").entry(kind).or_default() += 1;
    }
}

/// Items with their place in the target layout: those the target index holds (0 when the count
/// fails: it is tried again a moment later).
async fn placed_in_target(direct: &Db, table: &str) -> usize {
    let mut pages = direct
        .client()
        .scan()
        .table_name(table)
        .index_name("ByTitleNext")
        .select(aws_sdk_dynamodb::types::Select::Count)
        .into_paginator()
        .send();
    let mut count = 0;
    while let Some(page) = pages.next().await {
        let Ok(page) = page else { return 0 };
        count += page.count as usize;
    }
    count
}

/// The catch-up's shard leases of `table` that were acquired and are not ended: those of the
/// parent's children that were read, or are read now (their passes are awaited).
async fn leases_taken(direct: &Db, table: &str) -> usize {
    use aws_sdk_dynamodb::types::AttributeValue;
    let prefix = format!("feed/{table}/");
    let mut pages = direct.client().scan().table_name("ScaleBenchMetadata").into_paginator().send();
    let mut count = 0;
    while let Some(page) = pages.next().await {
        let page = page.expect("a scan of the metadata");
        let taken = page.items().iter().filter(|item| {
            let partition = item.get("partition").and_then(|value| value.as_s().ok());
            let fence = item.get("fence").and_then(|value| value.as_n().ok());
            // A lease item has `since`; the feed's record and fence counter do not.
            partition.is_some_and(|key| key.starts_with(&prefix))
                && item.contains_key("since")
                && fence.is_some_and(|fence| fence != "0")
                && matches!(item.get("ended"), Some(AttributeValue::Bool(false)))
        });
        count += taken.count();
    }
    count
}

/// Writes `items` to `table` with the SDK's `BatchWriteItem`, as dynashard would without the
/// resharding: their keys in the source layout only.
async fn raw_put(db: &Db, table: &str, items: &[Record]) {
    use aws_sdk_dynamodb::types::{PutRequest, WriteRequest};
    for chunk in items.chunks(25) {
        let mut requests: Vec<WriteRequest> = chunk
            .iter()
            .map(|item| {
                let item = dynashard::item::to_item(item).expect("an item");
                let put = PutRequest::builder().set_item(Some(item)).build().expect("a put");
                WriteRequest::builder().put_request(put).build()
            })
            .collect();
        while !requests.is_empty() {
            let written = db.client().batch_write_item().request_items(table, requests).send().await;
            let written = written.expect("a batch write");
            requests = written.unprocessed_items.and_then(|mut left| left.remove(table)).unwrap_or_default();
        }
    }
}
