//! Music: an album index too busy for one partition, sharded by title ranges and read back in
//! order (seed: ordered key sharding).
//!
//! One partition serves about 24 MB/s of reads and 1 MB/s of writes. Listing albums of 500 bytes
//! at 10,000 queries/s of 100 items is 500 MB/s, about 21 partitions' worth, so the title index
//! gets 21 shards. Random or hashed shard ids spread the load but lose the order: every listing
//! must ask all 21 shards and merge. Range shards cut at boundaries taken from the titles
//! themselves keep it: `examples/data/album_boundaries_21.json` holds every 263,619th of the
//! 5.5 million MusicBrainz release titles, sorted as NFKD of the lowercased title, so shard 0
//! holds the first titles, shard 20 the last, and a listing reads them one after another.
//!
//! The example imports a few thousand generated albums (skewed like real catalogues: many
//! titles starting with "the" or "live", a hot "Greatest Hits", titles in other scripts),
//! lists the first page in order, finds albums by title prefix, and compares what a range
//! listing and a hash-merged listing of the same albums cost.
//!
//! ```text
//! cargo run --example music
//! ```

use dynashard::shard::{hash_shard, Boundaries, Normalization};
use dynashard::{Db, Entity, Query, Table};
use futures::TryStreamExt;
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::time::Instant;

#[path = "support/titles.rs"]
mod titles;

#[derive(Table)]
#[table(name = "MusicCatalog", pk = "pk", sk = "sk")]
#[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
#[gsi(ByTitleHash(pk = "title_hash_pk", sk = "title_hash_sk"))]
#[gsi(ByTitlePlain(pk = "title_plain_pk", sk = "title_plain_sk"))]
struct Catalog;

/// `Solar Fields` / `album#Leaving Home`, listed by title three times: through 21 range shards
/// (`album#0` .. `album#20`, in order), through 21 hash shards (merged), and through one
/// unsharded partition to compare with.
#[derive(Entity, Serialize, Deserialize, Debug, Clone)]
#[entity(table = Catalog, pk = "{artist}", sk = "album#{title}")]
#[gsi(ByTitle(pk = "album", sk = "{title}"))]
#[shard(ByTitle(range = "examples/data/album_boundaries_21.json", by = title))]
#[gsi(ByTitleHash(pk = "album", sk = "{title}"))]
#[shard(ByTitleHash(hash = 21, by = title))]
#[gsi(ByTitlePlain(pk = "album", sk = "{title}"))]
struct Album {
    artist: String,
    title: String,
    year: u16,
}

const ALBUMS: usize = 4_000;
const PAGE: usize = 100;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let connection = dynashard_local::connect().await?;
    let db = Db::new(connection.client().clone());
    db.create_table::<Catalog>().await?;

    let boundaries = Boundaries::from_json(include_str!("data/album_boundaries_21.json"))?;
    println!("the seed's shard ids, computed the same way in Python and here:");
    for title in ["2 Pie Island", "Heavy Migration", "Leaving Home", "Space Cadet"] {
        let range = boundaries.shard(title, Normalization::NfkdLower);
        println!("  {title:<16} range shard {range:>2}   hash shard {:>2}", hash_shard(title, 21));
    }

    let albums = catalogue(ALBUMS);
    import(&db, &albums).await?;
    spread(&db, &albums, &boundaries).await?;
    first_page(&db).await?;
    by_prefix(&db).await?;
    costs(&db).await?;
    Ok(())
}

/// Writes the albums in batches, with a progress bar on stderr.
async fn import(db: &Db, albums: &[Album]) -> Result<(), Box<dyn std::error::Error>> {
    let started = Instant::now();
    let bar = ProgressBar::new(albums.len() as u64)
        .with_style(ProgressStyle::with_template("importing {bar:40} {pos}/{len} albums, {per_sec}")?);
    for chunk in albums.chunks(250) {
        db.batch_put(chunk).await?;
        bar.inc(chunk.len() as u64);
    }
    bar.finish_and_clear();
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for album in albums {
        *counts.entry(album.title.as_str()).or_default() += 1;
    }
    println!(
        "\nimported {} albums ({} distinct titles, \"Greatest Hits\" {} times) in {:.1} s",
        albums.len(),
        counts.len(),
        counts.get("Greatest Hits").copied().unwrap_or(0),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// How many albums each shard of each index holds, counted by DynamoDB.
async fn spread(
    db: &Db,
    albums: &[Album],
    boundaries: &Boundaries,
) -> Result<(), Box<dyn std::error::Error>> {
    println!("albums per shard (each shard is a partition: ~1,000 writes/s, ~3,000 reads/s):");
    let indexes = [
        ("range", "ByTitle", "title_pk", Album::query_by_title().plan_shards().cloned()),
        ("hash", "ByTitleHash", "title_hash_pk", Album::query_by_title_hash().plan_shards().cloned()),
    ];
    for (name, index, attribute, shards) in indexes {
        let shards = shards.ok_or("a sharded index")?;
        let mut counts = Vec::new();
        for partition in &shards.partitions {
            counts.push(count(db, index, attribute, partition).await?);
        }
        let line: Vec<String> = counts.iter().map(|count| format!("{count:>4}")).collect();
        println!("  {name:<5} {}", line.join(""));
        let (low, high) = (counts.iter().min(), counts.iter().max());
        println!(
            "        {} albums, {} to {} per shard",
            counts.iter().sum::<usize>(),
            low.unwrap_or(&0),
            high.unwrap_or(&0)
        );
    }
    let the: Vec<&Album> =
        albums.iter().filter(|album| album.title.to_lowercase().starts_with("the ")).collect();
    let the_shards: std::collections::BTreeSet<u32> =
        the.iter().map(|album| boundaries.shard(&album.title, Normalization::NfkdLower)).collect();
    println!(
        "  range shards fit the data their boundaries were cut from: here {} titles start with \"the \"\n  \
         and crowd range shards {the_shards:?}; hash shards are even, but unordered",
        the.len()
    );
    Ok(())
}

/// The first page of the title index, in order: one request to the first shard.
async fn first_page(db: &Db) -> Result<(), Box<dyn std::error::Error>> {
    let page = db.page(&Album::query_by_title().page_size(12), None).await?;
    println!("\nthe first {} albums by title ({} request):", page.items.len(), page.stats.requests);
    for album in &page.items {
        println!("  {:<32} {} ({})", album.title, album.artist, album.year);
    }
    Ok(())
}

/// Prefixes compare normalized titles ("LEA" finds "Leaving Home" and "leaving home") and read only
/// the shards whose range can hold them; hash equality reads the one shard its hash picks.
async fn by_prefix(db: &Db) -> Result<(), Box<dyn std::error::Error>> {
    for prefix in ["lea", "live in", "Ｇｏ", "се"] {
        let query = Album::query_by_title().begins_with(prefix);
        let shards = query.plan_shards().map_or(1, |shards| shards.partitions.len());
        let stream = db.stream(query);
        let stats = stream.stats().clone();
        let albums: Vec<Album> = stream.try_collect().await?;
        let mut titles: Vec<&str> = albums.iter().map(|album| album.title.as_str()).collect();
        titles.dedup();
        let shown = titles.iter().take(5).copied().collect::<Vec<_>>().join(", ");
        println!(
            "\ntitles starting with {prefix:?}: {} albums from {shards} shard(s), {} request(s)\n  {shown}{}",
            albums.len(),
            stats.requests(),
            if titles.len() > 5 { ", ..." } else { "" }
        );
    }
    let stream = db.stream(Album::query_by_title_hash().eq("Greatest Hits"));
    let stats = stream.stats().clone();
    let hits: Vec<Album> = stream.try_collect().await?;
    println!(
        "\n\"Greatest Hits\" through the hash index: {} albums, {} request(s) to shard {}",
        hits.len(),
        stats.requests(),
        hash_shard("Greatest Hits", 21)
    );
    Ok(())
}

/// What a page and a whole listing cost through range shards (read in order), hash shards
/// (merged: every shard asked about once per page, for its share) and one unsharded partition.
async fn costs(db: &Db) -> Result<(), Box<dyn std::error::Error>> {
    println!("\nlisting by title, pages of {PAGE}: requests, items read, read units");
    println!("  {:<22} {:>24} {:>24} {:>24}", "", "one partition", "21 range shards", "21 hash shards");
    let cell =
        |(requests, items, units): (usize, usize, f64)| format!("{requests:>6} {items:>7} {units:>9.1}");
    for (name, pages) in [("first page", 1), ("first 5 pages", 5)] {
        let plain = paged(db, Album::query_by_title_plain().page_size(PAGE), pages).await?;
        let range = paged(db, Album::query_by_title().page_size(PAGE), pages).await?;
        let hash = paged(db, Album::query_by_title_hash().page_size(PAGE), pages).await?;
        println!("  {name:<22} {:>24} {:>24} {:>24}", cell(plain), cell(range), cell(hash));
    }
    let (albums, plain) = streamed(db, Album::query_by_title_plain()).await?;
    let (_, range) = streamed(db, Album::query_by_title()).await?;
    let (_, hash) = streamed(db, Album::query_by_title_hash()).await?;
    let totals =
        |stats: &dynashard::query::QueryStats| (stats.requests(), stats.items_read(), stats.capacity_units());
    let name = format!("all {albums}, streamed");
    println!(
        "  {name:<22} {:>24} {:>24} {:>24}",
        cell(totals(&plain)),
        cell(totals(&range)),
        cell(totals(&hash))
    );
    println!("  a merged page asks each shard about once, for its share in whole read units");
    Ok(())
}

/// Reads `pages` pages of `query`: requests, items read and capacity, summed.
async fn paged<F>(
    db: &Db,
    query: Query<Album, F>,
    pages: usize,
) -> Result<(usize, usize, f64), Box<dyn std::error::Error>> {
    let (mut cursor, mut totals) = (None::<String>, (0, 0, 0.0));
    for _ in 0..pages {
        let page = db.page(&query, cursor.as_deref()).await?;
        totals = (
            totals.0 + page.stats.requests,
            totals.1 + page.stats.items_read,
            totals.2 + page.stats.capacity_units,
        );
        cursor = page.cursor;
        if cursor.is_none() {
            break;
        }
    }
    Ok(totals)
}

/// Streams the whole of `query` in pages of [`PAGE`]: how many albums, and what it cost.
async fn streamed<F>(
    db: &Db,
    query: Query<Album, F>,
) -> Result<(usize, dynashard::query::QueryStats), Box<dyn std::error::Error>> {
    let stream = db.stream(query.page_size(PAGE));
    let stats = stream.stats().clone();
    let albums: Vec<Album> = stream.try_collect().await?;
    Ok((albums.len(), stats))
}

/// The number of items in one partition of an index.
async fn count(
    db: &Db,
    index: &str,
    attribute: &str,
    partition: &str,
) -> Result<usize, Box<dyn std::error::Error>> {
    let (mut count, mut start) = (0, None);
    loop {
        let page = db
            .client()
            .query()
            .table_name(db.table_name::<Catalog>())
            .index_name(index)
            .key_condition_expression("#pk = :pk")
            .expression_attribute_names("#pk", attribute)
            .expression_attribute_values(":pk", aws_sdk_dynamodb::types::AttributeValue::S(partition.into()))
            .select(aws_sdk_dynamodb::types::Select::Count)
            .set_exclusive_start_key(start)
            .send()
            .await?;
        count += page.count as usize;
        start = page.last_evaluated_key;
        if start.is_none() {
            return Ok(count);
        }
    }
}

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
            _ => artist,
        };
        if taken.insert((artist.clone(), title.clone())) {
            albums.push(Album { artist, title, year: 1960 + random.below(66) as u16 });
        }
    }
    albums
}
