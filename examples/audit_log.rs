//! A file-access audit log whose hot file gets more shards as writes to it are throttled
//! (seed: choosing the number of shards dynamically).
//!
//! Every access is an item under its own id; the index `ByFile` lists one file's accesses in time
//! order. Its partition key, `file#{path}`, is declared `dynamic`: it starts at one shard, and a
//! metadata table keeps its count, when the count last changed and every change. Writers pick a
//! random shard below the count; when a write is throttled, they raise the count (doubling it
//! while the throttling goes on, at most once per cooldown, however many writers are
//! throttled) and retry on the wider shard space.
//!
//! DynamoDB Local never throttles, so the hot file's writes go through the partition-limit
//! emulator ([`dynashard_local::emulator`]) at a twenty-fifth of DynamoDB's limits: 40 write units per
//! second per partition. `/shared/firetvGen2.txt` turns hot with a burst of four partitions'
//! worth of writes; each partition over its limit answers `IndexWriteKeyRangeThroughputExceeded`
//! for `ByFile`, and the count grows until the file's partitions carry the burst. The example
//! prints the rate the file sustained each second, and its count.
//!
//! A second index, `Feed`, lists every access of every file in time order, spread over 16
//! hash shards by access id. As the log grows, it is resharded online to 32 shards, phase by
//! phase, while writers keep writing and readers keep reading.
//!
//! ```text
//! cargo run --example audit_log
//! ```

use dynashard::metadata::{ShardMetadata, ShardState};
use dynashard::reshard::{Backfill, Layout, Verify};
use dynashard::{Db, Entity, RetryPolicy, Table};
use dynashard_local::emulator::{Emulator, PartitionLimits};
use futures::TryStreamExt;
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Table)]
#[table(name = "AuditLog", pk = "pk", sk = "sk", shard_metadata = "AuditShardMetadata", stream = "new_image")]
#[gsi(ByFile(pk = "file_pk", sk = "file_sk"))]
#[gsi(Feed(pk = "feed_pk", sk = "feed_sk"))]
#[gsi(FeedNext(pk = "feed_next_pk", sk = "feed_next_sk"))]
struct AuditLog;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = AuditLog, pk = "access#{id}", sk = "access")]
#[gsi(ByFile(pk = "file#{path}", sk = "{at}#{id}"))]
#[shard(ByFile(dynamic, max = 32))]
#[gsi(Feed(pk = "feed", sk = "{at}#{id}"))]
#[shard(Feed(hash = 16, by = id))]
struct FileAccess {
    id: String,
    path: String,
    /// Unix milliseconds.
    at: u64,
    user: String,
}

const HOT: &str = "/shared/firetvGen2.txt";
const COLD: [&str; 3] = ["/home/ana/notes.md", "/srv/www/index.html", "/etc/hosts"];
const WRITERS: usize = 32;
const HOT_WRITES: usize = 1_600;
/// Accesses of the hot file offered per second: four partitions' worth.
const OFFERED: usize = 160;
/// The emulator's limits: a twenty-fifth of DynamoDB's (40 write units per second per partition).
const SCALE: f64 = 0.04;
/// 2019-07-11T15:28:32Z, the seed's last change of the hot file's count.
const START: u64 = 1_562_858_912_000;

fn metadata() -> ShardMetadata {
    ShardMetadata::new("AuditShardMetadata")
        .cooldown(Duration::from_millis(400))
        .backoff(Duration::from_millis(50))
        .cache_for(Duration::from_millis(100))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let connection = dynashard_local::connect().await?;
    let db = connection.db().with_shard_metadata(metadata());
    db.create_table::<AuditLog>().await?;
    db.create_shard_metadata_table().await?;

    // Quiet files: a few accesses each, one shard each.
    for (n, path) in COLD.iter().enumerate() {
        for i in 0..20u64 {
            db.put(&access(path, (n as u64) * 100 + i, "ana")).await?;
        }
    }

    // The hot file: 32 writers offering 160 accesses a second, through the emulator.
    let emulator = Emulator::start(connection.url(), PartitionLimits::dynamodb().scaled(SCALE))?;
    let limited = Db::new(dynashard::client_for_endpoint(emulator.endpoint()))
        .with_shard_metadata(metadata())
        .with_retry_policy(RetryPolicy::new(50, Duration::from_millis(5), Duration::from_millis(100)));
    let limit = PartitionLimits::dynamodb().scaled(SCALE).partition_write_units();
    println!(
        "{HOT} turns hot: {HOT_WRITES} accesses from {WRITERS} writers at {OFFERED} a second; \
         each partition takes {limit} write units a second"
    );
    let started = Instant::now();
    let written = Arc::new(Mutex::new(Vec::new()));
    let writers = (0..WRITERS).map(|writer| {
        let (db, written) = (limited.clone(), written.clone());
        tokio::spawn(async move {
            let pace = Duration::from_secs_f64(WRITERS as f64 / OFFERED as f64);
            let mut due = tokio::time::Instant::now() + pace.mul_f64(writer as f64 / WRITERS as f64);
            for n in (writer..HOT_WRITES).step_by(WRITERS) {
                tokio::time::sleep_until(due).await;
                db.put(&access(HOT, 10_000 + n as u64, &format!("user-{}", n % 97))).await?;
                written.lock().map_err(|_| "a writer panicked")?.push(started.elapsed());
                due = (due + pace).max(tokio::time::Instant::now());
            }
            Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
        })
    });
    let counts = {
        let db = db.clone();
        tokio::spawn(async move {
            let mut counts = Vec::new();
            loop {
                tokio::time::sleep(Duration::from_secs(1)).await;
                counts.push(
                    db.shard_state(&FileAccess::query_by_file(HOT)).await.map_or(0, |state| state.count),
                );
            }
            #[allow(unreachable_code)]
            counts
        })
    };
    for writer in futures::future::join_all(writers).await {
        writer?.map_err(|error| error.to_string())?;
    }
    counts.abort();
    let seconds = started.elapsed().as_secs_f64();
    let written = std::mem::take(&mut *written.lock().map_err(|_| "a writer panicked")?);
    let mut per_second = vec![0u32; seconds.ceil() as usize];
    for at in &written {
        per_second[at.as_secs() as usize] += 1;
    }
    let usage = emulator.usage();
    let throttled: u64 =
        usage.partitions_of("AuditLog", Some("ByFile")).map(|(_, c)| c.throttled_writes).sum();
    println!("  accesses written each second: {per_second:?}");
    println!(
        "  sustained {} a second on one shard, up to {} a second once the count grew; {throttled} writes \
         throttled and retried, in {seconds:.1} s",
        per_second.first().copied().unwrap_or(0),
        per_second.iter().max().copied().unwrap_or(0),
    );
    drop(emulator);

    let hot = db.shard_state(&FileAccess::query_by_file(HOT)).await?;
    print_history(HOT, &hot);
    for path in COLD {
        let state = db.shard_state(&FileAccess::query_by_file(path)).await?;
        println!("{path}: {} shard (never throttled)", state.count);
    }

    // Every access of the hot file, back in time order from all its shards.
    let stream = db.stream(FileAccess::query_by_file(HOT));
    let stats = stream.stats().clone();
    let log: Vec<FileAccess> = stream.try_collect().await?;
    let in_order = log.windows(2).all(|pair| (pair[0].at, &pair[0].id) < (pair[1].at, &pair[1].id));
    println!(
        "\nread back {} accesses of {HOT} from {} shards in {} requests; in time order: {in_order}",
        log.len(),
        hot.readable(),
        stats.requests()
    );
    assert_eq!(log.len(), HOT_WRITES, "every access exactly once");
    assert!(in_order);

    // The burst is over: fewer shards for new writes, the old ones still read.
    let lowered = db.set_shard_count(&FileAccess::query_by_file(HOT), 2).await?;
    db.put(&access(HOT, 99_999, "night-job")).await?;
    let after: Vec<FileAccess> = db.stream(FileAccess::query_by_file(HOT)).try_collect().await?;
    println!(
        "lowered to {} shards for writes; readers still read {} shards: {} accesses",
        lowered.count,
        lowered.readable(),
        after.len()
    );
    for entry in after.iter().rev().take(3).rev() {
        println!("  {}  {:<10} {}", time(entry.at), entry.user, entry.id);
    }

    reshard_feed(&db).await
}

/// Reshards the feed from 16 to 32 hash shards while a writer keeps logging accesses.
async fn reshard_feed(db: &Db) -> Result<(), Box<dyn std::error::Error>> {
    let before: Vec<FileAccess> = db.stream(FileAccess::query_feed()).try_collect().await?;
    println!(
        "\nthe feed: {} accesses over 16 hash shards; resharding it to 32 while writes go on",
        before.len()
    );
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (db, stop) = (db.clone(), stop.clone());
        tokio::spawn(async move {
            let mut n = 200_000u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                db.put(&access(COLD[n as usize % 3], n, "live")).await?;
                n += 1;
            }
            Ok::<u64, dynashard::Error>(n - 200_000)
        })
    };
    let started =
        db.start_resharding::<FileAccess>(AuditLog::FEED, AuditLog::FEED_NEXT, Layout::hash(32)).await?;
    println!("  1. {:?}: writes fill Feed (16 shards) and FeedNext (32)", started.phase);
    let bar = ProgressBar::new(before.len() as u64)
        .with_style(ProgressStyle::with_template("     backfill {bar:40} {pos}/{len} scanned")?);
    let progress = bar.clone();
    // An audit log only ever gains entries, so the backfill can write whole items in batches:
    // existing entries are frozen until it ends, new ones keep coming in.
    let options = Backfill::default()
        .batched()
        .on_progress(move |state| progress.set_position(state.backfill_totals().0));
    let backfilled = db.backfill::<FileAccess>(AuditLog::FEED, options).await?;
    bar.finish_and_clear();
    let (scanned, written) = backfilled.backfill_totals();
    println!(
        "  2. {:?}: {scanned} items scanned, {written} placed in batches (the rest were dual-written)",
        backfilled.phase
    );
    let verified = db.verify_resharding::<FileAccess>(AuditLog::FEED, Verify::default()).await?;
    println!("verified: {} items read, {} found", verified.scanned, verified.found());
    let cut = db.cut_over::<FileAccess>(AuditLog::FEED).await?;
    println!("  3. {:?}: queries of Feed read the 32 shards of FeedNext", cut.phase);
    let done = db.finish_resharding::<FileAccess>(AuditLog::FEED, Backfill::default()).await?;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let live = writer.await??;
    println!(
        "  4. {:?}: Feed's attributes removed; {live} accesses were written during the move",
        done.phase
    );

    let stream = db.stream(FileAccess::query_feed());

    let stats = stream.stats().clone();
    let after: Vec<FileAccess> = stream.try_collect().await?;
    let in_order = after.windows(2).all(|pair| (pair[0].at, &pair[0].id) < (pair[1].at, &pair[1].id));
    println!(
        "the feed now: {} accesses from {} shards in {} requests; in time order: {in_order}",
        after.len(),
        done.layout.shards(),
        stats.requests()
    );
    assert_eq!(after.len() as u64, before.len() as u64 + live, "every access exactly once");
    assert!(in_order);
    Ok(())
}

fn access(path: &str, n: u64, user: &str) -> FileAccess {
    FileAccess {
        id: format!("{:08x}", n.wrapping_mul(2_654_435_761)),
        path: path.to_owned(),
        at: START + n * 250,
        user: user.to_owned(),
    }
}

fn print_history(path: &str, state: &ShardState) {
    let first = state.history.first().map_or(0, |entry| entry.at);
    let steps: Vec<String> =
        state.history.iter().map(|entry| format!("{} at +{} ms", entry.count, entry.at - first)).collect();
    println!("{path}: {} shards now; history: {}", state.count, steps.join(", "));
}

/// `HH:MM:SS.mmm` of a unix-millisecond time.
fn time(at: u64) -> String {
    let (seconds, millis) = (at / 1_000, at % 1_000);
    format!("{:02}:{:02}:{:02}.{millis:03}", seconds / 3_600 % 24, seconds / 60 % 60, seconds % 60)
}
