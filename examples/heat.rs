//! A heat map of partition keys from the partition-limit emulator: clicks written to one index
//! key, views of the same volume to the same index over four hash shards, and both to their
//! users' keys (a few users write most). The click key goes over its partition's limit and is
//! throttled; the view shards stay cool.
//!
//! ```text
//! cargo run --example heat [directory]
//! ```
//!
//! Prints the map and writes `heat.svg`, `heat.html` and `heat.json` (for `dynashard heat`) into
//! the directory (`target/heat` by default). Runs against `AWS_ENDPOINT_URL_DYNAMODB` when set;
//! otherwise it starts DynamoDB Local by itself.

use dynashard::{Db, Entity, Table};
use dynashard_local::emulator::{Emulator, PartitionLimits};
use futures::{FutureExt, StreamExt};
use serde::{Deserialize, Serialize};
use std::future::IntoFuture;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// What a partition may take a second here: low, so that a laptop's traffic shows heat.
const PARTITION_WRITE_UNITS: f64 = 160.0;
/// Writes a second of each kind, for how long.
const WRITES_PER_SECOND: usize = 200;
const SECONDS: u64 = 6;
const USERS: u32 = 50;

#[derive(Table)]
#[table(name = "HeatExample", pk = "pk", sk = "sk")]
#[gsi(ByFeed(pk = "feed_pk", sk = "feed_sk"))]
#[gsi(ByUser(pk = "user_pk", sk = "user_sk"))]
struct Events;

/// A click: every one under one feed key.
#[derive(Entity, Serialize, Deserialize, Clone)]
#[entity(table = Events, pk = "click#{id}", sk = "click")]
#[gsi(ByFeed(pk = "clicks", sk = "{id}"))]
#[gsi(ByUser(pk = "user#{user}", sk = "click#{id}"))]
struct Click {
    id: u64,
    user: u32,
}

/// A view: the feed key in four hash shards.
#[derive(Entity, Serialize, Deserialize, Clone)]
#[entity(table = Events, pk = "view#{id}", sk = "view")]
#[gsi(ByFeed(pk = "views", sk = "{id}"))]
#[shard(ByFeed(hash = 4, by = id))]
#[gsi(ByUser(pk = "user#{user}", sk = "view#{id}"))]
struct View {
    id: u64,
    user: u32,
}

/// A user drawn from a Zipf law over `USERS` (exponent 1.2), from a fixed generator.
fn user(state: &mut u64) -> u32 {
    *state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
    let uniform = (*state >> 11) as f64 / (1u64 << 53) as f64;
    let total: f64 = (1..=USERS).map(|rank| 1.0 / f64::from(rank).powf(1.2)).sum();
    let mut sum = 0.0;
    for rank in 1..=USERS {
        sum += 1.0 / f64::from(rank).powf(1.2) / total;
        if uniform <= sum {
            return rank;
        }
    }
    USERS
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let directory = std::env::args().nth(1).unwrap_or_else(|| "target/heat".into());
    let connection = dynashard_local::connect().await?;
    Db::new(connection.client().clone()).create_table::<Events>().await?;
    let emulator =
        Emulator::start(connection.url(), PartitionLimits::dynamodb().write_units(PARTITION_WRITE_UNITS))?;
    let db = Db::new(dynashard::client_for_endpoint(emulator.endpoint()));

    let db = &db;
    let recording = emulator.record_heat(Duration::from_millis(250));
    let (started, mut random, mut id) = (Instant::now(), 7u64, 0u64);
    let mut throttled = 0usize;
    for tick in 0..SECONDS * 10 {
        // A tenth of a second's writes of each kind, 32 at a time.
        let mut writes = Vec::new();
        for _ in 0..WRITES_PER_SECOND / 10 {
            id += 1;
            let (click, view) = (Click { id, user: user(&mut random) }, View { id, user: user(&mut random) });
            writes.push(async move { db.put(&click).into_future().await.err() }.boxed());
            writes.push(async move { db.put(&view).into_future().await.err() }.boxed());
        }
        let failed: Vec<_> = futures::stream::iter(writes)
            .buffer_unordered(32)
            .filter_map(|error| async { error })
            .collect()
            .await;
        throttled += failed.iter().filter(|error| error.is_throttled()).count();
        if let Some(error) = failed.into_iter().find(|error| !error.is_throttled()) {
            return Err(error.into());
        }
        let next = Duration::from_millis(100 * (tick + 1));
        tokio::time::sleep(next.saturating_sub(started.elapsed())).await;
    }
    let map = recording.finish();

    print!("{}", map.terminal(120, std::io::stdout().is_terminal()));
    println!("{throttled} writes still throttled after the SDK's retries");
    std::fs::create_dir_all(&directory)?;
    std::fs::write(format!("{directory}/heat.svg"), map.svg())?;
    std::fs::write(format!("{directory}/heat.html"), map.html())?;
    std::fs::write(format!("{directory}/heat.json"), serde_json::to_string(&map)?)?;
    println!("wrote {directory}/heat.svg, heat.html and heat.json (`dynashard heat {directory}/heat.json`)");
    let hottest = map.over_limit();
    assert!(
        hottest.first().is_some_and(|over| over.place.partition_key == "clicks"),
        "the one click key is the hottest over its limit"
    );
    assert!(
        hottest.iter().all(|over| !over.place.partition_key.starts_with("views")),
        "the view shards stay under it"
    );
    Ok(())
}
