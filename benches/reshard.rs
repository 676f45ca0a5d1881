//! A conditional resharding backfill (hash 16 to 32) run by 1, 2 and 4 workers, against a
//! hand-written loop doing the same writes over the same items (a parallel scan of the source
//! index, 8 segments, conditional `UPDATE`s 25 to a `BatchExecuteStatement`, 2 requests in flight
//! a segment, as the backfill does by default), and a run held to a write budget. Every run uses
//! a table of its own on a DynamoDB Local of its own (or on `AWS_ENDPOINT_URL_DYNAMODB`),
//! imported with the same items (200 B to 4 KB; 50 titles, each repeating hundreds of times).
//! Afterwards every item's place is checked: `lost` counts items without their place in the new
//! layout, `doubled` writes beyond one per item.
//!
//! Prints one summary line:
//! `reshard: items=… workers=1,2,4 items_per_s=…,…,… loop_items_per_s=… per_worker_vs_loop=…,…,…
//! budget_wcu=… consumed_wcu_per_s=… budget_ratio=… budget_ratio_2_of_8=… lost=0 doubled=0 verify_s=…
//! with_catch_up_s=…`.
//! Rates are of the scan (to its last page written: the writes the loop makes too);
//! `with_catch_up_s` adds the catch-up that follows it (the import's records in the stream, read
//! back and found placed). `budget_ratio` is of two workers holding all 8 segments,
//! `budget_ratio_2_of_8` of two holding one segment each at a time (`.concurrency(1)`). Targets:
//! the one-worker backfill at least 0.9x the loop; consumed write units a second within 10% of the
//! budget, in both runs.
//!
//! ```text
//! cargo bench --bench reshard                      # 10,000 items; DYNASHARD_BENCH_ITEMS=n for more
//! ```

use aws_sdk_dynamodb::types::{AttributeValue, BatchStatementRequest};
use dynashard::metadata::ShardMetadata;
use dynashard::reshard::{Backfill, Budget, Layout, Verify};
use dynashard::shard::hash_shard;
use dynashard::{Db, Entity, Item, Table};
use futures::stream::{self, StreamExt, TryStreamExt};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

#[derive(Table)]
#[table(
    name = "ReshardBench",
    pk = "pk",
    sk = "sk",
    shard_metadata = "ReshardBenchMetadata",
    stream = "new_image"
)]
#[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
#[gsi(ByTitleNext(pk = "next_pk", sk = "next_sk"))]
struct Bench;

#[derive(Entity, Serialize, Deserialize, Clone)]
#[entity(table = Bench, pk = "{artist}", sk = "album#{title}#{n}")]
#[gsi(ByTitle(pk = "albums", sk = "{title}#{n}"))]
#[shard(ByTitle(hash = 16, by = title))]
struct Album {
    artist: String,
    title: String,
    n: u64,
    notes: String,
}

fn albums(items: usize) -> Vec<Album> {
    (0..items as u64)
        .map(|n| Album {
            artist: format!("artist {}", n % 997),
            // Skewed: 50 titles, each repeating hundreds of times.
            title: format!("title {:02}", (n * n) % 50),
            n,
            // 200 B to 4 KB items.
            notes: "x".repeat(100 + (n as usize * 7919) % 3_900),
        })
        .collect()
}

fn db(connection: &dynashard_local::Connection, run: &str) -> Db {
    // DynamoDB Local takes its time with batches of 4 KB items.
    let patient =
        dynashard::Timeouts::default().attempt(Duration::from_secs(60)).operation(Duration::from_secs(180));
    Db::new(dynashard::client::client_for_endpoint_with(connection.url(), patient))
        .with_streams_client(dynashard::client::streams_client_for_endpoint(connection.url()))
        .with_table_name::<Bench>(format!("ReshardBench{run}-{}", std::process::id()))
        .expect("a valid table name")
        .with_shard_metadata(ShardMetadata::new("ReshardBenchMetadata").cache_for(Duration::from_millis(10)))
}

/// A table of its own for `run`, imported, its resharding started.
async fn prepared(connection: &dynashard_local::Connection, run: &str, albums: &[Album]) -> Db {
    let db = db(connection, run);
    db.create_table::<Bench>().await.expect("create table");
    db.create_shard_metadata_table().await.expect("create metadata table");
    for chunk in albums.chunks(1_000) {
        db.batch_put(chunk).await.unwrap_or_else(|error| panic!("import: {error}"));
    }
    db.start_resharding::<Album>(Bench::BY_TITLE, Bench::BY_TITLE_NEXT, Layout::hash(32))
        .await
        .expect("start");
    db
}

/// `(lost, doubled)`: items without their place in the new layout, and writes beyond one an item.
async fn check(db: &Db, items: usize) -> (usize, u64) {
    let stored: Vec<Item> = db
        .client()
        .scan()
        .table_name(db.table_name::<Bench>())
        .projection_expression("title, next_pk")
        .into_paginator()
        .items()
        .send()
        .try_collect()
        .await
        .expect("scan");
    let placed = stored
        .iter()
        .filter(|item| {
            let title = item.get("title").and_then(|title| title.as_s().ok());
            let next = item.get("next_pk").and_then(|next| next.as_s().ok());
            matches!((title, next), (Some(title), Some(next)) if *next == format!("albums#{}", hash_shard(title, 32)))
        })
        .count();
    let state = db.resharding::<Album>(Bench::BY_TITLE).await.expect("state").expect("started");
    let written = state.backfill_totals().1;
    (items - placed.min(items), written.saturating_sub(items as u64))
}

/// The backfill by `workers` workers (each a `Db` of its own, as a process would be) working on
/// up to `concurrency` of the 8 segments at once each; returns
/// the time its scan took (to the last page written: the writes the loop makes too), the time
/// with the catch-up that follows, and the write units the scan consumed.
async fn backfill(
    connection: &dynashard_local::Connection,
    run: &str,
    (workers, concurrency): (usize, usize),
    budget: Option<Budget>,
) -> (Duration, Duration, f64) {
    let started = Instant::now();
    let last_page = std::sync::Arc::new(std::sync::Mutex::new(started));
    let runs = (0..workers).map(|worker| {
        let db = db(connection, run);
        let last_page = std::sync::Arc::clone(&last_page);
        let mut options = Backfill::default()
            .segments(8)
            .concurrency(concurrency)
            .worker(format!("w{worker}"))
            .on_progress(move |_| *last_page.lock().expect("lock") = Instant::now());
        if let Some(budget) = budget {
            options = options.budget(budget);
        }
        async move { db.backfill::<Album>(Bench::BY_TITLE, options).await.expect("backfill") }
    });
    let states = futures::future::join_all(runs).await;
    let took = started.elapsed();
    let scanned = last_page.lock().expect("lock").duration_since(started);
    (scanned, took, states[0].consumed().write_units())
}

/// The same writes by hand: a parallel scan of the source index, conditional updates 25 to a
/// request, 2 requests in flight a segment.
async fn hand_written(db: &Db) -> Duration {
    let table = db.table_name::<Bench>().to_owned();
    let started = Instant::now();
    let segments = (0..8).map(|segment| {
        let (db, table) = (db.clone(), table.clone());
        async move {
            let mut start = None;
            loop {
                let page = db
                    .client()
                    .scan()
                    .table_name(&table)
                    .index_name("ByTitle")
                    .segment(segment)
                    .total_segments(8)
                    .set_exclusive_start_key(start)
                    .send()
                    .await
                    .expect("scan");
                let statements: Vec<BatchStatementRequest> =
                    page.items().iter().map(|item| statement(&table, item)).collect();
                stream::iter(statements.chunks(25).map(<[_]>::to_vec))
                    .map(|chunk| db.client().batch_execute_statement().set_statements(Some(chunk)).send())
                    .buffer_unordered(2)
                    .try_collect::<Vec<_>>()
                    .await
                    .expect("batch");
                match page.last_evaluated_key {
                    Some(last) => start = Some(last),
                    None => break,
                }
            }
        }
    });
    futures::future::join_all(segments).await;
    started.elapsed()
}

/// The conditional update that places `item` in the new layout, as the backfill writes it.
fn statement(table: &str, item: &Item) -> BatchStatementRequest {
    let text = |name: &str| item.get(name).cloned().unwrap_or(AttributeValue::Null(true));
    let title = item.get("title").and_then(|title| title.as_s().ok()).cloned().unwrap_or_default();
    BatchStatementRequest::builder()
        .statement(format!(
            "UPDATE \"{table}\" SET \"next_pk\" = ? SET \"next_sk\" = ? WHERE \"pk\" = ? AND \"sk\" = ? \
             AND \"title_pk\" = ? AND \"title_sk\" = ? AND \"title\" = ?"
        ))
        .set_parameters(Some(vec![
            AttributeValue::S(format!("albums#{}", hash_shard(&title, 32))),
            text("title_sk"),
            text("pk"),
            text("sk"),
            text("title_pk"),
            text("title_sk"),
            text("title"),
        ]))
        .build()
        .expect("statement")
}

/// A DynamoDB Local of its own for one run (or the endpoint of `AWS_ENDPOINT_URL_DYNAMODB`):
/// DynamoDB Local's writes slow down as its streams grow, which would tax the later runs.
async fn fresh() -> dynashard_local::Connection {
    dynashard_local::connect_to(
        dynashard_local::Backend::from_env_or(dynashard_local::Backend::Local).expect("a backend"),
    )
    .await
    .expect("DynamoDB Local")
}

fn main() {
    let items: usize =
        std::env::var("DYNASHARD_BENCH_ITEMS").ok().and_then(|items| items.parse().ok()).unwrap_or(10_000);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    let albums = albums(items);
    runtime.block_on(async {
        let connection = fresh().await;
        let baseline = prepared(&connection, "loop", &albums).await;
        let loop_time = hand_written(&baseline).await;
        let (missing, _) = check(&baseline, items).await;
        assert_eq!(missing, 0, "the loop placed every item");
        drop(connection);
        let loop_rate = items as f64 / loop_time.as_secs_f64();
        let (mut rates, mut per_worker, mut lost, mut doubled) = (Vec::new(), Vec::new(), 0, 0);
        let (mut wcu_per_s, mut verify_s, mut totals) = (0.0, 0.0, Vec::new());
        for workers in [1, 2, 4] {
            let (connection, run) = (fresh().await, format!("w{workers}"));
            let db = prepared(&connection, &run, &albums).await;
            let (took, with_catch_up, consumed) = backfill(&connection, &run, (workers, 8 / workers), None).await;
            totals.push(format!("{:.1}", with_catch_up.as_secs_f64()));
            let rate = items as f64 / took.as_secs_f64();
            rates.push(format!("{rate:.0}"));
            per_worker.push(format!("{:.2}", rate / workers as f64 / loop_rate));
            let (missing, twice) = check(&db, items).await;
            (lost, doubled) = (lost + missing, doubled + twice);
            if workers == 1 {
                wcu_per_s = consumed / took.as_secs_f64();
                let started = Instant::now();
                let verified =
                    db.verify_resharding::<Album>(Bench::BY_TITLE, Verify::default()).await.expect("verify");
                verify_s = started.elapsed().as_secs_f64();
                assert!(verified.is_clean(), "{verified:?}");
            }
        }
        // Half of what one worker consumed unheld: the budget is then the limit.
        let budget = (wcu_per_s / 2.0).max(1.0) as u32;
        let connection = fresh().await;
        let db = prepared(&connection, "budget", &albums).await;
        let held = Budget { write_units: Some(budget), read_units: None };
        let (took, _, consumed) = backfill(&connection, "budget", (2, 4), Some(held)).await;
        let consumed_per_s = consumed / took.as_secs_f64();
        let (missing, twice) = check(&db, items).await;
        (lost, doubled) = (lost + missing, doubled + twice);
        // The same budget, the workers holding 2 of the 8 segments between them at a time.
        let connection = fresh().await;
        let db = prepared(&connection, "budget_held", &albums).await;
        let (took, _, consumed) = backfill(&connection, "budget_held", (2, 1), Some(held)).await;
        let consumed_held_per_s = consumed / took.as_secs_f64();
        let (missing, twice) = check(&db, items).await;
        (lost, doubled) = (lost + missing, doubled + twice);
        println!(
            "reshard: items={items} workers=1,2,4 items_per_s={} loop_items_per_s={loop_rate:.0} \
             per_worker_vs_loop={} budget_wcu={budget} consumed_wcu_per_s={consumed_per_s:.0} \
             budget_ratio={:.2} budget_ratio_2_of_8={:.2} lost={lost} doubled={doubled} verify_s={verify_s:.1} \
             with_catch_up_s={}",
            rates.join(","),
            per_worker.join(","),
            consumed_per_s / f64::from(budget),
            consumed_held_per_s / f64::from(budget),
            totals.join(","),
        );
    });
}
