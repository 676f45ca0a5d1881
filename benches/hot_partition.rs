//! Sharding proven against partition limits: one logical key offered five partitions' worth of
//! writes, through the partition-limit emulator in front of DynamoDB Local.
//!
//! The machine's own rate of 1 KB puts through the emulator is measured first, and the
//! per-partition write limit `L` is set to a tenth of it, so the machine can offer `5 L` items per
//! second with room to spare. Each phase then offers `5 L` items per second of one file's
//! accesses (about 1 KB each) for a fixed time, from writers that each keep a steady pace and
//! retry throttled puts (without catching up afterwards, so the offer never exceeds `5 L`):
//!
//! - **unsharded**: the file's index partition takes about `L`;
//! - **hash = 8**: eight partitions take the whole offer (target: at least 0.85 of it);
//! - **dynamic**: the count starts at one shard and grows on key-range throttling of the index,
//!   to between 5 and 7 shards, then stops;
//! - **dynamic, table limited**: the same with the table provisioned at `3 L` write units: table
//!   throttling gets back-off and never more shards (target: 4 or fewer).
//!
//! Every item acknowledged is read back from the index afterwards: none may be lost or doubled.
//! The last line is for scripts:
//!
//! ```text
//! hot_partition: limit=<L> offered=<items/s> unsharded=<items/s> hash8=<items/s> dynamic=<items/s> dynamic_shards=<n> table_limited_shards=<n> lost=<n> doubled=<n>
//! ```
//!
//! ```text
//! cargo bench --bench hot_partition
//! ```

use aws_sdk_dynamodb::config::retry::RetryConfig;
use dynashard::metadata::ShardMetadata;
use dynashard::query::FromItem;
use dynashard::{Db, Entity, Error, Query, RetryPolicy, Table};
use dynashard_local::emulator::{Emulator, PartitionLimits, TableLimit};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const TABLE: &str = "HotPartitionBench";
const METADATA: &str = "HotPartitionBenchShards";
/// How long each phase offers its load.
const PHASE: Duration = Duration::from_secs(20);
/// How long writers may go on retrying what they hold when a phase ends.
const DRAIN: Duration = Duration::from_secs(20);
const WRITERS: usize = 96;
/// The note that makes an item about 1 KB (and one write unit).
const NOTE_BYTES: usize = 820;

#[derive(Table)]
#[table(name = "HotPartitionBench", pk = "pk", sk = "sk")]
#[gsi(Plain(pk = "plain_pk", sk = "plain_sk"))]
#[gsi(Hashed(pk = "hashed_pk", sk = "hashed_sk"))]
#[gsi(Dynamic(pk = "dynamic_pk", sk = "dynamic_sk"))]
struct Bench;

/// One access of a file, listed by file in an unsharded index.
#[derive(Entity, Serialize, Deserialize, Clone)]
#[entity(table = Bench, pk = "plain#{id}", sk = "access")]
#[gsi(Plain(pk = "file#{path}", sk = "{at}#{id}"))]
struct PlainAccess {
    id: String,
    path: String,
    at: u64,
    note: String,
}

/// ... over 8 hash shards.
#[derive(Entity, Serialize, Deserialize, Clone)]
#[entity(table = Bench, pk = "hashed#{id}", sk = "access")]
#[gsi(Hashed(pk = "file#{path}", sk = "{at}#{id}"))]
#[shard(Hashed(hash = 8, by = id))]
struct HashedAccess {
    id: String,
    path: String,
    at: u64,
    note: String,
}

/// ... over a dynamic count of shards.
#[derive(Entity, Serialize, Deserialize, Clone)]
#[entity(table = Bench, pk = "dynamic#{id}", sk = "access")]
#[gsi(Dynamic(pk = "file#{path}", sk = "{at}#{id}"))]
#[shard(Dynamic(dynamic, max = 32))]
struct DynamicAccess {
    id: String,
    path: String,
    at: u64,
    note: String,
}

/// What one phase achieved.
struct Outcome {
    /// Items acknowledged within the phase, per second.
    sustained: f64,
    /// Every item acknowledged (within the phase or while draining).
    acknowledged: Vec<String>,
    throttled: u64,
    /// Items still throttled when the drain time was over (not acknowledged).
    abandoned: u64,
}

/// Offers `rate` items per second for `PHASE`, from `WRITERS` writers that each offer their
/// share at a steady pace and retry a throttled put until it is written (or the drain time is
/// over). A writer held up by retries does not catch up afterwards: the offer never exceeds
/// `rate`, as a fleet of clients with a fixed request rate behaves.
async fn offer<F, Fut>(rate: f64, write: F) -> Outcome
where
    F: Fn(u64) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<String, Error>> + Send,
{
    let start = tokio::time::Instant::now();
    let end = start + PHASE;
    let interval = Duration::from_secs_f64(WRITERS as f64 / rate);
    let in_time = Arc::new(AtomicU64::new(0));
    let throttled = Arc::new(AtomicU64::new(0));
    let abandoned = Arc::new(AtomicU64::new(0));
    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    let writers: Vec<_> = (0..WRITERS as u64)
        .map(|writer| {
            let (in_time, throttled, abandoned, acknowledged, write) =
                (in_time.clone(), throttled.clone(), abandoned.clone(), acknowledged.clone(), write.clone());
            tokio::spawn(async move {
                // Writers start spread over one interval, so the offer is even from the start.
                let mut due = start + interval.mul_f64(writer as f64 / WRITERS as f64);
                for k in 0.. {
                    if due >= end {
                        return;
                    }
                    tokio::time::sleep_until(due).await;
                    let n = k * WRITERS as u64 + writer;
                    let mut backoff = Duration::from_millis(5);
                    loop {
                        match write(n).await {
                            Ok(id) => {
                                if tokio::time::Instant::now() <= end {
                                    in_time.fetch_add(1, Ordering::Relaxed);
                                }
                                acknowledged.lock().expect("not poisoned").push(id);
                                break;
                            }
                            Err(error) if error.is_throttled() => {
                                if tokio::time::Instant::now() >= end + DRAIN {
                                    abandoned.fetch_add(1, Ordering::Relaxed);
                                    break; // never acknowledged: neither written nor lost
                                }
                                throttled.fetch_add(1, Ordering::Relaxed);
                                let jitter = rand_fraction(n) * backoff.as_secs_f64();
                                tokio::time::sleep(Duration::from_secs_f64(jitter)).await;
                                backoff = (backoff * 2).min(Duration::from_millis(200));
                            }
                            Err(error) => panic!("put failed: {error}"),
                        }
                    }
                    due = (due + interval).max(tokio::time::Instant::now());
                }
            })
        })
        .collect();
    for writer in writers {
        writer.await.expect("a writer");
    }
    let acknowledged = std::mem::take(&mut *acknowledged.lock().expect("not poisoned"));
    Outcome {
        sustained: in_time.load(Ordering::Relaxed) as f64 / PHASE.as_secs_f64(),
        acknowledged,
        throttled: throttled.load(Ordering::Relaxed),
        abandoned: abandoned.load(Ordering::Relaxed),
    }
}

/// A number in `0.5..1.0` that varies with `seed` and time: jitter without a generator.
fn rand_fraction(seed: u64) -> f64 {
    let nanos = Instant::now().elapsed().as_nanos() as u64 ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    0.5 + (nanos % 1_000) as f64 / 2_000.0
}

fn note() -> String {
    "x".repeat(NOTE_BYTES)
}

/// Items lost (acknowledged, not read back) and doubled (read back more than once).
fn count_losses(acknowledged: &[String], read: &[String]) -> (usize, usize) {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for id in read {
        *seen.entry(id).or_default() += 1;
    }
    let lost = acknowledged.iter().filter(|id| !seen.contains_key(id.as_str())).count();
    let doubled = seen.values().filter(|count| **count > 1).count();
    (lost, doubled)
}

/// The three ways of listing one file's accesses.
trait Access: Entity + FromItem + Send + Sync + 'static {
    fn new(id: String, path: String, at: u64) -> Self;
    fn id(&self) -> &str;
}

macro_rules! access {
    ($($name:ident),*) => {$(
        impl Access for $name {
            fn new(id: String, path: String, at: u64) -> Self {
                Self { id, path, at, note: note() }
            }
            fn id(&self) -> &str {
                &self.id
            }
        }
    )*};
}
access!(PlainAccess, HashedAccess, DynamicAccess);

/// Offers accesses of `path` at `rate` through `db`; then reads the file's listing back past the
/// emulator (`direct`), as ids.
async fn phase<A: Access, F>(
    db: &Db,
    direct: &Db,
    rate: f64,
    path: &str,
    query: fn(&str) -> Query<A, F>,
) -> (Outcome, Vec<String>) {
    let outcome = offer(rate, {
        let (db, path) = (db.clone(), path.to_owned());
        move |n| {
            let (db, id) = (db.clone(), format!("{path}-{n}"));
            let access = A::new(id.clone(), path.clone(), n);
            async move { db.put(&access).await.map(|()| id) }
        }
    })
    .await;
    let listed: Vec<A> = direct.stream(query(path)).try_collect().await.expect("read back");
    (outcome, listed.iter().map(|access| access.id().to_owned()).collect())
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    let connection = runtime
        .block_on(dynashard_local::connect_to(
            dynashard_local::Backend::from_env_or(dynashard_local::Backend::Local).expect("a backend"),
        ))
        .expect("DynamoDB Local");
    // Reads back past the emulator, so that they are not throttled.
    let direct = Db::new(connection.client().clone()).with_shard_metadata(ShardMetadata::new(METADATA));
    runtime.block_on(async {
        direct.create_table::<Bench>().await.expect("create table");
        direct.create_shard_metadata_table().await.expect("metadata table");
    });
    // Calibration: the machine's rate of 1 KB puts through an emulator whose limits it cannot
    // reach (DynamoDB's own, over eight partitions).
    let emulator = Emulator::start(connection.url(), PartitionLimits::dynamodb()).expect("the emulator");
    let client = dynashard::client_for_endpoint(emulator.endpoint());
    let client = aws_sdk_dynamodb::Client::from_conf(
        client.config().to_builder().retry_config(RetryConfig::disabled()).build(),
    );
    let shards = ShardMetadata::new(METADATA)
        .cooldown(Duration::from_millis(1_500))
        .backoff(Duration::from_millis(100))
        .cache_for(Duration::from_millis(250));
    let db = Db::new(client).with_shard_metadata(shards).with_retry_policy(RetryPolicy::new(
        8,
        Duration::from_millis(10),
        Duration::from_millis(200),
    ));
    let calibration = runtime.block_on(async {
        let db = db.clone();
        let start = Instant::now();
        let done = Arc::new(AtomicU64::new(0));
        let writers: Vec<_> = (0..32)
            .map(|writer| {
                let (db, done) = (db.clone(), done.clone());
                tokio::spawn(async move {
                    let mut n = 0u64;
                    while start.elapsed() < Duration::from_secs(4) {
                        let access = HashedAccess {
                            id: format!("calibrate-{writer}-{n}"),
                            path: "calibrate".into(),
                            at: n,
                            note: note(),
                        };
                        db.put(&access).await.expect("a calibration put");
                        n += 1;
                        done.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        for writer in writers {
            writer.await.expect("a writer");
        }
        done.load(Ordering::Relaxed) as f64 / start.elapsed().as_secs_f64()
    });
    let limit = (calibration / 10.0).floor().clamp(10.0, 1_000.0);
    let offered = 5.0 * limit;
    let limits = PartitionLimits::dynamodb().write_units(limit);
    println!(
        "machine: {calibration:.0} puts/s of 1 KB items through the emulator; limit L = {limit:.0} write units/s \
         per partition, offered {offered:.0} items/s for {} s per phase",
        PHASE.as_secs()
    );

    let run = |phase: &'static str| -> String { format!("{phase}-{}", std::process::id()) };

    emulator.set_limits(limits.clone());
    let path = run("plain");
    let (unsharded, unsharded_read) =
        runtime.block_on(phase(&db, &direct, offered, &path, PlainAccess::query_plain));
    report("unsharded", offered, &unsharded);

    let path = run("hashed");
    let (hashed, hashed_read) =
        runtime.block_on(phase(&db, &direct, offered, &path, HashedAccess::query_hashed));
    report("hash = 8", offered, &hashed);

    let dynamic_phase = |name: &'static str| {
        let path = run(name);
        let started_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let (outcome, read) =
            runtime.block_on(phase(&db, &direct, offered, &path, DynamicAccess::query_dynamic));
        let state =
            runtime.block_on(db.shard_state(&DynamicAccess::query_dynamic(&path))).expect("shard state");
        let counts: Vec<String> = state.history.iter().map(|entry| entry.count.to_string()).collect();
        let last = state.history.last().map_or(0, |entry| entry.at.saturating_sub(started_ms));
        let history = format!(
            "{} (the last change {:.1} s into the {} s phase)",
            counts.join(" -> "),
            last as f64 / 1_000.0,
            PHASE.as_secs()
        );
        (outcome, read, state.count, history)
    };
    emulator.set_limits(limits.clone());
    let (dynamic, dynamic_read, dynamic_shards, history) = dynamic_phase("dynamic");
    report("dynamic", offered, &dynamic);
    println!("  shard counts: {history}");

    emulator.set_limits(limits.clone().table(TABLE, TableLimit::provisioned().write_units(3.0 * limit)));
    let (limited, limited_read, limited_shards, history) = dynamic_phase("limited");
    report("dynamic, table provisioned at 3 L", offered, &limited);
    println!("  shard counts: {history}");

    let mut lost = 0;
    let mut doubled = 0;
    for (outcome, read) in [
        (&unsharded, &unsharded_read),
        (&hashed, &hashed_read),
        (&dynamic, &dynamic_read),
        (&limited, &limited_read),
    ] {
        let (l, d) = count_losses(&outcome.acknowledged, read);
        lost += l;
        doubled += d;
    }
    println!(
        "hot_partition: limit={limit:.0} offered={offered:.0} unsharded={:.0} hash8={:.0} dynamic={:.0} \
         dynamic_shards={dynamic_shards} table_limited_shards={limited_shards} lost={lost} doubled={doubled}",
        unsharded.sustained, hashed.sustained, dynamic.sustained
    );
    drop(emulator);
    drop(connection);
}

fn report(name: &str, offered: f64, outcome: &Outcome) {
    println!(
        "{name}: sustained {:.0} items/s of {offered:.0} offered ({:.2}x), {} acknowledged, {} throttled requests, \
         {} given up",
        outcome.sustained,
        outcome.sustained / offered,
        outcome.acknowledged.len(),
        outcome.throttled,
        outcome.abandoned
    );
}
