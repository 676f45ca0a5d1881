//! Pages of a sharded index at the read-capacity floor.
//!
//! 20,000 albums of about 500 bytes are imported into one table with three copies of a title
//! index: 21 hash shards (`GSI1`), 21 range shards over the seed's boundaries (`GSI2`) and one
//! unsharded partition (`GSI3`). Against the unsharded index, in the same run:
//!
//! - read units (as DynamoDB Local reports them) of the first five pages of 100 through the hash
//!   shards, page by page (targets: at most 2.0x each, at most 26 requests for the first), next
//!   to the least any merge could read for the same page, and of a page of 1,000 (at most 1.3x);
//! - a whole listing through the hash shards against 21 concurrent paginators written by hand:
//!   read units within 5%, time at most 1.15x;
//! - with 20 ms of latency on every response (a local proxy): the first hash page's time (at
//!   most 1.5x the unsharded page's; and, without a target, against one round of 21 requests
//!   sent by hand, the least a merged page can take where DynamoDB Local answers all 21 on the
//!   benchmark's own cores), and a whole listing through the range shards against one through
//!   the hash shards (at most 1.2x);
//! - the same first five pages and first page's time with
//!   [`RequestSizing::OneRoundTrip`](dynashard::query::RequestSizing::OneRoundTrip), which trades
//!   read units for one round trip (the 1.5x time bound applies to it; its read units have no
//!   bound: at 8 items a unit, the 2.0x units bound and one round trip cannot both hold, see the
//!   README).
//!
//! The last line sums it up for scripts: `merged_page: ...`.
//!
//! ```text
//! cargo bench --bench merged_page
//! ```

#[path = "support/ratio.rs"]
mod ratio;

#[path = "support/machine.rs"]
mod machine;

#[path = "../examples/support/titles.rs"]
#[allow(dead_code)] // not every name list is used here
mod titles;

use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};
use aws_sdk_dynamodb::Client;
use dynashard::item::item_size;
use dynashard::query::{RequestSizing, StatsSnapshot};
use dynashard::{Db, Entity, Item, Page, Query, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::time::Duration;

const ALBUMS: usize = 20_000;
const SHARDS: usize = 21;
const PAGE: usize = 100;
const LARGE_PAGE: usize = 1_000;
const PAGES: usize = 5;
const LATENCY: Duration = Duration::from_millis(20);

#[derive(Table)]
#[table(name = "MergedPageBench", pk = "pk", sk = "sk")]
#[gsi(GSI1(pk = "gsi1_pk", sk = "gsi1_sk"))]
#[gsi(GSI2(pk = "gsi2_pk", sk = "gsi2_sk"))]
#[gsi(GSI3(pk = "gsi3_pk", sk = "gsi3_sk"))]
struct Bench;

/// One album of about 500 bytes, in three copies of a title index: hash shards, range shards,
/// and unsharded.
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
    notes: String,
}

/// What the first `count` pages of `size` of `query` cost, page by page.
async fn pages<F>(db: &Db, query: Query<Album, F>, count: usize, size: usize) -> Vec<StatsSnapshot> {
    read_pages(db, query, count, size).await.into_iter().map(|page| page.stats).collect()
}

/// The first `count` pages of `size` of `query`, each full.
async fn read_pages<F>(db: &Db, query: Query<Album, F>, count: usize, size: usize) -> Vec<Page<Album>> {
    let query = query.page_size(size);
    let (mut cursor, mut pages) = (None::<String>, Vec::new());
    for _ in 0..count {
        let page = db.page(&query, cursor.as_deref()).await.expect("a page");
        assert_eq!(page.items.len(), size);
        cursor = Some(page.cursor.clone().expect("more pages"));
        pages.push(page);
    }
    pages
}

/// The hash-sharded title index, each shard asked at once for enough that a page rarely needs a
/// second round trip.
fn one_round_trip() -> Query<Album, impl Sized> {
    Album::query_gsi1().request_sizing(RequestSizing::OneRoundTrip)
}

/// The eventually consistent read units a merge of `page` over the hash shards reads at the
/// least: each shard's items of the page (at their own sizes) plus one more of `item_bytes`, at
/// least a unit a shard.
fn floor_units(page: &[Album], item_bytes: u64) -> f64 {
    let mut per_shard = [item_bytes; SHARDS];
    for album in page {
        per_shard[dynashard::shard::hash_shard(&album.title, SHARDS as u32) as usize] += stored_bytes(album);
    }
    let units: u64 = per_shard.iter().map(|bytes| bytes.div_ceil(4_096).max(1)).sum();
    units as f64 / 2.0
}

/// An album's size as DynamoDB counts it.
fn stored_bytes(album: &Album) -> u64 {
    item_size(&dynashard::item::to_item(album).expect("an album maps to an item")) as u64
}

/// Every item of one shard partition of `GSI1` by hand, and the read units it took.
async fn read_shard(client: &Client, table: &str, partition: &str) -> (Vec<Item>, f64) {
    let (mut items, mut units, mut start) = (Vec::new(), 0.0, None);
    loop {
        let output = client
            .query()
            .table_name(table)
            .index_name("GSI1")
            .key_condition_expression("#pk = :pk")
            .expression_attribute_names("#pk", "gsi1_pk")
            .expression_attribute_values(":pk", AttributeValue::S(partition.to_owned()))
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .set_exclusive_start_key(start)
            .send()
            .await
            .expect("hand-written shard read");
        units += output.consumed_capacity.and_then(|consumed| consumed.capacity_units).unwrap_or(0.0);
        items.extend(output.items.unwrap_or_default());
        start = output.last_evaluated_key;
        if start.is_none() {
            return (items, units);
        }
    }
}

/// The whole hash-sharded index by hand: one read per shard, all at once, sorted and decoded;
/// and the read units it took.
async fn by_hand(client: &Client, table: &str) -> (Vec<Album>, f64) {
    let partitions: Vec<String> = (0..SHARDS).map(|shard| format!("album#{shard}")).collect();
    let reads = partitions.iter().map(|partition| read_shard(client, table, partition));
    let shards = futures::future::join_all(reads).await;
    let units = shards.iter().map(|(_, units)| units).sum();
    let mut items: Vec<Item> = shards.into_iter().flat_map(|(items, _)| items).collect();
    let sort_key = |item: &Item| item.get("gsi1_sk").and_then(|value| value.as_s().ok()).cloned();
    items.sort_by_cached_key(sort_key);
    (items.into_iter().map(|item| serde_dynamo::from_item(item).expect("decodes")).collect(), units)
}

/// One request to every shard of `GSI1` at once, eight items each, by hand: the least a merged
/// page can take on this machine.
async fn one_round_by_hand(client: &Client, table: &str) -> usize {
    let requests = (0..SHARDS).map(|shard| {
        client
            .query()
            .table_name(table)
            .index_name("GSI1")
            .key_condition_expression("#pk = :pk")
            .expression_attribute_names("#pk", "gsi1_pk")
            .expression_attribute_values(":pk", AttributeValue::S(format!("album#{shard}")))
            .limit(8)
            .send()
    });
    let pages = futures::future::join_all(requests).await;
    pages.into_iter().map(|page| page.expect("a shard's first items").count as usize).sum()
}

async fn listing<F>(db: &Db, query: Query<Album, F>) -> (Vec<Album>, f64) {
    let stream = db.stream(query);
    let stats = stream.stats().clone();
    let albums: Vec<Album> = stream.try_collect().await.expect("a listing");
    (albums, stats.capacity_units())
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    let connection = runtime
        .block_on(dynashard_local::connect_to(
            dynashard_local::Backend::from_env_or(dynashard_local::Backend::Local).expect("a backend"),
        ))
        .expect("DynamoDB Local");
    // A table of its own per run, so a shared endpoint never holds albums of an earlier run.
    let table_name = format!("MergedPageBench-{}", std::process::id());
    let db = Db::new(connection.client().clone())
        .with_table_name::<Bench>(table_name.clone())
        .expect("a valid table name");
    let upstream = connection.url().to_owned();
    let delayed = Db::new(dynashard::client_for_endpoint(&machine::delaying_proxy(&upstream, LATENCY)))
        .with_table_name::<Bench>(table_name)
        .expect("a valid table name");
    let (client, table) = (db.client().clone(), db.table_name::<Bench>().to_owned());
    let albums = catalogue(ALBUMS);

    runtime.block_on(async {
        db.create_table::<Bench>().await.expect("table");
        db.batch_put(&albums).await.expect("import");
    });
    let mean = albums.iter().map(stored_bytes).sum::<u64>() / albums.len() as u64;
    println!("{ALBUMS} albums of about {mean} bytes, {SHARDS} shards, pages of {PAGE}");

    // Read units, page by page.
    let (hash, range, plain) = runtime.block_on(async {
        let hash = pages(&db, Album::query_gsi1(), PAGES, PAGE).await;
        let range = pages(&db, Album::query_gsi2(), PAGES, PAGE).await;
        let plain = pages(&db, Album::query_gsi3(), PAGES, PAGE).await;
        (hash, range, plain)
    });
    // The least a merged page can read: every shard's items of the page and one more (until then,
    // nothing says its next item falls after the page), at least one read unit a shard.
    let floors: Vec<f64> = runtime
        .block_on(read_pages(&db, Album::query_gsi3(), PAGES, PAGE))
        .iter()
        .map(|page| floor_units(&page.items, mean))
        .collect();
    println!(
        "page  | unsharded: requests, items, units | 21 hash shards            | their floor | 21 range shards"
    );
    let mut page_ratios = Vec::new();
    let mut floor_ratios = Vec::new();
    for (page, (((hash, range), plain), floor)) in
        hash.iter().zip(&range).zip(&plain).zip(&floors).enumerate()
    {
        let ratio = hash.capacity_units / plain.capacity_units;
        page_ratios.push(ratio);
        floor_ratios.push(floor / plain.capacity_units);
        println!(
            "{:>5} | {:>3} {:>6} {:>6.1}                  | {:>3} {:>6} {:>6.1} ({ratio:.2}x) | {floor:>4.1} ({:.2}x) | {:>3} {:>6} {:>6.1}",
            page + 1,
            plain.requests,
            plain.items_read,
            plain.capacity_units,
            hash.requests,
            hash.items_read,
            hash.capacity_units,
            floor / plain.capacity_units,
            range.requests,
            range.items_read,
            range.capacity_units,
        );
    }
    let first_requests = hash[0].requests;
    let verdict = |value: f64, bound: f64| if value <= bound { "within" } else { "OVER" };
    println!(
        "first page of {PAGE}: {:.2}x the unsharded page's read units ({} the 2.0x bound), {first_requests} requests ({} the 26 bound)",
        page_ratios[0],
        verdict(page_ratios[0], 2.0),
        verdict(first_requests as f64, 26.0)
    );
    let later = page_ratios[1..].iter().copied().fold(0.0, f64::max);
    let later_floor = floor_ratios[1..].iter().copied().fold(0.0, f64::max);
    println!(
        "pages 2 to {PAGES}: at most {later:.2}x ({} the 2.0x bound; the floor of these pages is up to {later_floor:.2}x)",
        verdict(later, 2.0)
    );
    let one_round = runtime.block_on(pages(&db, one_round_trip(), PAGES, PAGE));
    let one_round_units: Vec<f64> = one_round
        .iter()
        .zip(&plain)
        .map(|(fast, plain)| fast.capacity_units / plain.capacity_units)
        .collect();
    let one_round_requests: Vec<usize> = one_round.iter().map(|page| page.requests).collect();
    let one_round_worst = one_round_units.iter().copied().fold(0.0, f64::max);
    println!(
        "one round trip: pages 1 to {PAGES} at most {one_round_worst:.2}x the unsharded read units, \
         requests {one_round_requests:?} (no target)"
    );
    let (large_hash, large_plain) = runtime.block_on(async {
        let hash = pages(&db, Album::query_gsi1(), 1, LARGE_PAGE).await;
        let plain = pages(&db, Album::query_gsi3(), 1, LARGE_PAGE).await;
        (hash[0].clone(), plain[0].clone())
    });
    let large = large_hash.capacity_units / large_plain.capacity_units;
    println!(
        "a page of {LARGE_PAGE}: {} requests, {:.1} units against {:.1}: {large:.2}x ({} the 1.3x bound)",
        large_hash.requests,
        large_hash.capacity_units,
        large_plain.capacity_units,
        verdict(large, 1.3)
    );

    // Whole listings: the same read units and about the same time as by hand.
    let (reference, hand_units) = runtime.block_on(by_hand(&client, &table));
    let (merged, merged_units) = runtime.block_on(listing(&db, Album::query_gsi1()));
    assert_eq!(merged, reference, "the merged listing is the sorted index");
    let listing_units = merged_units / hand_units;
    println!(
        "whole listing through the hash shards: {merged_units:.1} units against {hand_units:.1} by hand: \
         {listing_units:.3}x ({} the 1.05x bound)",
        verdict(listing_units, 1.05)
    );
    let watch = machine::Watch::start();
    let listing_time = ratio::compare(
        11,
        1,
        || runtime.block_on(listing(&db, Album::query_gsi1())),
        || runtime.block_on(by_hand(&client, &table)),
    );
    ratio::report("whole listing, dynashard merge vs 21 concurrent reads by hand", &listing_time, 1.15);
    watch.report();

    // With latency: one round trip for a merged page, range listings read ahead.
    let watch = machine::Watch::start();
    let first_page = ratio::compare(
        21,
        3,
        || runtime.block_on(pages(&delayed, Album::query_gsi1(), 1, PAGE)),
        || runtime.block_on(pages(&delayed, Album::query_gsi3(), 1, PAGE)),
    );
    ratio::report(
        &format!("first page of {PAGE} with {LATENCY:?} latency, 21 hash shards vs unsharded"),
        &first_page,
        1.5,
    );
    watch.report();
    let watch = machine::Watch::start();
    let one_round_time = ratio::compare(
        21,
        3,
        || runtime.block_on(pages(&delayed, one_round_trip(), 1, PAGE)),
        || runtime.block_on(pages(&delayed, Album::query_gsi3(), 1, PAGE)),
    );
    ratio::report(
        &format!(
            "first page of {PAGE} with {LATENCY:?} latency, one round trip to 21 hash shards vs unsharded"
        ),
        &one_round_time,
        1.5,
    );
    watch.report();
    // What one round of 21 requests takes here: DynamoDB Local answers them on the same two
    // cores, where DynamoDB would answer each from its own partition.
    let watch = machine::Watch::start();
    let delayed_client = delayed.client().clone();
    let round = ratio::compare(
        21,
        3,
        || runtime.block_on(pages(&delayed, Album::query_gsi1(), 1, PAGE)),
        || runtime.block_on(one_round_by_hand(&delayed_client, &table)),
    );
    println!(
        "first page of {PAGE} with {LATENCY:?} latency, 21 hash shards vs one round of 21 requests by hand: \
         candidate {:?}, baseline {:?}, ratio {:.3} (no target)",
        round.candidate_median,
        round.baseline_median,
        round.value()
    );
    watch.report();
    let watch = machine::Watch::start();
    let range_listing = ratio::compare(
        11,
        1,
        || runtime.block_on(listing(&delayed, Album::query_gsi2())),
        || runtime.block_on(listing(&delayed, Album::query_gsi1())),
    );
    ratio::report(
        &format!("whole listing with {LATENCY:?} latency, 21 range shards vs 21 hash shards"),
        &range_listing,
        1.2,
    );
    watch.report();

    println!(
        "merged_page: first_page_units={:.2}x first_page_requests={first_requests} later_pages_units<={later:.2}x later_pages_floor<={later_floor:.2}x \
         page_{LARGE_PAGE}_units={large:.2}x listing_units={listing_units:.3}x listing_time={:.2}x \
         first_page_time_20ms={:.2}x first_page_vs_one_round_20ms={:.2}x range_vs_hash_listing_20ms={:.2}x \
         one_round_trip_units<={one_round_worst:.2}x one_round_trip_time_20ms={:.2}x",
        page_ratios[0],
        listing_time.value(),
        first_page.value(),
        round.value(),
        range_listing.value(),
        one_round_time.value(),
    );
    runtime.block_on(db.delete_table::<Bench>()).expect("delete table");
    drop(connection);
}

// A catalogue skewed like real ones (as in `examples/music.rs`): many titles starting with "the"
// or "live", a hot "Greatest Hits", titles in other scripts and with compatibility forms.

const LABELS: &[&str] = &["Ultimae Records", "Warp", "Sub Pop", "Nonesuch", "ECM", "Rough Trade", "4AD"];
const GENRES: &[&str] = &["ambient", "electronic", "downtempo", "rock", "jazz", "folk", "pop", "classical"];

/// `count` albums, each with its own artist and title pair, and liner notes that bring each to
/// about 500 bytes.
fn catalogue(count: usize) -> Vec<Album> {
    let mut random = titles::Lcg(2005);
    let mut taken = HashSet::new();
    let mut albums = Vec::with_capacity(count);
    while albums.len() < count {
        let title = titles::title(&mut random);
        let artist = format!("{} {}", titles::artist(&mut random), random.below(40));
        if taken.insert((artist.clone(), title.clone())) {
            let genres = vec![random.pick(GENRES).to_owned(), random.pick(GENRES).to_owned()];
            let words: Vec<&str> = (0..31).map(|_| random.pick(titles::NOUNS)).collect();
            let notes = words.join(" ");
            albums.push(Album {
                artist,
                title,
                year: 1960 + random.below(66) as u16,
                label: random.pick(LABELS).to_owned(),
                genres,
                notes,
            });
        }
    }
    albums
}
