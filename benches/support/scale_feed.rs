//! The change-feed part of the scale benchmark: `n` workers drain a backlog of `n` times
//! [`PER_WORKER`] records from a stream that the emulator splits into `n` shards (DynamoDB gives
//! a busy table's stream many shards; the local backends keep one). Each worker reads one shard
//! at a time (`concurrency(1)`), through the emulator, and its handler spends one round trip a
//! page, as a handler that writes each page downstream does. The work grows with the workers,
//! so the rate of `n` of them is measured on a backlog of the size they would be run for.

use dynashard::changes::ChangePage;
use dynashard::{Db, Entity, Table};
use dynashard_local::emulator::Emulator;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Records of the backlog a worker.
pub const PER_WORKER: usize = 400;
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

/// What the handlers were handed: every record's sequence number once, and how many in all.
#[derive(Default)]
struct Handled {
    distinct: HashSet<String>,
    all: u64,
}

/// One drain: its seconds, the records in the backlog and those handed over more than once.
pub struct Drained {
    pub seconds: f64,
    pub records: usize,
    pub repeated: u64,
}

/// Drains a backlog of `workers` times [`PER_WORKER`] records with `workers` feed workers.
pub async fn drain(
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
    let started = Instant::now();
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
    let seconds = started.elapsed().as_secs_f64();
    for task in tasks {
        task.await.expect("a feed worker's task");
    }
    let repeated = handled.lock().map(|handled| handled.all - handled.distinct.len() as u64).unwrap_or(0);
    direct.delete_table::<Events>().await.expect("delete the table");
    Drained { seconds, records, repeated }
}
