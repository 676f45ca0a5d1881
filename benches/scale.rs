//! Scale-out of the work a resharding and a change feed spread over workers, through the
//! partition-limit emulator at DynamoDB's limits with a round trip of 200 ms a request, so that
//! one worker's rate is bound by the round trip, as against DynamoDB from afar, and not by how
//! fast the local DynamoDB answers (at 64 workers this machine's embedded DynamoDB serves about
//! 400 requests a second: a shorter round trip measures the machine; `SCALE_ROUND_TRIP_MS` sets
//! another). Each worker count works on a table of its own, as large as the count: what `n`
//! workers are measured on is `n` times one worker's work, so that the rate of `n` of them is
//! that of a job they would be run for.
//!
//! - **Scans** (1, 4, 16 and 64 workers, `SCALE_SCAN_WORKERS`): the backfill and the
//!   verification of 800 items a worker (200 B to 8 KB, sizes varying item to item; artists
//!   repeating hundreds of times). The source's partitions are known (`pk = "albums"`, 16 hash
//!   shards), so the scans read them by Query in pieces of about 50 items, 16 a worker, leased
//!   by `n` `db.backfill` calls at once, one piece at a time each, while a catch-up runs
//!   alongside as the guide has it; the verification's, `n` at once. The items are written
//!   while the table's stream is off: they are older than its 24 hours, as most of a table's
//!   are when it is resharded, and the catch-up does not place them all again.
//! - **Streams**: a change feed's backlog (1, 4, 16 and 64 workers, `SCALE_WORKERS`) and a
//!   catch-up's (1, 4, 16 and 64, `SCALE_CATCH_UP_WORKERS`; `SCALE_PARTS=feed` or `catch_up` runs
//!   one of them), over a stream the emulator splits into as many shards as the workers read at
//!   once (see `support/scale_stream.rs`). The catch-up goes through an emulator of its own with
//!   a round trip of 6 s (`SCALE_CATCH_UP_ROUND_TRIP_MS`): one catch-up worker asks as many
//!   conditional writes as its requests in flight allow, and at 200 ms 16 workers would ask more
//!   than the embedded DynamoDB's one thread serves, at 2 s 64 of them (each part prints its
//!   busiest thread).
//!
//! The efficiency of `n` workers is their rate over `n` times one worker's, measured in the same
//! run. Target: at least 0.8 at every count (no budget is set, and the target layout's 64 shards
//! keep every partition far below its limit: the emulator's throttles are printed). The last
//! line is for scripts:
//!
//! ```text
//! scale: round_trip_ms=200 catch_up_round_trip_ms=6000 per_worker=800 backfill=<1:items/s> <4:eff> <16:eff> <64:eff> verify=<...> feed=<1:records/s> <4:eff> <16:eff> <64:eff> catch_up=<1:records/s> <4:eff> <16:eff> <64:eff> worst=<eff> throttled=<n>
//! ```
//!
//! ```text
//! cargo bench --bench scale
//! ```
//!
//! `SCALE_TRACE=1` prints the resharding's events as they come (each segment leased, done or
//! taken over) and the change feeds' (each shard leased, taken first by another, read), with
//! the time, for finding what a slow run waited on.

#[path = "support/machine.rs"]
#[allow(dead_code)] // the watch and the CPU seconds are used
mod machine;
#[path = "support/scale_stream.rs"]
mod scale_stream;

use dynashard::metadata::ShardMetadata;
use dynashard::reshard::{Backfill, Layout, Phase, Verify};
use dynashard::{Db, Entity, Table};
use dynashard_local::emulator::{Emulator, PartitionLimits};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// Items a worker: `n` workers reshard a table of `n` times as many.
const PER_WORKER: usize = 800;
/// Pieces of the scans a worker (50 items each, whatever the count).
const PIECES_PER_WORKER: u32 = 16;
/// Items a scan page: small, so that each segment takes several round trips.
const PAGE: u32 = 10;
/// The round trip, unless `SCALE_ROUND_TRIP_MS` sets another.
const ROUND_TRIP_MS: u64 = 200;
/// The catch-up's round trip, unless `SCALE_CATCH_UP_ROUND_TRIP_MS` sets another: one catch-up
/// worker places about 280 items a second at 200 ms (four shards at once, a page's places in
/// batches of 25, four batches in flight), so 16 of them would ask more conditional writes
/// than this machine's embedded DynamoDB serves; at 2 s, 64 of them ask about 2,500 a second and
/// keep its thread 60% busy, in bursts (0.52 to 0.56); at 6 s, about 850 (38%).
const CATCH_UP_ROUND_TRIP_MS: u64 = 6_000;
/// The worker counts of the change feed, unless `SCALE_WORKERS` lists others (`1,16`); the
/// first is the baseline (of the catch-up's and the scans' counts too).
const WORKERS: [usize; 4] = [1, 4, 16, 64];
/// The worker counts of the catch-up, unless `SCALE_CATCH_UP_WORKERS` lists others.
const CATCH_UP_WORKERS: [usize; 4] = [1, 4, 16, 64];
/// The worker counts of the scans, unless `SCALE_SCAN_WORKERS` lists others.
const SCAN_WORKERS: [usize; 4] = [1, 4, 16, 64];
const METADATA: &str = "ScaleBenchMetadata";

#[derive(Table)]
#[table(
    name = "ScaleBench",
    pk = "pk",
    sk = "sk",
    shard_metadata = "ScaleBenchMetadata",
    stream = "new_image"
)]
#[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
#[gsi(ByTitleNext(pk = "next_pk", sk = "next_sk"))]
struct Bench;

#[derive(Entity, Serialize, Deserialize, Clone)]
#[entity(table = Bench, pk = "{artist}", sk = "album#{title}")]
#[gsi(ByTitle(pk = "albums", sk = "{title}"))]
#[shard(ByTitle(hash = 16, by = title))]
struct Album {
    artist: String,
    title: String,
    notes: String,
}

/// The items: sizes from 200 B to 8 KB by a fixed pseudo-random sequence, and a few artists
/// that most items share (the first artist holds about a third of them).
fn albums(count: usize) -> Vec<Album> {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count)
        .map(|n| {
            let size = 200 + (next() % 7_800) as usize;
            let artist = match next() % 9 {
                0..=2 => 0,
                3..=4 => 1,
                5 => 2,
                _ => 3 + next() % 200,
            };
            Album {
                artist: format!("artist {artist}"),
                title: format!("title {n:06}"),
                notes: "n".repeat(size),
            }
        })
        .collect()
}

/// Seconds the backfill of a fresh resharding took with `workers` workers, and seconds its
/// verification took with as many segments a side.
fn run(runtime: &tokio::runtime::Runtime, setup: &Setup, workers: usize, round: usize) -> (f64, f64) {
    runtime.block_on(async {
        let table = format!("ScaleBench{round}x{workers}");
        let direct = setup.direct.clone().with_table_name::<Bench>(&table).expect("a table name");
        direct.create_table::<Bench>().await.expect("create the table");
        let items = PER_WORKER * workers;
        // The items are older than the stream's 24 hours, as most of a table's are when it is
        // resharded: a stream that held them all would have the catch-up place every one of
        // them again, alongside the backfill (51,200 conditional writes at 64 workers, which
        // bound the backfill to half its rate).
        stream_enabled(&direct, &table, false).await;
        direct.batch_put(&albums(items)).await.expect("the preload");
        stream_enabled(&direct, &table, true).await;
        let db = setup.emulated.clone().with_table_name::<Bench>(&table).expect("a table name");
        db.start_resharding::<Album>(Bench::BY_TITLE, Bench::BY_TITLE_NEXT, Layout::hash(64))
            .await
            .expect("a resharding starts");
        // A catch-up kept running while the workers scan, as the guide has it: the log is applied
        // as it is written, and the backfill's own catch-up at its end has only the tail to read.
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let catch_up = {
            let db = db.clone();
            let stopped = async move { _ = stopped.await };
            tokio::spawn(async move {
                db.run_catch_up::<Album>(Bench::BY_TITLE, Duration::from_millis(100), stopped).await
            })
        };
        let started = Instant::now();
        let backfills = (0..workers).map(|worker| {
            let db = db.clone();
            async move {
                let options = Backfill::default()
                    .segments(PIECES_PER_WORKER * workers as u32)
                    .concurrency(1)
                    .page_size(PAGE)
                    .worker(format!("w{worker}"));
                db.backfill::<Album>(Bench::BY_TITLE, options).await.expect("a backfill")
            }
        });
        let states = futures::future::join_all(backfills).await;
        let backfill = started.elapsed().as_secs_f64();
        _ = stop.send(());
        catch_up.await.expect("the catch-up task").expect("the catch-up");
        assert!(states.iter().all(|state| state.phase == Phase::Backfilled));
        let started = Instant::now();
        let pieces = PIECES_PER_WORKER * workers as u32;
        let options = Verify::default().segments(pieces).concurrency(workers).page_size(PAGE);
        let found = db.verify_resharding::<Album>(Bench::BY_TITLE, options).await.expect("a verification");
        let verify = started.elapsed().as_secs_f64();
        assert!(found.is_clean() && found.scanned == 2 * items as u64, "{found:?}");
        direct.delete_table::<Bench>().await.expect("delete the table");
        (backfill, verify)
    })
}

/// Turns `table`'s stream (of new images) on or off.
async fn stream_enabled(direct: &Db, table: &str, enabled: bool) {
    use aws_sdk_dynamodb::types::{StreamSpecification, StreamViewType};
    let view = enabled.then_some(StreamViewType::NewImage);
    let stream = StreamSpecification::builder().stream_enabled(enabled).set_stream_view_type(view).build();
    let stream = stream.expect("a stream specification");
    direct
        .client()
        .update_table()
        .table_name(table)
        .stream_specification(stream)
        .send()
        .await
        .expect("the stream");
}

struct Setup {
    /// Straight to the backend, for the preload.
    direct: Db,
    /// Through the emulator.
    emulated: Db,
}

fn main() {
    if std::env::var_os("SCALE_TRACE").is_some() {
        use tracing_subscriber::prelude::*;
        let reshard = tracing_subscriber::filter::filter_fn(|event| {
            matches!(event.target(), "dynashard::reshard" | "dynashard::changes")
        });
        tracing_subscriber::registry().with(tracing_subscriber::fmt::layer().with_filter(reshard)).init();
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    let backend =
        dynashard_local::Backend::from_env_or(dynashard_local::Backend::Embedded).expect("a backend");
    let connection = runtime.block_on(dynashard_local::connect_to(backend)).expect("a DynamoDB");
    let knob = |name: &str| std::env::var(name).ok();
    let round_trip = knob("SCALE_ROUND_TRIP_MS").and_then(|millis| millis.trim().parse().ok());
    let round_trip = Duration::from_millis(round_trip.unwrap_or(ROUND_TRIP_MS));
    let catch_up_round_trip =
        knob("SCALE_CATCH_UP_ROUND_TRIP_MS").and_then(|millis| millis.trim().parse().ok());
    let catch_up_round_trip = Duration::from_millis(catch_up_round_trip.unwrap_or(CATCH_UP_ROUND_TRIP_MS));
    let counts_of = |name: &str, default: &[usize]| -> Vec<usize> {
        knob(name)
            .map(|counts| counts.split(',').filter_map(|count| count.trim().parse().ok()).collect())
            .filter(|counts: &Vec<usize>| !counts.is_empty())
            .unwrap_or_else(|| default.to_vec())
    };
    let counts = counts_of("SCALE_WORKERS", &WORKERS);
    let catch_up_counts = counts_of("SCALE_CATCH_UP_WORKERS", &CATCH_UP_WORKERS);
    let scan_counts = counts_of("SCALE_SCAN_WORKERS", &SCAN_WORKERS);
    let emulator = Emulator::start(connection.url(), PartitionLimits::dynamodb().round_trip(round_trip))
        .expect("the emulator");
    let metadata = || ShardMetadata::new(METADATA).cache_for(Duration::from_millis(100));
    let direct = connection.db().with_shard_metadata(metadata());
    runtime.block_on(direct.create_shard_metadata_table()).expect("the metadata table");
    let emulated = Db::new(dynashard::client_for_endpoint(emulator.endpoint()))
        .with_streams_client(dynashard::client::streams_client_for_endpoint(connection.url()))
        .with_shard_metadata(metadata());
    let feeding = Db::new(dynashard::client_for_endpoint(emulator.endpoint()))
        .with_streams_client(dynashard::client::streams_client_for_endpoint(emulator.endpoint()))
        .with_shard_metadata(metadata());
    let catch_up_emulator =
        Emulator::start(connection.url(), PartitionLimits::dynamodb().round_trip(catch_up_round_trip))
            .expect("the catch-up's emulator");
    // A catch-up's first pages come at once, and 64 workers' places of them (256 shards, four
    // batches of 25 conditional writes in flight each: 25,600 writes) wait in the embedded
    // DynamoDB's one thread longer than an attempt's 10 s; DynamoDB would serve them in
    // parallel. So its attempts wait as long as a request can.
    let patient =
        dynashard::Timeouts::default().attempt(Duration::from_secs(60)).operation(Duration::from_secs(60));
    let streams = dynashard::client::streams_client_for_endpoint(catch_up_emulator.endpoint());
    let streams = streams.config().to_builder().timeout_config(patient.to_config()).build();
    // Its leases are as long as its attempts may take: the default 30 s is hundreds of
    // DynamoDB's round trips, and 5 of the catch-up's here; a beat that waits behind 64
    // workers' places longer than a third of the lease fails, and the pass gives up its shards.
    let catching =
        Db::new(dynashard::client::client_for_endpoint_with(catch_up_emulator.endpoint(), patient))
            .with_streams_client(aws_sdk_dynamodbstreams::Client::from_conf(streams))
            .with_shard_metadata(metadata().catch_up_lease(Duration::from_secs(180)));
    let parts = knob("SCALE_PARTS").unwrap_or_else(|| "scans,stream".into());
    let setup = Setup { direct, emulated };

    println!(
        "scale: {PER_WORKER} items and {PIECES_PER_WORKER} pieces a worker, pages of {PAGE}, a round trip of {round_trip:?} ({catch_up_round_trip:?} for the catch-up)"
    );
    let watch = machine::Watch::start();
    let mut rates: Vec<(usize, f64, f64)> = Vec::new();
    let cores = std::thread::available_parallelism().map_or(1, usize::from) as f64;
    for workers in scan_counts.iter().copied().filter(|_| parts.contains("scans")) {
        // The share of the cores this process (the backend, the emulator and the workers) used:
        // near 100%, the machine, not the round trip, bounds the rate.
        let (own, children) = machine::cpu_seconds();
        let threads = machine::thread_seconds();
        let started = Instant::now();
        let (backfill, verify) = run(&runtime, &setup, workers, 0);
        let wall = started.elapsed().as_secs_f64();
        let (own_now, children_now) = machine::cpu_seconds();
        let busy = (own_now + children_now - own - children) / (wall * cores);
        // One thread near 100%: what it runs (the embedded DynamoDB's one SQLite thread, say)
        // binds the rate however many workers wait on it.
        let (busiest, share) = machine::busiest_thread(&threads, &machine::thread_seconds(), wall);
        let items = (PER_WORKER * workers) as f64;
        let (backfill_rate, verify_rate) = (items / backfill, 2.0 * items / verify);
        println!(
            "  {workers:>2} workers: backfill {backfill:>6.2} s ({backfill_rate:>7.0} items/s), verification {verify:>6.2} s ({verify_rate:>7.0} items/s), cores {:.0}% busy, busiest thread {busiest} {:.0}%",
            busy * 100.0,
            share * 100.0
        );
        rates.push((workers, backfill_rate, verify_rate));
    }
    let stream = parts.contains("stream");
    let mut feeds: Vec<(usize, f64)> = Vec::new();
    for workers in counts.iter().copied().filter(|_| stream || parts.contains("feed")) {
        let feed = runtime.block_on(scale_stream::drain_feed(
            &setup.direct,
            &feeding,
            &emulator,
            workers,
            round_trip,
        ));
        let rate = feed.records as f64 / feed.seconds;
        println!(
            "  {workers:>2} workers: feed {} records over {workers} shards {:>6.2} s ({rate:>7.0} records/s, {} handed over again), busiest thread {} {:.0}%",
            feed.records,
            feed.seconds,
            feed.repeated,
            feed.busiest.0,
            feed.busiest.1 * 100.0
        );
        feeds.push((workers, rate));
    }
    let mut catch_ups: Vec<(usize, f64)> = Vec::new();
    for workers in catch_up_counts.iter().copied().filter(|_| stream || parts.contains("catch_up")) {
        let drained = scale_stream::drain_catch_up(
            &setup.direct,
            &catching,
            &catch_up_emulator,
            catch_up_round_trip,
            workers,
        );
        let catch_up = runtime.block_on(drained);
        let rate = catch_up.records as f64 / catch_up.seconds;
        println!(
            "  {workers:>2} workers: catch-up {} over {} shards {:>6.2} s ({rate:>7.0} records/s, {} placed again, {} passes failed for a while), busiest thread {} {:.0}%",
            catch_up.records,
            workers * scale_stream::CATCH_UP_SHARDS,
            catch_up.seconds,
            catch_up.repeated,
            catch_up.failed,
            catch_up.busiest.0,
            catch_up.busiest.1 * 100.0
        );
        catch_ups.push((workers, rate));
    }
    watch.report();
    // The baseline is the first count (one worker unless `SCALE_WORKERS` says otherwise).
    let mut worst = f64::INFINITY;
    let mut line = |name: &str, rates: Vec<(usize, f64)>| {
        let Some(&(baseline, one)) = rates.first() else { return String::new() };
        let parts: Vec<String> = rates[1..]
            .iter()
            .map(|&(workers, rate)| {
                let value = rate * baseline as f64 / (one * workers as f64);
                worst = worst.min(value);
                format!(" {workers}:{value:.2}")
            })
            .collect();
        format!(" {name}={baseline}:{one:.0}{}", parts.concat())
    };
    let backfill = line("backfill", rates.iter().map(|entry| (entry.0, entry.1)).collect());
    let verify = line("verify", rates.iter().map(|entry| (entry.0, entry.2)).collect());
    let feed = line("feed", feeds);
    let catch_up = line("catch_up", catch_ups);
    let throttled = emulator.usage().throttled_requests() + catch_up_emulator.usage().throttled_requests();
    println!(
        "scale: round_trip_ms={} catch_up_round_trip_ms={} per_worker={PER_WORKER}{backfill}{verify}{feed}{catch_up} worst={worst:.2} throttled={throttled}",
        round_trip.as_millis(),
        catch_up_round_trip.as_millis()
    );
}
