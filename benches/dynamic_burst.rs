//! How fast a dynamic shard count reacts: 64 tasks write one logical key as fast as they can,
//! through the partition-limit emulator at 5 write units a partition, first over 16 fixed hash
//! shards (the ceiling, measured in the same run), then over a dynamic count (max 64) that starts
//! at one shard, with the `ShardMetadata` defaults.
//!
//! Each task puts about 1 KB items (a write unit each) one after another; a put still throttled
//! after dynashard's retries is put again after a short back-off, so every put is acknowledged
//! in the end, and its latency runs from its first send to its acknowledgement. Every item
//! acknowledged is read back afterwards: none may be lost or doubled. The last line is for
//! scripts:
//!
//! ```text
//! dynamic_burst: limit=5 hash16=<items/s> dynamic_final=<items/s> reached_0_8_after_s=<s> p50_after_s=<s> p99_after_s=<s> shards=<n> counts=<1-2-4-..> lost=<n> doubled=<n>
//! ```
//!
//! ```text
//! cargo bench --bench dynamic_burst
//! ```

use dynashard::metadata::ShardMetadata;
use dynashard::{Db, Entity, Table};
use dynashard_local::emulator::{Emulator, PartitionLimits};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const METADATA: &str = "DynamicBurstShards";
const TASKS: usize = 64;
/// Write units a second of one partition.
const LIMIT: f64 = 5.0;
/// How long each phase writes.
const PHASE: Duration = Duration::from_secs(30);
/// The note that makes an item about 1 KB (a write unit).
const NOTE_BYTES: usize = 820;

#[derive(Table)]
#[table(name = "DynamicBurstBench", pk = "pk", sk = "sk", shard_metadata = "DynamicBurstShards")]
#[gsi(Fixed(pk = "fixed_pk", sk = "fixed_sk"))]
#[gsi(Grown(pk = "grown_pk", sk = "grown_sk"))]
struct Bench;

/// One reading of a sensor, over 16 fixed hash shards.
#[derive(Entity, Serialize, Deserialize, Clone)]
#[entity(table = Bench, pk = "fixed#{id}", sk = "reading")]
#[gsi(Fixed(pk = "sensor#{sensor}", sk = "{id}"))]
#[shard(Fixed(hash = 16, by = id))]
struct FixedReading {
    id: String,
    sensor: String,
    note: String,
}

/// ... over a dynamic count.
#[derive(Entity, Serialize, Deserialize, Clone)]
#[entity(table = Bench, pk = "grown#{id}", sk = "reading")]
#[gsi(Grown(pk = "sensor#{sensor}", sk = "{id}"))]
#[shard(Grown(dynamic, max = 64))]
struct GrownReading {
    id: String,
    sensor: String,
    note: String,
}

/// What one phase saw: the acknowledgements of each second, and each put's (start, latency).
#[derive(Default)]
struct Phase {
    per_second: Vec<u64>,
    puts: Vec<(Duration, Duration)>,
    acknowledged: Vec<String>,
}

/// Runs `TASKS` tasks putting `make(n)` one after another for `PHASE`.
async fn burst<E, F>(db: &Db, make: F) -> Phase
where
    E: Entity + Send + Sync + 'static,
    F: Fn(u64) -> (String, E) + Clone + Send + Sync + 'static,
{
    let start = Instant::now();
    let seen =
        Arc::new(Mutex::new(Phase { per_second: vec![0; PHASE.as_secs() as usize + 1], ..Phase::default() }));
    let tasks: Vec<_> = (0..TASKS as u64)
        .map(|task| {
            let (db, make, seen) = (db.clone(), make.clone(), seen.clone());
            tokio::spawn(async move {
                for k in 0.. {
                    let began = start.elapsed();
                    if began >= PHASE {
                        return;
                    }
                    let (id, item) = make(k * TASKS as u64 + task);
                    let mut backoff = Duration::from_millis(10);
                    loop {
                        match db.put(&item).await {
                            Ok(()) => break,
                            Err(error) if error.is_throttled() => {
                                tokio::time::sleep(backoff).await;
                                backoff = (backoff * 2).min(Duration::from_millis(200));
                            }
                            Err(error) => panic!("a put failed: {error}"),
                        }
                    }
                    let done = start.elapsed();
                    let mut seen = seen.lock().expect("not poisoned");
                    if let Some(second) = seen.per_second.get_mut(done.as_secs() as usize) {
                        *second += 1;
                    }
                    seen.puts.push((began, done - began));
                    seen.acknowledged.push(id);
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("a task");
    }
    let phase = std::mem::take(&mut *seen.lock().expect("not poisoned"));
    phase
}

/// The mean rate of the seconds from `from` to the phase's end.
fn rate_from(per_second: &[u64], from: usize) -> f64 {
    let seconds = &per_second[from.min(per_second.len())..PHASE.as_secs() as usize];
    seconds.iter().sum::<u64>() as f64 / seconds.len().max(1) as f64
}

/// The quantile `q` of `values`, in seconds.
fn quantile(values: &mut [Duration], q: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort();
    let at = ((values.len() - 1) as f64 * q).round() as usize;
    values[at].as_secs_f64()
}

/// Items lost (acknowledged, not read back) and doubled (read back more than once).
fn losses(acknowledged: &[String], read: &[String]) -> (usize, usize) {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for id in read {
        *seen.entry(id).or_default() += 1;
    }
    let lost = acknowledged.iter().filter(|id| !seen.contains_key(id.as_str())).count();
    (lost, seen.values().filter(|count| **count > 1).count())
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    let connection = runtime.block_on(dynashard_local::connect()).expect("a DynamoDB");
    // Reads back past the emulator, so that they are not throttled.
    let direct = Db::new(connection.client().clone()).with_shard_metadata(ShardMetadata::new(METADATA));
    runtime.block_on(async {
        direct.create_table::<Bench>().await.expect("create table");
        direct.create_shard_metadata_table().await.expect("metadata table");
    });
    let limits = PartitionLimits::dynamodb().write_units(LIMIT);
    let emulator = Emulator::start(connection.url(), limits).expect("the emulator");
    // A client as users have one (the SDK's own retries on), and the metadata defaults.
    let db = Db::new(dynashard::client_for_endpoint(emulator.endpoint()))
        .with_shard_metadata(ShardMetadata::new(METADATA));
    let run = std::process::id();
    let note = "x".repeat(NOTE_BYTES);

    let sensor = format!("fixed-{run}");
    let fixed = runtime.block_on(burst(&db, {
        let (sensor, note) = (sensor.clone(), note.clone());
        move |n| {
            let id = format!("{n:08}");
            (id.clone(), FixedReading { id, sensor: sensor.clone(), note: note.clone() })
        }
    }));
    let read: Vec<FixedReading> =
        runtime.block_on(direct.stream(FixedReading::query_fixed(&sensor)).try_collect()).expect("read back");
    let (fixed_lost, fixed_doubled) =
        losses(&fixed.acknowledged, &read.into_iter().map(|reading| reading.id).collect::<Vec<_>>());
    let ceiling = rate_from(&fixed.per_second, 5);

    let sensor = format!("grown-{run}");
    let grown = runtime.block_on(burst(&db, {
        let (sensor, note) = (sensor.clone(), note.clone());
        move |n| {
            let id = format!("{n:08}");
            (id.clone(), GrownReading { id, sensor: sensor.clone(), note: note.clone() })
        }
    }));
    let read: Vec<GrownReading> =
        runtime.block_on(direct.stream(GrownReading::query_grown(&sensor)).try_collect()).expect("read back");
    let (grown_lost, grown_doubled) =
        losses(&grown.acknowledged, &read.into_iter().map(|reading| reading.id).collect::<Vec<_>>());
    let state = runtime.block_on(db.shard_state(&GrownReading::query_grown(&sensor))).expect("shard state");
    let counts: Vec<String> = state.history.iter().map(|entry| entry.count.to_string()).collect();

    // The first second from which two seconds in a row reach 0.8 of the ceiling.
    let reached = (0..grown.per_second.len().saturating_sub(1)).find(|&second| {
        grown.per_second[second..second + 2].iter().all(|count| *count as f64 >= 0.8 * ceiling)
    });
    let after = reached.unwrap_or(PHASE.as_secs() as usize);
    let mut latencies: Vec<Duration> = grown
        .puts
        .iter()
        .filter(|(began, _)| began.as_secs() as usize >= after)
        .map(|(_, latency)| *latency)
        .collect();
    let (p50, p99) = (quantile(&mut latencies, 0.5), quantile(&mut latencies, 0.99));
    let timeline: Vec<String> = grown.per_second.iter().map(u64::to_string).collect();
    println!(
        "16 fixed hash shards: {ceiling:.0} items/s from the 5th second on (per second: {:?})",
        fixed.per_second
    );
    println!("dynamic count: per second {}", timeline.join(" "));
    println!("  counts {} ; reached 0.8 of the ceiling after {after} s", counts.join(" -> "));
    println!(
        "dynamic_burst: limit={LIMIT} hash16={ceiling:.0} dynamic_final={:.0} reached_0_8_after_s={} \
         p50_after_s={p50:.2} p99_after_s={p99:.2} shards={} counts={} lost={} doubled={}",
        rate_from(&grown.per_second, after),
        reached.map_or_else(|| "never".to_owned(), |second| second.to_string()),
        state.count,
        counts.join("-"),
        fixed_lost + grown_lost,
        fixed_doubled + grown_doubled
    );
    drop(emulator);
    drop(connection);
}
