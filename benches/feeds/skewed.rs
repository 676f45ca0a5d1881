//! Merged and range pages on skewed and uniform titles, at three item sizes, against their
//! floors.
//!
//! Six sets of 3,000 discs: titles repeating hundreds of times (12 titles, drawn with a skew) or
//! all but unique, at about 200 B, 560 B and 3 KB an item, each in an index of 21 hash shards by
//! title and one of 21 range shards over the seed's boundaries. The first five pages of 100 of
//! each are read and set against their floor:
//!
//! - a hash merge: for every shard, its items in the page and the next one after them (until
//!   then nothing says its next item falls after the page), rounded up to 4 KB, at least a unit
//!   a shard, as eventually consistent reads;
//! - a range page: for every shard holding items of the page, in order, those items, and the
//!   next one of the last such shard, rounded up to 4 KB, at least a unit each.

#[path = "../../examples/support/titles.rs"]
#[allow(dead_code)] // not every name list is used here
mod titles;

use super::Social;
use dynashard::item::item_size;
use dynashard::shard::{hash_shard, Boundaries, Normalization};
use dynashard::{Db, Entity, Page, Query};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

const DISCS: usize = 3_000;
const SHARDS: u32 = 21;

/// One disc, in a hash-sharded and a range-sharded title index.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[entity(table = Social, pk = "disc#{set}#{n}", sk = "disc")]
#[gsi(Hashed(pk = "{set}", sk = "{title}#{n}"))]
#[shard(Hashed(hash = 21, by = title))]
#[gsi(Ranged(pk = "{set}", sk = "{title}"))]
#[shard(Ranged(range = "examples/data/album_boundaries_21.json", by = title))]
struct Disc {
    set: String,
    n: u32,
    title: String,
    body: String,
}

/// The worst page of a set, against its floor.
pub struct Costs {
    /// A hash merge's read units against the floor, the most of the five pages of every set.
    pub hash_vs_floor: f64,
    /// A range page's read units against the floor, the most of them.
    pub range_vs_floor: f64,
    /// A range page's requests beyond the shards holding its items, the most of them.
    pub range_requests_beyond: usize,
}

fn bytes(disc: &Disc) -> u64 {
    item_size(&dynashard::item::to_item(disc).expect("a disc maps to an item")) as u64
}

/// A set of discs of about `size` bytes; with `repeating`, 12 titles drawn with a skew.
fn discs(set: &str, repeating: bool, size: u64) -> Vec<Disc> {
    let mut random = titles::Lcg(77);
    let few: Vec<String> = (0..12).map(|_| titles::title(&mut random)).collect();
    (0..DISCS as u32)
        .map(|n| {
            let title = if repeating {
                // Title `i` about twice as often as title `i + 1`, once the first six are passed.
                few[random.below(64).trailing_zeros() as usize % few.len()].clone()
            } else {
                format!("{} {n}", titles::title(&mut random))
            };
            let mut disc = Disc { set: set.to_owned(), n, title, body: String::new() };
            disc.body = "d".repeat(size.saturating_sub(bytes(&disc)) as usize);
            disc
        })
        .collect()
}

/// Read units of the least any read of `page` could cost, where `shard_of` places a disc and
/// `order` lists every disc of the set in the index's order; `merged` for a hash merge (every
/// shard read), else range shards (the shards holding the page, in order).
fn floor(page: &[Disc], order: &[Disc], shard_of: &dyn Fn(&Disc) -> u32, merged: bool) -> f64 {
    let end = order.iter().position(|disc| Some(disc) == page.last()).map_or(order.len(), |at| at + 1);
    let mut per_shard: BTreeMap<u32, u64> =
        if merged { (0..SHARDS).map(|shard| (shard, 0)).collect() } else { BTreeMap::new() };
    for disc in page {
        *per_shard.entry(shard_of(disc)).or_default() += bytes(disc);
    }
    let last = page.last().map(shard_of);
    // DynamoDB Local charges nothing for a query that finds nothing (DynamoDB half a unit):
    // shards without items of the set cost nothing here either.
    per_shard.retain(|&shard, _| order.iter().any(|disc| shard_of(disc) == shard));
    for (&shard, total) in per_shard.iter_mut() {
        // The next item of the shard after the page: every shard of a merge, the last of a range.
        if merged || Some(shard) == last {
            if let Some(next) = order[end..].iter().find(|disc| shard_of(disc) == shard) {
                *total += bytes(next);
            }
        }
    }
    per_shard.values().map(|bytes| bytes.div_ceil(4_096).max(1)).sum::<u64>() as f64 / 2.0
}

/// A layout's name, its first pages, every disc of the set in its order, and the shard of a disc.
type Layout<'a> = (&'static str, Vec<Page<Disc>>, &'a [Disc], &'a dyn Fn(&Disc) -> u32);

/// The first five pages of 100 of `query`.
async fn pages<F>(db: &Db, query: Query<Disc, F>) -> Vec<Page<Disc>> {
    let query = query.page_size(100);
    let (mut cursor, mut pages) = (None::<String>, Vec::new());
    for _ in 0..5 {
        let page = db.page(&query, cursor.as_deref()).await.expect("a page");
        cursor = page.cursor.clone();
        pages.push(page);
    }
    pages
}

/// Writes the six sets, reads each both ways and prints what every page cost.
pub async fn measure(db: &Db) -> Costs {
    let boundaries = Boundaries::from_json(include_str!("../../examples/data/album_boundaries_21.json"))
        .expect("the seed's boundaries");
    let mut costs = Costs { hash_vs_floor: 0.0, range_vs_floor: 0.0, range_requests_beyond: 0 };
    println!("set | layout | page | requests | items read | units | floor | ratio");
    for (repeating, skew) in [(true, "repeating"), (false, "unique")] {
        for size in [200, 560, 3_000] {
            let set = format!("{skew}-{size}");
            let discs = discs(&set, repeating, size);
            db.batch_put(&discs).await.expect("the discs are written");
            // A `Db` of its own: it knows nothing yet of the sizes of the items of the index.
            let name = db.table_name::<Social>().to_owned();
            let fresh =
                Db::new(db.client().clone()).with_table_name::<Social>(name).expect("a valid table name");
            let db = &fresh;
            let hashed: Vec<Disc> = db.stream(Disc::query_hashed(&set)).try_collect().await.expect("all");
            let ranged: Vec<Disc> = db.stream(Disc::query_ranged(&set)).try_collect().await.expect("all");
            assert_eq!(hashed.len(), DISCS);
            assert_eq!(ranged.len(), DISCS);
            let by_hash = |disc: &Disc| hash_shard(&disc.title, SHARDS);
            let by_range = |disc: &Disc| boundaries.shard(&disc.title, Normalization::NfkdLower);
            let layouts: [Layout<'_>; 2] = [
                ("hash", pages(db, Disc::query_hashed(&set)).await, &hashed, &by_hash),
                ("range", pages(db, Disc::query_ranged(&set)).await, &ranged, &by_range),
            ];
            for (layout, read, order, shard_of) in layouts {
                for (number, page) in read.iter().enumerate() {
                    assert_eq!(page.items, order[number * 100..(number + 1) * 100], "{set} {layout}");
                    let merged = layout == "hash";
                    let floor = floor(&page.items, order, shard_of, merged);
                    let stats = &page.stats;
                    let ratio = stats.capacity_units / floor;
                    println!(
                        "{set} | {layout} | {} | {} | {} | {:.1} | {floor:.1} | {ratio:.2}x",
                        number + 1,
                        stats.requests,
                        stats.items_read,
                        stats.capacity_units
                    );
                    if merged {
                        costs.hash_vs_floor = costs.hash_vs_floor.max(ratio);
                    } else {
                        let held: std::collections::BTreeSet<u32> = page.items.iter().map(shard_of).collect();
                        costs.range_vs_floor = costs.range_vs_floor.max(ratio);
                        costs.range_requests_beyond =
                            costs.range_requests_beyond.max(stats.requests.saturating_sub(held.len()));
                    }
                }
            }
        }
    }
    costs
}
