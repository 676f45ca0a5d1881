//! Reading sharded indexes, against the same reads written by hand with the SDK.
//!
//! 20,000 albums (titles skewed like a real catalogue, some in other scripts) are imported into
//! one table with three copies of a title index: 21 hash shards (`GSI1`), 21 range shards over the
//! seed's boundaries (`GSI2`) and one unsharded partition (`GSI3`). Everything runs against the
//! same DynamoDB Local (`AWS_ENDPOINT_URL_DYNAMODB`, or one started here), in alternating rounds; each
//! report is the ratio of the median wall times.
//!
//! - Listing all 20,000 in index order through the hash shards: `db.stream(query_gsi1())`
//!   collected (default concurrency, and `.concurrency(21)`), against 21 concurrent SDK
//!   paginators (one per shard partition) decoded with `serde_dynamo` and sorted by the index sort
//!   key. Target: at most 1.15x. Against the same 21 paginators run one after another, dynashard
//!   must be at least 2x faster (rate ratio at least 2).
//! - The first sorted page of 100 through the range shards, against the first page of 100 of the
//!   unsharded index holding the same albums. Target: at most 1.3x.
//!
//! ```text
//! cargo bench --bench sharded_listing
//! ```
//!
//! DynamoDB Local runs on the benchmark's own cores and answers without network latency, so
//! reads here are bound by CPU, not by round trips; the report ends with where a listing's time
//! goes. `SHARDED_LISTING_LATENCY_MS=20 cargo bench --bench sharded_listing` sends every read
//! through a local proxy that delays each response by 20 ms, as a network would.

#[path = "support/ratio.rs"]
mod ratio;

#[path = "support/machine.rs"]
mod machine;

#[path = "../examples/support/titles.rs"]
#[allow(dead_code)] // not every name list is used here
mod titles;

use aws_sdk_dynamodb::types::AttributeValue;
use aws_sdk_dynamodb::Client;
use dynashard::{Db, Entity, Item, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::time::Instant;

const ALBUMS: usize = 20_000;
const SHARDS: usize = 21;
const PAGE: usize = 100;
/// Rounds of the full listings (each side of a round reads all 20,000 albums once).
const LISTING_ROUNDS: usize = 21;
/// Rounds of the first-page comparison, each timing a batch of pages.
const PAGE_ROUNDS: usize = 31;
const PAGE_BATCH: usize = 20;

#[derive(Table)]
#[table(name = "ShardedListingBench", pk = "pk", sk = "sk")]
#[gsi(GSI1(pk = "gsi1_pk", sk = "gsi1_sk"))]
#[gsi(GSI2(pk = "gsi2_pk", sk = "gsi2_sk"))]
#[gsi(GSI3(pk = "gsi3_pk", sk = "gsi3_sk"))]
struct Bench;

/// One album, in three copies of a title index: hash shards, range shards, and unsharded.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[entity(table = Bench, pk = "{artist}", sk = "album#{title}")]
#[gsi(GSI1(pk = "album", sk = "{title}"))]
#[shard(GSI1(hash = 21, by = title))]
#[gsi(GSI2(pk = "album", sk = "{title}"))]
#[shard(GSI2(range = "examples/data/album_boundaries_21.json", by = title))]
#[gsi(GSI3(pk = "album", sk = "{title}"))]
struct Album {
    artist: String,
    title: String,
    year: u16,
    label: String,
    genres: Vec<String>,
}

/// The whole hash-sharded index through dynashard, at the given shard concurrency.
async fn with_dynashard(db: &Db, concurrency: Option<usize>) -> Vec<Album> {
    let query = Album::query_gsi1();
    let query = match concurrency {
        Some(concurrency) => query.concurrency(concurrency),
        None => query,
    };
    db.stream(query).try_collect().await.expect("dynashard listing")
}

/// Every item of one shard partition of `GSI1`, by hand.
async fn read_shard(client: &Client, table: &str, partition: &str) -> Vec<Item> {
    client
        .query()
        .table_name(table)
        .index_name("GSI1")
        .key_condition_expression("#pk = :pk")
        .expression_attribute_names("#pk", "gsi1_pk")
        .expression_attribute_values(":pk", AttributeValue::S(partition.to_owned()))
        .into_paginator()
        .items()
        .send()
        .try_collect()
        .await
        .expect("hand-written shard read")
}

/// The items of every shard, concatenated in shard order, sorted by the index sort key and
/// decoded. The sort is stable: equal sort keys keep their shard order, as in dynashard's merge.
fn sort_and_decode(mut items: Vec<Item>) -> Vec<Album> {
    let sort_key = |item: &Item| item.get("gsi1_sk").and_then(|value| value.as_s().ok()).cloned();
    items.sort_by_cached_key(sort_key);
    items.into_iter().map(|item| serde_dynamo::from_item(item).expect("decodes")).collect()
}

/// The whole hash-sharded index by hand: one paginator per shard, all at once.
async fn concurrent_by_hand(client: &Client, table: &str, partitions: &[String]) -> Vec<Album> {
    let reads = partitions.iter().map(|partition| read_shard(client, table, partition));
    let shards = futures::future::join_all(reads).await;
    sort_and_decode(shards.into_iter().flatten().collect())
}

/// The whole hash-sharded index by hand: one paginator per shard, one after another.
async fn sequential_by_hand(client: &Client, table: &str, partitions: &[String]) -> Vec<Album> {
    let mut items = Vec::with_capacity(ALBUMS);
    for partition in partitions {
        items.extend(read_shard(client, table, partition).await);
    }
    sort_and_decode(items)
}

/// The first page of the range-sharded index.
async fn first_range_page(db: &Db) -> Vec<Album> {
    db.page(&Album::query_gsi2().page_size(PAGE), None).await.expect("range page").items
}

/// The first page of the unsharded index.
async fn first_plain_page(db: &Db) -> Vec<Album> {
    db.page(&Album::query_gsi3().page_size(PAGE), None).await.expect("unsharded page").items
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    let connection = runtime
        .block_on(dynashard_local::connect_to(
            dynashard_local::Backend::from_env_or(dynashard_local::Backend::Local).expect("a backend"),
        ))
        .expect("DynamoDB Local");
    // A table of its own per run, so a shared endpoint never holds albums of an earlier run.
    let table_name = format!("ShardedListingBench-{}", std::process::id());
    let direct = Db::new(connection.client().clone())
        .with_table_name::<Bench>(table_name.clone())
        .expect("a valid table name");
    let db = match machine::latency() {
        Some(delay) => {
            let upstream = connection.url().to_owned();
            let proxy = machine::delaying_proxy(&upstream, delay);
            println!("reads go through a proxy that delays every response by {delay:?}");
            Db::new(dynashard::client_for_endpoint(&proxy))
                .with_table_name::<Bench>(table_name)
                .expect("a valid table name")
        }
        None => direct.clone(),
    };
    let table = db.table_name::<Bench>().to_owned();
    let client = db.client().clone();
    let albums = catalogue(ALBUMS);

    // The partitions the hand-written reads query: the ones dynashard's plan reads, which must
    // also be the ones the items were written to.
    let partitions: Vec<String> = (0..SHARDS).map(|shard| format!("album#{shard}")).collect();
    let planned = Album::query_gsi1().plan_shards().expect("GSI1 is sharded").partitions.clone();
    assert_eq!(planned, partitions, "the shard partitions of GSI1");

    runtime.block_on(async {
        direct.create_table::<Bench>().await.expect("table");
        let started = Instant::now();
        direct.batch_put(&albums).await.expect("import");
        eprintln!("imported {ALBUMS} albums in {:.1} s", started.elapsed().as_secs_f64());

        let stored = client
            .get_item()
            .table_name(&table)
            .key("pk", AttributeValue::S(albums[0].artist.clone()))
            .key("sk", AttributeValue::S(format!("album#{}", albums[0].title)))
            .send()
            .await
            .expect("GetItem")
            .item
            .expect("the first album is stored");
        let shard = dynashard::shard::hash_shard(&albums[0].title, SHARDS as u32);
        assert_eq!(stored.get("gsi1_pk"), Some(&AttributeValue::S(format!("album#{shard}"))));

        // All four listings return the same albums in the same order; the first two listings of
        // each side also warm up DynamoDB Local's JIT and the connection pool.
        let reference = with_dynashard(&db, None).await;
        assert_eq!(reference.len(), ALBUMS);
        assert!(reference.windows(2).all(|pair| pair[0].title <= pair[1].title), "in index order");
        for _ in 0..2 {
            assert_eq!(with_dynashard(&db, None).await, reference);
            assert_eq!(with_dynashard(&db, Some(SHARDS)).await, reference);
            assert_eq!(concurrent_by_hand(&client, &table, &partitions).await, reference);
            assert_eq!(sequential_by_hand(&client, &table, &partitions).await, reference);
        }
        let stream = db.stream(Album::query_gsi1());
        let stats = stream.stats().clone();
        let _: Vec<Album> = stream.try_collect().await.expect("listing with stats");
        let per_shard: Vec<usize> = stats.per_shard_requests();
        eprintln!(
            "hash listing: {} requests ({per_shard:?} per shard), {} items read",
            stats.requests(),
            stats.items_read()
        );

        let range = db.page(&Album::query_gsi2().page_size(PAGE), None).await.expect("range page");
        let plain = db.page(&Album::query_gsi3().page_size(PAGE), None).await.expect("unsharded page");
        assert_eq!(range.items.len(), PAGE);
        assert_eq!(plain.items.len(), PAGE);
        eprintln!(
            "first page of {PAGE}: range shards {} request(s), {} items read; unsharded {} request(s), {} items read",
            range.stats.requests, range.stats.items_read, plain.stats.requests, plain.stats.items_read
        );
    });

    let listing = format!("list {ALBUMS} albums through {SHARDS} hash shards");
    let watch = machine::Watch::start();
    let ratio = ratio::compare(
        LISTING_ROUNDS,
        1,
        || runtime.block_on(with_dynashard(&db, None)),
        || runtime.block_on(concurrent_by_hand(&client, &table, &partitions)),
    );
    ratio::report(
        &format!("{listing}, dynashard (default concurrency) vs 21 concurrent paginators"),
        &ratio,
        1.15,
    );
    watch.report();
    let watch = machine::Watch::start();
    let ratio = ratio::compare(
        LISTING_ROUNDS,
        1,
        || runtime.block_on(with_dynashard(&db, Some(SHARDS))),
        || runtime.block_on(concurrent_by_hand(&client, &table, &partitions)),
    );
    ratio::report(
        &format!("{listing}, dynashard (concurrency 21) vs 21 concurrent paginators"),
        &ratio,
        1.15,
    );
    watch.report();
    let watch = machine::Watch::start();
    let ratio = ratio::compare(
        LISTING_ROUNDS,
        1,
        || runtime.block_on(with_dynashard(&db, None)),
        || runtime.block_on(sequential_by_hand(&client, &table, &partitions)),
    );
    ratio::report_rate(
        &format!("{listing}, dynashard (default concurrency) vs 21 paginators one after another"),
        &ratio,
        ALBUMS as f64,
        "items",
        2.0,
    );
    watch.report();
    let watch = machine::Watch::start();
    // The ceiling of the line above on this machine: the hand-written reads themselves.
    let ratio = ratio::compare(
        LISTING_ROUNDS,
        1,
        || runtime.block_on(concurrent_by_hand(&client, &table, &partitions)),
        || runtime.block_on(sequential_by_hand(&client, &table, &partitions)),
    );
    ratio::report_rate(
        &format!(
            "{listing}, by hand: 21 concurrent paginators vs one after another (no target: the ceiling)"
        ),
        &ratio,
        ALBUMS as f64,
        "items",
        2.0,
    );
    watch.report();

    let watch = machine::Watch::start();
    let ratio = ratio::compare(
        PAGE_ROUNDS,
        PAGE_BATCH,
        || runtime.block_on(first_range_page(&db)),
        || runtime.block_on(first_plain_page(&db)),
    );
    ratio::report(
        &format!("first page of {PAGE} of {ALBUMS}, {SHARDS} range shards vs one unsharded partition"),
        &ratio,
        1.3,
    );
    watch.report();

    let watch = machine::Watch::start();
    breakdown(&runtime, &db, &partitions);
    watch.report();
    runtime.block_on(db.delete_table::<Bench>()).expect("delete table");
    drop(connection);
}

/// Where the time of a full listing goes (informational, no target): wall time and CPU time of
/// this process and of DynamoDB Local (when started here) for the reads alone, one shard after
/// another and all at once, for dynashard's listing, and for the client-side sort and decode
/// alone. On a machine whose cores are shared by the client and DynamoDB Local, a listing cannot
/// take less than their CPU time over the number of cores, whatever its concurrency.
fn breakdown(runtime: &tokio::runtime::Runtime, db: &Db, partitions: &[String]) {
    const RUNS: usize = 5;
    let (client, table) = (db.client(), db.table_name::<Bench>());
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    println!("where a listing's time goes ({cores} cores, medians of {RUNS} runs, CPU seconds per listing):");
    let measure = |name: &str, run: &mut dyn FnMut()| {
        let (mut walls, start) = (Vec::with_capacity(RUNS), machine::cpu_seconds());
        for _ in 0..RUNS {
            let started = Instant::now();
            run();
            walls.push(started.elapsed().as_secs_f64());
        }
        let end = machine::cpu_seconds();
        walls.sort_by(f64::total_cmp);
        let (client_cpu, server_cpu) = ((end.0 - start.0) / RUNS as f64, (end.1 - start.1) / RUNS as f64);
        println!(
            "  {name:<44} wall {:>6.1} ms   CPU: client {:>5.0} ms, DynamoDB Local {:>5.0} ms, \
             sum over {cores} cores {:>5.1} ms",
            walls[RUNS / 2] * 1e3,
            client_cpu * 1e3,
            server_cpu * 1e3,
            (client_cpu + server_cpu) / cores as f64 * 1e3,
        );
    };
    let fetch_all = || async {
        let reads = partitions.iter().map(|partition| read_shard(client, table, partition));
        futures::future::join_all(reads).await
    };
    measure("21 shard reads by hand, one after another", &mut || {
        runtime.block_on(async {
            for partition in partitions {
                drop(read_shard(client, table, partition).await);
            }
        })
    });
    measure("21 shard reads by hand, all at once", &mut || drop(runtime.block_on(fetch_all())));
    for concurrency in [1, 2, 8, SHARDS] {
        measure(&format!("dynashard listing, concurrency {concurrency}"), &mut || {
            drop(runtime.block_on(with_dynashard(db, Some(concurrency))))
        });
    }
    let fetched: Vec<Item> = runtime.block_on(fetch_all()).into_iter().flatten().collect();
    let mut copies = vec![fetched; RUNS];
    measure("sort + decode of the 20,000 items alone", &mut || {
        drop(sort_and_decode(copies.pop().expect("a copy per run")))
    });
}

// A catalogue skewed like real ones (as in `examples/music.rs`): many titles starting with "the"
// or "live", a hot "Greatest Hits", titles in other scripts and with compatibility forms.

const LABELS: &[&str] = &["Ultimae Records", "Warp", "Sub Pop", "Nonesuch", "ECM", "Rough Trade", "4AD"];
const GENRES: &[&str] = &["ambient", "electronic", "downtempo", "rock", "jazz", "folk", "pop", "classical"];

/// `count` albums, each with its own artist and title pair.
fn catalogue(count: usize) -> Vec<Album> {
    let mut random = titles::Lcg(2005);
    let mut taken = HashSet::new();
    let mut albums = Vec::with_capacity(count);
    while albums.len() < count {
        let title = titles::title(&mut random);
        let artist = titles::artist(&mut random);
        let artist = match random.below(8) {
            0 => format!("{artist} Trio"),
            1 => format!("{artist} & the {}", random.pick(titles::NOUNS)),
            2 => format!("{artist} Quartet"),
            _ => format!("{artist} {}", random.below(40)),
        };
        if taken.insert((artist.clone(), title.clone())) {
            let genres = vec![random.pick(GENRES).to_owned(), random.pick(GENRES).to_owned()];
            albums.push(Album {
                artist,
                title,
                year: 1960 + random.below(66) as u16,
                label: random.pick(LABELS).to_owned(),
                genres,
            });
        }
    }
    albums
}
