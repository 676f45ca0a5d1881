//! Page-by-page reads with random page sizes resume exactly where the last page stopped, across
//! shard boundaries, and a stream resumes from a page's cursor.
//!
//! A page of a merged index asks every shard for a page's worth, so paging a merge reads about
//! `shards` times what it returns: the merges are paged over the first records only, the range
//! listing from end to end.

use super::data::{assert_same, data, directed, ids, with_query, Lcg, Listing, Strategy};
use super::model::E2eRecord;
use crate::db;
use dynashard::{Db, Query};

/// A page-by-page read: the records in order, and the record numbers of each page.
struct Paged {
    records: Vec<u32>,
    pages: Vec<Vec<u32>>,
}

/// Reads `query()` page by page, each page of a random size up to `largest`, until the end or
/// until `enough` records are read.
async fn paged<F>(
    db: &Db,
    query: impl Fn() -> Query<E2eRecord, F>,
    seed: u64,
    largest: u64,
    enough: usize,
) -> Paged {
    let mut random = Lcg(seed);
    let (mut cursor, mut paged) = (None::<String>, Paged { records: Vec::new(), pages: Vec::new() });
    while paged.records.len() < enough {
        let size = 1 + random.below(largest) as usize;
        let page = db.page(&query().page_size(size), cursor.as_deref()).await.expect("a page");
        assert!(page.items.len() <= size, "a page holds at most its size");
        let numbers: Vec<u32> = page.items.iter().map(|record| record.n).collect();
        paged.records.extend(&numbers);
        paged.pages.push(numbers);
        match page.cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    paged
}

/// How many pages hold records of more than one shard.
fn pages_across_shards(listing: &Listing, pages: &[Vec<u32>]) -> usize {
    let crosses = |page: &&Vec<u32>| {
        page.windows(2).any(|pair| listing.shard_of[pair[0] as usize] != listing.shard_of[pair[1] as usize])
    };
    pages.iter().filter(crosses).count()
}

#[tokio::test]
async fn random_page_sizes_resume_exactly() {
    let db = db().await;
    let data = data(&db).await;
    for (seed, listing) in data.listings().into_iter().enumerate() {
        let (largest, enough) = match listing.strategy {
            Strategy::Range => (900, usize::MAX),
            Strategy::Hash | Strategy::Random => (60, 700),
        };
        for descending in [false, true] {
            let context = format!("{:?}, descending: {descending}", listing.strategy);
            let seed = 10 * seed as u64 + u64::from(descending);
            let read = with_query!(listing, |query| {
                paged(&db, || directed(query(), descending), seed, largest, enough).await
            });
            assert!(read.pages.len() > 10, "{context}: {} pages", read.pages.len());
            let expected = listing.expected(descending);
            assert!(read.records.len() >= enough.min(expected.len()), "{context}: stopped early");
            // The unpaged listing equals `expected` (see the listings tests).
            let expected = &expected[..read.records.len().min(expected.len())];
            assert_same(&read.records, expected, &format!("{context}: pages"));
            let crossing = pages_across_shards(listing, &read.pages);
            assert!(crossing > 5, "{context}: only {crossing} pages cross a shard boundary");
        }
    }
}

#[tokio::test]
async fn tiny_pages_cross_a_shard_boundary() {
    let db = db().await;
    let data = data(&db).await;
    for listing in data.listings() {
        // Twenty pages of three. The range listing starts 30 records before the end of its first
        // shard, so it crosses into the next; the merges take their pages from several shards.
        let skip = match listing.strategy {
            Strategy::Range => listing.per_shard()[0].checked_sub(30).expect("a large first shard"),
            Strategy::Hash | Strategy::Random => 0,
        };
        let expected = &listing.expected(false)[skip..skip + 60];
        let (mut cursor, mut seen) = (None::<String>, Vec::new());
        let sizes = std::iter::once(skip).filter(|skip| *skip > 0).chain([3; 20]);
        for (at, size) in sizes.enumerate() {
            let page = with_query!(listing, |query| {
                db.page(&query().page_size(size), cursor.as_deref()).await.expect("a page")
            });
            if skip == 0 || at > 0 {
                seen.extend(page.items.iter().map(|record| record.n));
            }
            cursor = page.cursor;
        }
        assert_same(&seen, expected, &format!("{:?}: twenty pages of three", listing.strategy));
        let shards: std::collections::HashSet<u32> =
            seen.iter().map(|n| listing.shard_of[*n as usize]).collect();
        assert!(shards.len() > 1, "{:?}: {shards:?}", listing.strategy);
    }
}

#[tokio::test]
async fn a_stream_resumes_from_a_page_cursor() {
    let db = db().await;
    let data = data(&db).await;
    for listing in data.listings() {
        for descending in [false, true] {
            let expected = listing.expected(descending);
            let rest = with_query!(listing, |query| {
                let first = directed(query().page_size(321), descending);
                let cursor = db.page(&first, None).await.expect("a page").cursor.expect("more pages");
                let rest = query().start_after(cursor).limit(2_000).page_size(250);
                ids(&db, directed(rest, descending)).await
            });
            let context = format!("{:?}, descending: {descending}: after one page", listing.strategy);
            assert_same(&rest, &expected[321..2_321], &context);
        }
    }
}
