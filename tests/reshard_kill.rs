//! Four worker processes share one resharding backfill (16 segments, up to 6 at once each: the
//! three left after one dies have room for all); the first to make progress is killed (SIGKILL) while it holds
//! segments; the others take its leases over once they expire, and every item ends up in the
//! new layout exactly once, every segment scanned once in effect.
//!
//! This binary re-executes itself as the workers (selected by an environment variable). Runs
//! without the libtest harness, so it prints its own summary line. `DYNASHARD_KILL_ITEMS` sets
//! how many items: by default 20,000 on DynamoDB Local and 10,000 on the embedded backend (which
//! serves every worker from one thread and reads a whole table for each page of a scan segment,
//! so 50,000 items there take longer than a request may), so that the suite stays quick;
//! `DYNASHARD_KILL_ITEMS=200000 cargo test --test reshard_kill` runs it at full size (about ten
//! minutes against DynamoDB Local).

use dynashard::metadata::ShardMetadata;
use dynashard::reshard::{Backfill, Layout, Phase, Verify};
use dynashard::shard::hash_shard;
use dynashard::{Db, Entity, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const WORKER_MODE: &str = "DYNASHARD_RESHARD_WORKER";
const METADATA: &str = "ReshardKillMetadata";
const WORKERS: usize = 4;
const LEASE: Duration = Duration::from_secs(3);

#[derive(Table)]
#[table(
    name = "ReshardKillTests",
    pk = "pk",
    sk = "sk",
    shard_metadata = "ReshardKillMetadata",
    stream = "new_image"
)]
#[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
#[gsi(ByTitleNext(pk = "next_pk", sk = "next_sk"))]
struct Catalogue;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Catalogue, pk = "{shelf}", sk = "record#{title}")]
#[gsi(ByTitle(pk = "titles", sk = "{title}"))]
#[shard(ByTitle(hash = 16, by = title))]
struct Record {
    shelf: String,
    title: String,
}

fn db(endpoint: &str, table: &str) -> Db {
    Db::new(dynashard::client_for_endpoint(endpoint))
        .with_streams_client(dynashard::client::streams_client_for_endpoint(endpoint))
        .with_table_name::<Catalogue>(table)
        .expect("a valid table name")
        .with_shard_metadata(ShardMetadata::new(METADATA).cache_for(Duration::from_millis(50)))
}

/// How every worker runs the backfill.
fn worker_options(name: &str) -> Backfill {
    Backfill::default().segments(16).concurrency(6).page_size(250).lease(LEASE).worker(name)
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    if let Ok(setting) = std::env::var(WORKER_MODE) {
        let mut parts = setting.splitn(3, ' ');
        let (endpoint, table, name) = (parts.next(), parts.next(), parts.next());
        let (Some(endpoint), Some(table), Some(name)) = (endpoint, table, name) else {
            eprintln!("bad worker setting {setting:?}");
            std::process::exit(2);
        };
        let result = runtime
            .block_on(db(endpoint, table).backfill::<Record>(Catalogue::BY_TITLE, worker_options(name)));
        match result {
            Ok(state) if state.phase >= Phase::Backfilled => std::process::exit(0),
            other => {
                eprintln!("worker {name}: {other:?}");
                std::process::exit(1);
            }
        }
    }
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let name = "a_killed_worker_is_taken_over_by_the_others";
    if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
        println!("\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 1 filtered out\n");
        return;
    }
    let outcome = std::panic::catch_unwind(|| runtime.block_on(killed_worker_is_taken_over()));
    let status = if outcome.is_ok() { "ok" } else { "FAILED" };
    println!("test {name} ... {status}");
    let (passed, failed) = if outcome.is_ok() { (1, 0) } else { (0, 1) };
    println!(
        "\ntest result: {status}. {passed} passed; {failed} failed; 0 ignored; 0 measured; 0 filtered out\n"
    );
    if failed > 0 {
        std::process::exit(101);
    }
}

fn spawn_worker(endpoint: &str, table: &str, name: &str) -> Child {
    Command::new(std::env::current_exe().expect("this test binary"))
        .env(WORKER_MODE, format!("{endpoint} {table} {name}"))
        .stdout(Stdio::null())
        .spawn()
        .expect("worker starts")
}

async fn killed_worker_is_taken_over() {
    let embedded = matches!(dynashard_local::Backend::from_env(), Ok(dynashard_local::Backend::Embedded));
    let items: usize = std::env::var("DYNASHARD_KILL_ITEMS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(if embedded { 10_000 } else { 20_000 });
    let endpoint = dynashard_local::shared_endpoint().await.expect("DynamoDB Local");
    let table = format!("ReshardKillTests-{}", std::process::id());
    let db = db(&endpoint, &table);
    db.create_table::<Catalogue>().await.expect("table");
    db.create_shard_metadata_table().await.expect("metadata table");
    let imported = Instant::now();
    // Spread over 1,000 table partitions, so that every scan segment holds some.
    let records: Vec<Record> = (0..items)
        .map(|n| Record { shelf: format!("shelf-{}", n % 1_000), title: format!("t{n:07}") })
        .collect();
    for chunk in records.chunks(10_000) {
        db.batch_put(chunk).await.expect("import");
    }
    let imported = imported.elapsed();
    db.start_resharding::<Record>(Catalogue::BY_TITLE, Catalogue::BY_TITLE_NEXT, Layout::hash(32))
        .await
        .expect("start");

    let began = Instant::now();
    let mut workers: Vec<Child> =
        (0..WORKERS).map(|n| spawn_worker(&endpoint, &table, &format!("w{n}"))).collect();
    // Kill the first worker that records progress, while it holds segments.
    let (victim, held) = loop {
        let state = db.resharding::<Record>(Catalogue::BY_TITLE).await.expect("state").expect("started");
        let busy = state.segments.values().find(|segment| segment.scanned > 0 && !segment.done);
        if let Some(victim) = busy.and_then(|segment| segment.owner.clone()) {
            let held: Vec<u32> = state
                .segments
                .iter()
                .filter(|(_, segment)| segment.owner.as_ref() == Some(&victim) && !segment.done)
                .map(|(number, _)| *number)
                .collect();
            break (victim, held);
        }
        assert!(began.elapsed() < Duration::from_secs(120), "no worker recorded progress");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let index: usize = victim.trim_start_matches('w').parse().expect("a worker's name");
    workers[index].kill().expect("SIGKILL");
    let killed = Instant::now();
    workers[index].wait().expect("reaped");

    // The time until every segment it held is held by another worker, or done.
    let takeover = loop {
        let state = db.resharding::<Record>(Catalogue::BY_TITLE).await.expect("state").expect("started");
        let taken = held.iter().all(|segment| {
            let segment = &state.segments[segment];
            segment.done || segment.owner.as_ref().is_some_and(|owner| *owner != victim)
        });
        if taken {
            break killed.elapsed();
        }
        assert!(killed.elapsed() < Duration::from_secs(60), "its segments {held:?} were not taken over");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    for (n, worker) in workers.iter_mut().enumerate().filter(|(n, _)| *n != index) {
        let status = worker.wait().expect("worker ends");
        assert!(status.success(), "worker w{n}: {status}");
    }
    let backfill = began.elapsed();

    let state = db.resharding::<Record>(Catalogue::BY_TITLE).await.expect("state").expect("started");
    assert_eq!(state.phase, Phase::Backfilled);
    assert!(state.segments.values().all(|segment| segment.done));
    let (scanned, written) = state.backfill_totals();
    assert_eq!(
        scanned, items as u64,
        "every item scanned once in effect: a takeover resumes from the checkpoint"
    );

    // Every item has exactly its place in the new layout.
    let stored: Vec<dynashard::Item> = db
        .client()
        .scan()
        .table_name(&table)
        .into_paginator()
        .items()
        .send()
        .try_collect()
        .await
        .expect("scan");
    let stored: Vec<&dynashard::Item> = stored.iter().filter(|item| item.contains_key("title")).collect();
    assert_eq!(stored.len(), items);
    for item in stored {
        let title = item["title"].as_s().expect("title");
        let expected = format!("titles#{}", hash_shard(title, 32));
        assert_eq!(item.get("next_pk").and_then(|v| v.as_s().ok()), Some(&expected), "{title}");
    }
    let verified = db.verify_resharding::<Record>(Catalogue::BY_TITLE, Verify::default().segments(8));
    assert!(verified.await.expect("verify").is_clean(), "nothing missing, nothing extra");
    db.cut_over::<Record>(Catalogue::BY_TITLE).await.expect("cut over");
    let listed: Vec<Record> = db.stream(Record::query_by_title()).try_collect().await.expect("listing");
    assert_eq!(listed.len(), items, "every item once");
    assert!(listed.iter().zip(&records).all(|(listed, record)| listed.title == record.title), "in order");
    println!(
        "reshard_kill: items={items} workers={WORKERS} lease_s={} killed={victim} killed_held={} takeover_ms={} backfill_s={:.1} \
         import_s={:.1} written={written}",
        LEASE.as_secs(),
        held.len(),
        takeover.as_millis(),
        backfill.as_secs_f64(),
        imported.as_secs_f64()
    );
}
