//! Migrations against a hand-written loop doing the same writes over the same items. One line per
//! kind, for scripts:
//!
//! ```text
//! migrate: kind=add_index items=50000 workers=1,4 items_per_s=1:... 4:... vs_loop=1:... 4:... budget_ratio=... lost=0 doubled=0 verify_s=...
//! ```
//!
//! `kind=add_index`: a mapping added to items that exist. The items are written by the entity's
//! first declaration, without the mapping, on a table whose stream is turned on only after they
//! are stored (as on a table whose stream holds the last day's writes, not every item). Their
//! team, which the new index is keyed on, repeats thousands of times (ten teams); their sizes
//! vary item to item from 200 B to 8 KB. Each round, on an embedded DynamoDB of its own, times
//! either the loop (a scan, page by page, each page's items given their keys by conditional
//! PartiQL updates 25 to a `BatchExecuteStatement`, 4 at once: what a careful hand-written
//! script sends) or the migration's backfill with 1 or 4 workers (its start, its leases, its
//! catch-up to the log's end, all included). `vs_loop` is the loop's median time over the
//! backfill's (above 1: faster than the loop). `budget_ratio`: the write units a second a
//! 1-worker backfill consumed under a budget of half its unbudgeted rate, over that budget.
//! `lost` and `doubled`: items the index misses, and entries beyond one an item, read back after
//! the cut-over. `verify_s`: the verification's time. Target: 1 worker at least 0.9x the loop.
//!
//! ```text
//! cargo bench --bench migrate                  # 50,000 items, 3 rounds
//! MIGRATE_ITEMS=200000 cargo bench --bench migrate
//! MIGRATE_TRACE=1 cargo bench --bench migrate  # every request and step, to stderr
//! ```

use aws_sdk_dynamodb::types::{AttributeValue, BatchStatementRequest};
use dynashard::metadata::ShardMetadata;
use dynashard::reshard::{Backfill, Budget, Migration, Verify};
use dynashard::{Db, Entity, Table};
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::time::{Duration, Instant};

const ROUNDS: usize = 3;
const TEAMS: usize = 10;

/// The table as first deployed: no stream yet.
#[derive(Table)]
#[table(name = "MigrateBench", pk = "pk", sk = "sk")]
#[gsi(ByTeam(pk = "team_pk", sk = "team_sk"))]
struct Before;

#[derive(Table)]
#[table(
    name = "MigrateBench",
    pk = "pk",
    sk = "sk",
    shard_metadata = "MigrateBenchMetadata",
    stream = "new_image"
)]
#[gsi(ByTeam(pk = "team_pk", sk = "team_sk"))]
struct After;

/// A member as first declared.
#[derive(Entity, Serialize, Deserialize, Clone)]
#[entity(table = Before, name = "Member", pk = "member#{id}", sk = "profile")]
struct MemberBefore {
    id: u64,
    team: String,
    joined: u64,
    notes: String,
}

/// A member with the mapping added.
#[derive(Entity, Serialize, Deserialize, Clone)]
#[entity(table = After, name = "Member", pk = "member#{id}", sk = "profile")]
#[gsi(ByTeam(pk = "team#{team}", sk = "{joined}#{id}", added))]
struct Member {
    id: u64,
    team: String,
    joined: u64,
    notes: String,
}

fn members(count: usize) -> Vec<MemberBefore> {
    (0..count as u64)
        .map(|id| {
            // 200 B to 8 KB, varying item to item (a cheap spread, not a cycle of sizes).
            let size = 200 + (id.wrapping_mul(2_654_435_761) % 7_800) as usize;
            MemberBefore {
                id,
                team: format!("team-{}", id as usize % TEAMS),
                joined: id / 7,
                notes: "n".repeat(size),
            }
        })
        .collect()
}

/// A DynamoDB of the round's own, holding `items` written by the first declaration, its stream
/// turned on after.
async fn prepared(items: &[MemberBefore]) -> (dynashard_local::Connection, Db) {
    let backend =
        dynashard_local::Backend::from_env_or(dynashard_local::Backend::Embedded).expect("a backend");
    let connection = dynashard_local::connect_to(backend).await.expect("a DynamoDB");
    let db = connection
        .db()
        .with_shard_metadata(ShardMetadata::new("MigrateBenchMetadata").cache_for(Duration::from_millis(50)));
    db.create_table::<Before>().await.expect("create the table");
    db.batch_put(items).await.expect("import");
    db.enable_stream::<After>().await.expect("turn the stream on");
    db.create_shard_metadata_table().await.expect("create the metadata table");
    (connection, db)
}

/// The hand-written loop: scan, compose each item's keys, update them 25 to a request.
async fn hand_loop(db: &Db) -> u64 {
    let scan = db.client().scan().table_name("MigrateBench").into_paginator().send();
    let mut pages = std::pin::pin!(scan);
    let mut written = 0;
    while let Some(page) = pages.next().await {
        let items = page.expect("a page").items.unwrap_or_default();
        let statements: Vec<BatchStatementRequest> = items
            .into_iter()
            .filter_map(|item| {
                let member: Member = dynashard::item::from_item(item.clone()).ok()?;
                let keyed = dynashard::item::to_item(&member).ok()?;
                let value = |name: &str| keyed.get(name).cloned();
                let parameters = vec![
                    value("team_pk")?,
                    value("team_sk")?,
                    item.get("pk")?.clone(),
                    item.get("sk")?.clone(),
                ];
                let text = r#"UPDATE "MigrateBench" SET "team_pk"=? SET "team_sk"=? WHERE "pk"=? AND "sk"=?"#;
                BatchStatementRequest::builder().statement(text).set_parameters(Some(parameters)).build().ok()
            })
            .collect();
        written += statements.len() as u64;
        let requests = statements
            .chunks(25)
            .map(|chunk| db.client().batch_execute_statement().set_statements(Some(chunk.to_vec())).send());
        let sent: Vec<_> = futures::stream::iter(requests).buffer_unordered(4).collect().await;
        for response in sent {
            let failed =
                response.expect("a batch").responses.unwrap_or_default().iter().any(|r| r.error.is_some());
            assert!(!failed, "every update applies");
        }
    }
    written
}

/// The migration's start and backfill with `workers` workers (and `budget`); returns the write
/// units it consumed.
async fn backfill(db: &Db, workers: usize, budget: Option<u32>) -> f64 {
    db.start_migration::<Member>(Migration::add_mapping(After::BY_TEAM)).await.expect("start");
    let options = |worker: usize| {
        let budget = Budget { write_units: budget, read_units: None };
        Backfill::default().segments(8).concurrency(8 / workers).worker(format!("w{worker}")).budget(budget)
    };
    let runs = (0..workers).map(|worker| db.backfill::<Member>(After::BY_TEAM, options(worker)));
    let states = futures::future::try_join_all(runs).await.expect("backfill");
    states.iter().map(|state| state.consumed().write_units()).fold(0.0, f64::max)
}

/// Items the index misses, and entries beyond one an item.
async fn read_back(db: &Db, items: usize) -> (usize, usize) {
    let scan =
        db.client().scan().table_name("MigrateBench").index_name("ByTeam").into_paginator().items().send();
    let entries: Vec<HashMap<String, AttributeValue>> = scan.try_collect().await.expect("scan the index");
    let mut seen: HashMap<String, usize> = HashMap::new();
    for entry in &entries {
        let key = entry.get("pk").and_then(|pk| pk.as_s().ok()).cloned().unwrap_or_default();
        *seen.entry(key).or_default() += 1;
    }
    let doubled = seen.values().map(|count| count - 1).sum();
    (items.saturating_sub(seen.len()), doubled)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    if std::env::var_os("MIGRATE_TRACE").is_some() {
        // The engine's steps as they happen, to see where a round's time goes.
        tracing_subscriber::fmt().with_writer(std::io::stderr).with_max_level(tracing::Level::DEBUG).init();
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    let count: usize = std::env::var("MIGRATE_ITEMS").ok().and_then(|n| n.parse().ok()).unwrap_or(50_000);
    let items = members(count);
    let (mut loops, mut ones, mut fours, mut verifies) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut lost, mut doubled, mut budget_ratio, mut unbudgeted) = (0, 0, 0.0, Vec::new());
    runtime.block_on(async {
        for round in 0..ROUNDS {
            // Alternated, so that drift in the machine's load hits every side alike.
            for side in [round % 3, (round + 1) % 3, (round + 2) % 3] {
                let (_connection, db) = prepared(&items).await;
                let started = Instant::now();
                let units = match side {
                    0 => {
                        assert_eq!(hand_loop(&db).await, count as u64, "the loop writes every item");
                        0.0
                    }
                    workers => backfill(&db, [1, 4][workers - 1], None).await,
                };
                let elapsed = started.elapsed();
                if side == 1 {
                    unbudgeted.push(units / elapsed.as_secs_f64());
                }
                eprintln!("round {round}: {} {elapsed:?}", ["loop", "1 worker", "4 workers"][side]);
                [&mut loops, &mut ones, &mut fours][side].push(elapsed);
                if side == 1 {
                    let started = Instant::now();
                    let found = db
                        .verify_resharding::<Member>(After::BY_TEAM, Verify::default())
                        .await
                        .expect("verify");
                    assert!(found.is_clean(), "nothing to repair");
                    verifies.push(started.elapsed());
                    db.cut_over::<Member>(After::BY_TEAM).await.expect("cut over");
                    let (missing, extra) = read_back(&db, count).await;
                    (lost, doubled) = (lost.max(missing), doubled.max(extra));
                }
            }
        }
        // Half the write units a second of the unbudgeted backfill, as a budget.
        unbudgeted.sort_by(f64::total_cmp);
        let budget = (unbudgeted[unbudgeted.len() / 2] / 2.0).max(1.0) as u32;
        let (_connection, db) = prepared(&items).await;
        let started = Instant::now();
        let units = backfill(&db, 1, Some(budget)).await;
        budget_ratio = units / started.elapsed().as_secs_f64() / f64::from(budget);
    });
    let rate = |times: &[Duration]| count as f64 / median(times.to_vec()).as_secs_f64();
    let vs = |times: &[Duration]| median(loops.clone()).as_secs_f64() / median(times.to_vec()).as_secs_f64();
    println!(
        "migrate: kind=add_index items={count} workers=1,4 items_per_s=1:{:.0} 4:{:.0} loop_items_per_s={:.0} vs_loop=1:{:.2} 4:{:.2} budget_ratio={budget_ratio:.2} lost={lost} doubled={doubled} verify_s={:.1}",
        rate(&ones),
        rate(&fours),
        rate(&loops),
        vs(&ones),
        vs(&fours),
        median(verifies).as_secs_f64(),
    );
}
