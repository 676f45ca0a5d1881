//! The backfill of a resharding (hash 16 to 32) against a plain batch import of the same
//! 5,000 items, in both modes: conditional (25 conditional updates per `BatchExecuteStatement`)
//! and batched (`BatchWriteItem`, existing items frozen). Every round and mode uses a table of
//! its own, on a DynamoDB Local started for it (or at `AWS_ENDPOINT_URL_DYNAMODB`, the tables
//! deleted after each round): the import is timed, then the backfill of what it imported. The report is the ratio of the median
//! item rates. Target: at least 0.8x for the batched backfill; the conditional one is reported.
//!
//! ```text
//! cargo bench --bench backfill
//! ```

#[path = "support/ratio.rs"]
#[allow(dead_code)] // only the rate report is used
mod ratio;

use dynashard::metadata::ShardMetadata;
use dynashard::reshard::{Backfill, Layout};
use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// Items a round: DynamoDB Local's stream (which a resharding needs) slows each write down as
/// it grows, so that a round of tens of thousands spends its time there, not in the backfill.
const ITEMS: usize = 5_000;
const ROUNDS: usize = 5;

#[derive(Table)]
#[table(
    name = "BackfillBench",
    pk = "pk",
    sk = "sk",
    shard_metadata = "BackfillBenchMetadata",
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
    year: u16,
    label: String,
}

fn albums() -> Vec<Album> {
    (0..ITEMS)
        .map(|n| Album {
            artist: format!("artist {}", n % 500),
            title: format!("title {n:06}"),
            year: 1960 + (n % 60) as u16,
            label: "Harvest".into(),
        })
        .collect()
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    let albums = albums();
    let modes = [("batched", Backfill::default().batched()), ("conditional", Backfill::default())];
    let mut imports = Vec::new();
    let mut backfills = vec![Vec::new(); modes.len()];
    for round in 0..ROUNDS {
        for (mode, (name, options)) in modes.iter().enumerate() {
            // A DynamoDB Local of its own: it keeps the stream records of deleted tables, and
            // every write gets slower as they pile up.
            let connection = runtime
                .block_on(dynashard_local::connect_to(
                    dynashard_local::Backend::from_env_or(dynashard_local::Backend::Local)
                        .expect("a backend"),
                ))
                .expect("DynamoDB Local");
            let metadata_table = format!("BackfillBenchMetadata{round}{name}");
            let metadata = ShardMetadata::new(metadata_table.clone()).cache_for(Duration::from_millis(10));
            let db = connection
                .db()
                .with_table_name::<Bench>(format!("BackfillBench{round}{name}-{}", std::process::id()))
                .expect("a valid table name")
                .with_shard_metadata(metadata);
            runtime.block_on(async {
                db.create_table::<Bench>().await.expect("create table");
                db.create_shard_metadata_table().await.expect("create metadata table");
                let started = Instant::now();
                db.batch_put(&albums).await.expect("import");
                imports.push(started.elapsed());
                db.start_resharding::<Album>(Bench::BY_TITLE, Bench::BY_TITLE_NEXT, Layout::hash(32))
                    .await
                    .expect("start");
                tokio::time::sleep(Duration::from_millis(20)).await; // past the metadata cache time
                let started = Instant::now();
                let state = db.backfill::<Album>(Bench::BY_TITLE, options.clone()).await.expect("backfill");
                backfills[mode].push(started.elapsed());
                let (import, backfill) = (imports.last().copied().unwrap_or_default(), started.elapsed());
                eprintln!("round {round} {name}: import {import:?}, backfill {backfill:?}");
                assert_eq!(state.backfill_totals().1, ITEMS as u64, "every item placed once");
                db.delete_table::<Bench>().await.expect("delete table");
                let client = connection.client();
                client.delete_table().table_name(&metadata_table).send().await.expect("delete metadata");
            });
        }
    }
    imports.sort();
    let import = imports[imports.len() / 2];
    for ((name, _), mut times) in modes.into_iter().zip(backfills) {
        times.sort();
        let ratio = ratio::Ratio { candidate_median: times[ROUNDS / 2], baseline_median: import };
        let target = if name == "batched" { 0.8 } else { 0.0 };
        ratio::report_rate(
            &format!("{ITEMS} items: {name} backfill (hash 16 to 32, 8 segments) vs batch import"),
            &ratio,
            ITEMS as f64,
            "items",
            target,
        );
    }
}
