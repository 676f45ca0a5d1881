//! A time window read through minute buckets with a bucket directory, against the same page
//! from an unsharded index of the same items, and against the floor of the bucket layout.
//!
//! 250 readings of 300 B to 700 B in a 3-day window (4,320 minute buckets over 4 random shards:
//! 17,280 partitions), arriving in 10 bursts of 25 a few minutes long. The floor of a page: for
//! every partition (bucket and shard) that holds items in a bucket the page has items of (a
//! bucket's shards are merged, so each is read to know where its next item falls), its items in
//! the page and the next one, rounded up to 4 KB, at least a unit each, as eventually consistent
//! reads.

use super::Social;
use aws_sdk_dynamodb::types::AttributeValue;
use aws_sdk_dynamodb::Client;
use dynashard::item::item_size;
use dynashard::{Db, Entity, Page};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// 2023-10-27T00:00:00Z.
const START: i64 = 1_698_364_800;
const WINDOW: i64 = 3 * 86_400;
const STREAM: &str = "plant";

/// One reading, in a bucketed index with a directory and in an unsharded one.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[entity(table = Social, pk = "reading#{sensor}", sk = "{at}")]
#[gsi(Windowed(pk = "{stream}", sk = "{at}#{sensor}"))]
#[shard(Windowed(random = 4, bucket = "minute", at = at, directory))]
#[gsi(Flat(pk = "{stream}", sk = "{at}#{sensor}"))]
struct Reading {
    stream: String,
    sensor: String,
    at: i64,
    body: String,
}

/// What the bucket pages cost.
pub struct Costs {
    /// Requests of the costliest of the pages.
    pub requests: usize,
    /// Requests of each page beyond the partitions of the buckets holding its items, at the most.
    pub requests_beyond_partitions: usize,
    /// Read units of each page against the unsharded index's page, at the most.
    pub units_vs_unsharded: f64,
    /// Read units of each page against its floor, at the most.
    pub units_vs_floor: f64,
}

fn readings() -> Vec<Reading> {
    let mut random = 1_234u64;
    let mut next = move |bound: u64| {
        random = random.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (random >> 33) % bound
    };
    (0..250i64)
        .map(|n| {
            let at = START + 3_600 + 25_000 * (n / 25) + 10 * (n % 25);
            let body = "r".repeat(300 + next(400) as usize);
            Reading { stream: STREAM.into(), sensor: format!("sensor{n:03}"), at, body }
        })
        .collect()
}

fn bytes(reading: &Reading) -> u64 {
    item_size(&dynashard::item::to_item(reading).expect("a reading maps to an item")) as u64
}

/// The bucket partition each reading was put in (its shard is random: read back).
async fn partitions(client: &Client, table: &str) -> BTreeMap<i64, String> {
    let (mut start, mut placed) = (None, BTreeMap::new());
    loop {
        let output = client
            .scan()
            .table_name(table)
            .filter_expression("attribute_exists(win_pk)")
            .set_exclusive_start_key(start)
            .send()
            .await
            .expect("a scan");
        for item in output.items() {
            let (Some(AttributeValue::S(partition)), Some(AttributeValue::N(at))) =
                (item.get("win_pk"), item.get("at"))
            else {
                continue;
            };
            placed.insert(at.parse().expect("a time"), partition.clone());
        }
        start = output.last_evaluated_key;
        if start.is_none() {
            return placed;
        }
    }
}

/// The partitions holding items in the buckets `page` has items of.
fn touched<'a>(page: &[Reading], placed: &'a BTreeMap<i64, String>) -> BTreeSet<&'a str> {
    let buckets: BTreeSet<i64> = page.iter().map(|reading| reading.at.div_euclid(60)).collect();
    let in_buckets = placed.iter().filter(|(at, _)| buckets.contains(&at.div_euclid(60)));
    in_buckets.map(|(_, partition)| partition.as_str()).collect()
}

/// The floor of `page`: see the module's documentation.
fn floor(page: &[Reading], all: &[Reading], placed: &BTreeMap<i64, String>) -> f64 {
    let mut per_partition: BTreeMap<&str, u64> =
        touched(page, placed).into_iter().map(|partition| (partition, 0)).collect();
    for reading in page {
        *per_partition.entry(placed[&reading.at].as_str()).or_default() += bytes(reading);
    }
    let end = page.last().map_or(i64::MIN, |reading| reading.at);
    let units: u64 = per_partition
        .iter()
        .map(|(partition, page_bytes)| {
            let next = all.iter().find(|reading| reading.at > end && placed[&reading.at] == *partition);
            (page_bytes + next.map_or(0, bytes)).div_ceil(4_096).max(1)
        })
        .sum();
    units as f64 / 2.0
}

/// Writes the readings, then reads the first `pages` pages of `size` both ways and prints them.
pub async fn measure(db: &Db, size: usize, pages: usize) -> Costs {
    let all = readings();
    db.batch_put(&all).await.expect("the readings are written");
    let placed = partitions(db.client(), db.table_name::<Social>()).await;
    let window = || Reading::query_windowed(STREAM, START, START + WINDOW - 1).page_size(size);
    let flat = || Reading::query_flat(STREAM).page_size(size);
    let mut costs =
        Costs { requests: 0, requests_beyond_partitions: 0, units_vs_unsharded: 0.0, units_vs_floor: 0.0 };
    let (mut cursor, mut flat_cursor) = (None::<String>, None::<String>);
    println!("bucket page | requests | partitions | directory | units | unsharded | floor");
    for number in 1..=pages {
        let page: Page<Reading> = db.page(&window(), cursor.as_deref()).await.expect("a bucket page");
        let unsharded = db.page(&flat(), flat_cursor.as_deref()).await.expect("an unsharded page");
        assert_eq!(page.items, unsharded.items, "the same page both ways");
        let expected = &all[(number - 1) * size..number * size];
        assert_eq!(page.items, expected, "page {number} in time order");
        let held = touched(&page.items, &placed);
        let floor = floor(&page.items, &all, &placed);
        let stats = &page.stats;
        println!(
            "{number:>11} | {:>8} | {:>10} | {:>9} | {:>5.1} | {:>9.1} | {floor:>5.1}",
            stats.requests,
            held.len(),
            stats.directory_requests,
            stats.capacity_units,
            unsharded.stats.capacity_units
        );
        costs.requests = costs.requests.max(stats.requests);
        costs.requests_beyond_partitions =
            costs.requests_beyond_partitions.max(stats.requests.saturating_sub(held.len()));
        costs.units_vs_unsharded =
            costs.units_vs_unsharded.max(stats.capacity_units / unsharded.stats.capacity_units);
        costs.units_vs_floor = costs.units_vs_floor.max(stats.capacity_units / floor);
        cursor = page.cursor;
        flat_cursor = unsharded.cursor;
    }
    costs
}
