//! Cursors across layout changes: pages read across a raise of a dynamic count, a cut-over, a
//! reverse and a second cut-over, concatenated, list every item once, in order, with sort keys
//! that tie by the dozen.

use crate::{unique, Own};
use dynashard::metadata::ShardMetadata;
use dynashard::query::CursorError;
use dynashard::reshard::{Backfill, Layout, Verify};
use dynashard::{Db, Entity, Error, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use std::time::Duration;

const METADATA: &str = "CursorReshardMetadataTests";

#[derive(Table)]
#[table(
    name = "CursorReshardTests",
    pk = "pk",
    sk = "sk",
    shard_metadata = "CursorReshardMetadataTests",
    stream = "new_image"
)]
#[gsi(ByYear(pk = "year_pk", sk = "year_sk"))]
#[gsi(ByYearNext(pk = "next_pk", sk = "next_sk"))]
#[gsi(ByDay(pk = "day_pk", sk = "day_sk"))]
struct Releases;

/// Releases of a shelf, listed by year: a dozen years, a dozen releases or more each. Hashed by
/// year, a year's releases tie within one shard (another one in each layout); in dynamic shards
/// they tie across every shard.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[entity(table = Releases, pk = "{shelf}", sk = "release#{id}")]
#[gsi(ByYear(pk = "years#{shelf}", sk = "{year}"))]
#[shard(ByYear(hash = 4, by = year))]
#[gsi(ByDay(pk = "days#{shelf}", sk = "{year}"))]
#[shard(ByDay(dynamic, max = 16))]
struct Release {
    shelf: String,
    id: String,
    year: u32,
}

fn release(shelf: &str, n: u32) -> Release {
    Release { shelf: shelf.to_owned(), id: format!("r{n:04}"), year: 1990 + n % 12 }
}

async fn setup(own: &Own) -> Db {
    let metadata = ShardMetadata::new(METADATA).cache_for(Duration::from_millis(50));
    let db = own.db().with_shard_metadata(metadata);
    db.create_table::<Releases>().await.unwrap();
    db.create_shard_metadata_table().await.unwrap();
    db
}

/// A small deterministic generator of page sizes: from a seed, up to a largest size.
struct Sizes(u64, u64);

impl Sizes {
    fn next(&mut self) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        1 + (self.0 % self.1) as usize
    }
}

/// Checks that `paged` is `listed` read in pages: the same items, each once, with the same
/// sequence of sort keys (equal years may come in another order: their order within a year is
/// the layout's).
fn assert_same_listing(paged: &[Release], listed: &[Release], case: &str) {
    let years = |releases: &[Release]| releases.iter().map(|release| release.year).collect::<Vec<_>>();
    assert_eq!(years(paged), years(listed), "{case}: the years in order");
    let mut paged_sorted = paged.to_vec();
    paged_sorted.sort();
    let mut listed_sorted = listed.to_vec();
    listed_sorted.sort();
    let before = paged_sorted.len();
    paged_sorted.dedup();
    assert_eq!(paged_sorted.len(), before, "{case}: an item came twice");
    assert_eq!(paged_sorted, listed_sorted, "{case}: every item, once");
}

#[tokio::test]
async fn pages_read_across_raises_of_a_dynamic_count_list_every_item_once_in_order() {
    let own = crate::own().await;
    let db = setup(&own).await;
    for seed in 1..=3u64 {
        let shelf = unique("cursor-raise");
        let query = || Release::query_by_day(&shelf);
        // Three shards to start with, so that a year's releases tie across them.
        db.raise_shard_count(&query()).await.unwrap();
        db.raise_shard_count(&query()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
        let releases: Vec<Release> = (0..48).map(|n| release(&shelf, n)).collect();
        db.batch_put(&releases).await.unwrap();

        let mut sizes = Sizes(seed * 7919, 8);
        let (mut paged, mut cursor, mut pages) = (Vec::new(), None::<String>, 0);
        let mut late = Vec::new();
        loop {
            let page = db.page(&query().page_size(sizes.next()), cursor.as_deref()).await.unwrap();
            paged.extend(page.items);
            pages += 1;
            let Some(next) = page.cursor else { break };
            cursor = Some(next);
            if pages % 2 == seed as usize % 2 && late.len() < 3 {
                // A raise between two pages; the new shard gets releases of a year after all.
                db.raise_shard_count(&query()).await.unwrap();
                tokio::time::sleep(Duration::from_millis(100)).await;
                let next = release(&shelf, 1_000 + late.len() as u32);
                let next = Release { year: 2100, ..next };
                db.put(&next).await.unwrap();
                late.push(next);
            }
        }
        assert_eq!(late.len(), 3, "seed {seed}: three raises while paging");
        let listed: Vec<Release> = db.stream(query()).try_collect().await.unwrap();
        assert_eq!(listed.len(), 51);
        assert_same_listing(&paged, &listed, &format!("seed {seed}"));
    }
}

/// How many items returned before a layout change a cursor names.
fn carried(cursor: &str) -> usize {
    use base64::Engine;
    let payload = cursor.split('.').next().unwrap();
    let payload = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload).unwrap();
    let payload: serde_json::Value = serde_json::from_slice(&payload).unwrap();
    payload["e"]["t"].as_array().map_or(0, Vec::len)
}

/// A listing of a shelf by year, read a page at a time.
struct Listing {
    sizes: Sizes,
    cursor: Option<String>,
    paged: Vec<Release>,
    done: bool,
}

impl Listing {
    fn new(seed: u64, largest: u64) -> Self {
        Listing { sizes: Sizes(seed, largest), cursor: None, paged: Vec::new(), done: false }
    }
}

/// Reads `pages[i]` more pages of listing `i` (or to its end).
async fn read(db: &Db, shelf: &str, listings: &mut [Listing], pages: [usize; 3]) {
    for (listing, pages) in listings.iter_mut().zip(pages) {
        for _ in 0..pages {
            if listing.done {
                break;
            }
            let query = Release::query_by_year(shelf).page_size(listing.sizes.next());
            let page = db.page(&query, listing.cursor.as_deref()).await.unwrap();
            listing.paged.extend(page.items);
            listing.done = page.cursor.is_none();
            listing.cursor = page.cursor;
        }
    }
}

#[tokio::test]
async fn pages_read_across_a_cut_over_a_reverse_and_a_second_cut_over_list_every_item_once_in_order() {
    let own = crate::own().await;
    let db = setup(&own).await;
    let shelf = unique("cursor-reshard");
    // Written in reverse: the source index holds a year's releases in an order of its own, the
    // target (filled by a scan of the table) in another.
    let releases: Vec<Release> = (0..96).rev().map(|n| release(&shelf, n)).collect();
    db.batch_put(&releases).await.unwrap();
    let listed_before: Vec<Release> = db.stream(Release::query_by_year(&shelf)).try_collect().await.unwrap();
    assert_eq!(listed_before.len(), 96);

    db.start_resharding::<Release>(Releases::BY_YEAR, Releases::BY_YEAR_NEXT, Layout::hash(8)).await.unwrap();
    db.backfill::<Release>(Releases::BY_YEAR, Backfill::default().segments(2)).await.unwrap();
    let verified = db.verify_resharding::<Release>(Releases::BY_YEAR, Verify::default()).await.unwrap();
    assert!(verified.is_clean(), "{verified:?}");

    // Three listings in pages, each crossing the changes at other pages; the last in pages of
    // one to four items, which cross inside a year's releases.
    let mut readers: Vec<Listing> =
        [(1, 13), (2, 9), (4, 4)].map(|(seed, largest)| Listing::new(seed * 104_729, largest)).into();
    read(&db, &shelf, &mut readers, [2, 3, 6]).await;
    let probe = Release::query_by_year(&shelf).page_size(2);
    let before = db.page(&probe, None).await.unwrap();
    db.cut_over::<Release>(Releases::BY_YEAR).await.unwrap();
    // A page inside the first year's releases, resumed across the cut-over, ends inside them too:
    // its cursor names the two released before the cut-over, which the target index may hold
    // after the page's end. (DynamoDB Local orders a sort key's items alike in every index.)
    let crossed = db.page(&probe, before.cursor.as_deref()).await.unwrap();
    assert_eq!([&before.items[..], &crossed.items[..]].concat(), listed_before[..4].to_vec());
    assert_eq!(carried(&crossed.cursor.unwrap()), 2);
    read(&db, &shelf, &mut readers, [3, 2, 6]).await;
    db.reverse_cut_over::<Release>(Releases::BY_YEAR).await.unwrap();
    read(&db, &shelf, &mut readers, [2, 4, 6]).await;
    let verified = db.verify_resharding::<Release>(Releases::BY_YEAR, Verify::default()).await.unwrap();
    assert!(verified.is_clean(), "{verified:?}");
    db.cut_over::<Release>(Releases::BY_YEAR).await.unwrap();
    read(&db, &shelf, &mut readers, [usize::MAX; 3]).await;

    let listed_after: Vec<Release> = db.stream(Release::query_by_year(&shelf)).try_collect().await.unwrap();
    for (n, reader) in readers.iter().enumerate() {
        assert!(reader.done, "reader {n} read to the end");
        assert_same_listing(&reader.paged, &listed_before, &format!("reader {n}"));
        assert_same_listing(&reader.paged, &listed_after, &format!("reader {n}, against the new layout"));
    }

    // Once the source is being emptied, a cursor of its layout has nothing to resume from.
    let source_cursor = {
        db.reverse_cut_over::<Release>(Releases::BY_YEAR).await.unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
        let page = db.page(&Release::query_by_year(&shelf).page_size(5), None).await.unwrap();
        let verified = db.verify_resharding::<Release>(Releases::BY_YEAR, Verify::default()).await.unwrap();
        assert!(verified.is_clean(), "{verified:?}");
        db.cut_over::<Release>(Releases::BY_YEAR).await.unwrap();
        page.cursor.unwrap()
    };
    // A reader that caches resharding records for an hour learns of the cut-over, and will not
    // see the finish.
    let metadata = ShardMetadata::new(METADATA).cache_for(Duration::from_secs(3_600));
    let reader = own.db().with_shard_metadata(metadata);
    let query = || Release::query_by_year(&shelf).page_size(5);
    reader.page(&query(), Some(&source_cursor)).await.expect("resumed across the cut-over");
    db.finish_resharding::<Release>(Releases::BY_YEAR, Backfill::default()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let refused = db.page(&query(), Some(&source_cursor)).await;
    assert!(
        matches!(refused, Err(Error::InvalidCursor { reason: CursorError::LayoutChanged })),
        "{refused:?}"
    );
    // The reader's cache still says "cut over", where the source is whole; the record, read
    // afresh after the old layout's ties, says it is being emptied, and the record decides.
    let refused = reader.page(&query(), Some(&source_cursor)).await;
    assert!(
        matches!(refused, Err(Error::InvalidCursor { reason: CursorError::LayoutChanged })),
        "a reader whose cache missed the finish: {refused:?}"
    );
}
