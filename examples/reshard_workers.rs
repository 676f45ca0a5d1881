//! Resharding with many workers: the worker binary pattern. An operator starts the resharding
//! and makes the decisions (verify, cut over, finish); any number of worker processes (here
//! three, re-executions of this binary; in production, a deployment or Lambda invocations) each
//! run the same small loop: join the backfill, keep the catch-up going, join the cleanup.
//!
//! - every worker leases scan segments through the shard metadata table; one that dies is taken
//!   over once its leases expire, from its last recorded position;
//! - the workers share one capacity budget, measured from `ConsumedCapacity`;
//! - progress (segments, items, workers, rate, time left) is read from any process, as the
//!   operator does here and `dynashard reshard --metadata-table ShopMetadata --watch 2` does.
//!
//! ```text
//! cargo run --example reshard_workers
//! ```

use dynashard::reshard::{Backfill, Budget, Layout, Phase, Verify};
use dynashard::{Db, Entity, Table};
use serde::{Deserialize, Serialize};
use std::time::Duration;

#[derive(Table)]
#[table(name = "Shop", pk = "pk", sk = "sk", stream = "new_image", shard_metadata = "ShopMetadata")]
#[gsi(ByDay(pk = "day_pk", sk = "day_sk"))]
#[gsi(ByDayNext(pk = "next_pk", sk = "next_sk"))]
struct Shop;

/// Orders listed by day over 4 hash shards, resharded to 16.
#[derive(Entity, Serialize, Deserialize, Debug, Clone)]
#[entity(table = Shop, pk = "customer#{customer}", sk = "order#{number}")]
#[gsi(ByDay(pk = "{day}", sk = "{number}"))]
#[shard(ByDay(hash = 4, by = number))]
struct Order {
    customer: u32,
    number: u64,
    day: String,
    total_cents: u64,
}

const ORDERS: u64 = 2_000;

/// How every worker runs its share: 12 segments over the workers, 4 at a time each, a lease that
/// expires after 5 s of silence, and together at most 400 write units a second.
fn share(worker: &str) -> Backfill {
    let budget = Budget { write_units: Some(400), read_units: None };
    Backfill::default()
        .segments(12)
        .concurrency(4)
        .lease(Duration::from_secs(5))
        .budget(budget)
        .worker(worker)
}

/// The worker loop: the same in every process, whatever phase it starts in. A step that fails
/// for a while (throttled, timed out, the connection lost) is waited out; every step resumes from
/// what is recorded, so nothing done is lost. Anything else ends the worker.
async fn work(db: &Db, worker: &str) -> dynashard::Result<()> {
    let mut failures = 0;
    loop {
        match step(db, worker).await {
            Ok(true) => return Ok(()),
            Ok(false) => failures = 0,
            Err(error) if error.is_transient() => {
                failures += 1;
                eprintln!("worker {worker}: {error}; trying again");
                tokio::time::sleep(db.retry_policy().backoff(failures)).await;
            }
            Err(error) => return Err(error),
        }
    }
}

/// One step of the loop; `true` once the resharding is finished.
async fn step(db: &Db, worker: &str) -> dynashard::Result<bool> {
    let Some(state) = db.resharding::<Order>(Shop::BY_DAY).await? else { return Ok(true) };
    match state.phase {
        // Returns once every segment is done, by this worker or another.
        Phase::DualWrites => _ = db.backfill::<Order>(Shop::BY_DAY, share(worker)).await?,
        // The operator verifies and cuts over; meanwhile the change log is applied.
        Phase::Backfilled | Phase::CutOver => {
            db.catch_up::<Order>(Shop::BY_DAY).await?;
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        Phase::Done => {
            db.finish_resharding::<Order>(Shop::BY_DAY, share(worker)).await?;
            return Ok(true);
        }
    }
    Ok(false)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let connection = dynashard_local::connect().await?;
    let db = connection.db();
    if let [_, role, name] = args.as_slice() {
        if role == "worker" {
            work(&db, name).await?;
            return Ok(());
        }
    }

    db.create_table::<Shop>().await?; // with its stream and its shard metadata table
    let orders: Vec<Order> = (0..ORDERS)
        .map(|number| Order {
            customer: (number % 500) as u32,
            number,
            day: format!("2026-11-{:02}", 1 + number % 20),
            total_cents: 1_000 + number,
        })
        .collect();
    db.batch_put(&orders).await?;
    db.start_resharding::<Order>(Shop::BY_DAY, Shop::BY_DAY_NEXT, Layout::hash(16)).await?;
    println!("{ORDERS} orders; resharding ByDay from 4 to 16 hash shards with three workers");

    // The workers: this binary again, pointed at the same DynamoDB.
    let exe = std::env::current_exe()?;
    let mut workers = Vec::new();
    for name in ["w1", "w2", "w3"] {
        let child = std::process::Command::new(&exe)
            .args(["worker", name])
            .env("AWS_ENDPOINT_URL_DYNAMODB", connection.url())
            .spawn()?;
        workers.push(child);
    }

    // The operator follows the progress from its own process.
    let mut shown = None;
    loop {
        let Some(progress) = db.resharding_progress::<Order>(Shop::BY_DAY).await? else { break };
        let (done, all) = progress.segments;
        if shown != Some((progress.state.phase, done, progress.scanned)) {
            shown = Some((progress.state.phase, done, progress.scanned));
            println!(
                "  {:?}: {done}/{all} segments, {} scanned, {:.0} write units, workers {:?}",
                progress.state.phase,
                progress.scanned,
                progress.consumed.write_units(),
                progress.workers
            );
        }
        if progress.state.phase != Phase::DualWrites {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let verified = db.verify_resharding::<Order>(Shop::BY_DAY, Verify::default()).await?;
    println!("verified: {} items read, {} found", verified.scanned, verified.found());
    db.cut_over::<Order>(Shop::BY_DAY).await?;
    println!("cut over: queries of ByDay read the 16 shards of ByDayNext");
    let done = db.finish_resharding::<Order>(Shop::BY_DAY, share("operator")).await?;
    for mut worker in workers {
        let status = worker.wait()?;
        if !status.success() {
            return Err(format!("a worker failed: {status}").into());
        }
    }
    let progress = db.resharding_progress::<Order>(Shop::BY_DAY).await?.ok_or("no resharding")?;
    println!(
        "{:?}: the cleanup scanned {} items in {} segments; then declare #[shard(ByDayNext(hash = 16, by = number))]",
        done.phase, progress.scanned, progress.segments.1
    );
    Ok(())
}
