//! A resharding backfill whose process is killed (SIGKILL) halfway, then run again by another
//! process: it continues from the positions the first one recorded, and every item ends up in
//! the new layout exactly once.
//!
//! This binary re-executes itself as the child that runs the first backfill (selected by an
//! environment variable). Runs without the libtest harness, so it prints its own summary line.

use dynashard::metadata::ShardMetadata;
use dynashard::reshard::{Backfill, NewLayout, Phase};
use dynashard::shard::hash_shard;
use dynashard::{Db, Entity, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CHILD_MODE: &str = "DYNASHARD_RESHARD_CHILD";
const METADATA: &str = "ReshardKillMetadata";
const ITEMS: usize = 3_000;

#[derive(Table)]
#[table(
    name = "ReshardKillTests",
    pk = "pk",
    sk = "sk",
    shard_metadata = "ReshardKillMetadata",
    stream = "new_image"
)]
#[gsi(name = "ByTitle", pk = "title_pk", sk = "title_sk")]
#[gsi(name = "ByTitleNext", pk = "next_pk", sk = "next_sk")]
struct Catalogue;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Catalogue, pk = "{shelf}", sk = "record#{title}")]
#[gsi(ByTitle, pk = "titles", sk = "{title}")]
#[shard(ByTitle, hash = 16, by = title)]
struct Record {
    shelf: String,
    title: String,
}

fn db(endpoint: &str) -> Db {
    Db::new(dynashard::client_for_endpoint(endpoint))
        .with_streams_client(dynashard::streams_client_for_endpoint(endpoint))
        .with_shard_metadata(ShardMetadata::new(METADATA).cache_for(Duration::from_millis(50)))
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    if let Ok(endpoint) = std::env::var(CHILD_MODE) {
        // The first backfill, slow on purpose: one update at a time; killed before it ends.
        let options = Backfill::default().segments(4).in_flight(1).page_size(50);
        let result = runtime.block_on(db(&endpoint).backfill::<Record>(Catalogue::BY_TITLE, options));
        eprintln!("the child's backfill ended before it was killed: {result:?}");
        std::process::exit(3);
    }
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let name = "a_killed_backfill_resumes_in_another_process";
    if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
        println!("\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 1 filtered out\n");
        return;
    }
    let outcome = std::panic::catch_unwind(|| runtime.block_on(killed_backfill_resumes()));
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

async fn killed_backfill_resumes() {
    let endpoint = dynashard::local::shared_endpoint().await.expect("DynamoDB Local");
    let db = db(&endpoint);
    db.create_table::<Catalogue>().await.expect("table");
    db.create_shard_metadata_table().await.expect("metadata table");
    let shelf = format!("shelf-{}", std::process::id());
    let records: Vec<Record> =
        (0..ITEMS).map(|n| Record { shelf: shelf.clone(), title: format!("t{n:05}") }).collect();
    db.batch_put(&records).await.expect("import");
    db.start_resharding::<Record>(Catalogue::BY_TITLE, Catalogue::BY_TITLE_NEXT, NewLayout::hash(32))
        .await
        .expect("start");

    let mut child = Command::new(std::env::current_exe().expect("this test binary"))
        .env(CHILD_MODE, &endpoint)
        .stdout(Stdio::null())
        .spawn()
        .expect("child starts");
    // Kill it once it has recorded some progress, well before it can finish.
    let started = Instant::now();
    loop {
        let state = db.resharding::<Record>(Catalogue::BY_TITLE).await.expect("state").expect("started");
        if state.backfill_totals().1 > 0 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "the child recorded no progress");
        assert!(child.try_wait().expect("child status").is_none(), "the child ended early");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");

    let halfway = db.resharding::<Record>(Catalogue::BY_TITLE).await.expect("state").expect("started");
    assert_eq!(halfway.phase, Phase::DualWrites);
    assert_eq!(halfway.segments.len(), 4);
    let (scanned_before, _) = halfway.backfill_totals();
    assert!(scanned_before < 2 * ITEMS as u64);

    // The killed worker's leases are taken over once they have gone two seconds without a beat.
    let resumed = Backfill::default().lease(Duration::from_secs(2));
    let done = db.backfill::<Record>(Catalogue::BY_TITLE, resumed).await.expect("resumed backfill");
    assert_eq!(done.phase, Phase::Backfilled);
    let done = db.resharding::<Record>(Catalogue::BY_TITLE).await.expect("state").expect("started");
    assert!(done.segments.values().all(|segment| segment.done));
    let (_, written) = done.backfill_totals();
    assert!(written <= ITEMS as u64, "no item written twice after a resume: {written}");

    // Every item has exactly its place in the new layout.
    let items: Vec<dynashard::Item> = db
        .client()
        .scan()
        .table_name("ReshardKillTests")
        .into_paginator()
        .items()
        .send()
        .try_collect()
        .await
        .expect("scan");
    let ours: Vec<&dynashard::Item> =
        items.iter().filter(|item| item["pk"].as_s().is_ok_and(|pk| *pk == shelf)).collect();
    assert_eq!(ours.len(), ITEMS);
    for item in ours {
        let title = item["title"].as_s().expect("title");
        let expected = format!("titles#{}", hash_shard(title, 32));
        assert_eq!(item.get("next_pk").and_then(|v| v.as_s().ok()), Some(&expected), "{title}");
    }
    let verified = db.verify_resharding::<Record>(Catalogue::BY_TITLE, dynashard::reshard::Verify::default());
    assert!(verified.await.expect("verify").is_clean(), "nothing missing after the killed backfill");
    db.cut_over::<Record>(Catalogue::BY_TITLE).await.expect("cut over");
    let listed: Vec<Record> = db.stream(Record::query_by_title()).try_collect().await.expect("listing");
    let ours: Vec<Record> = listed.into_iter().filter(|record| record.shelf == shelf).collect();
    assert_eq!(ours, records, "every item once, in order, from the new layout");
}
