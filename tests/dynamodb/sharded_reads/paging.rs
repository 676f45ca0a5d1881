//! Pages of sharded queries: exact resumption with random page sizes, streams resumed from a
//! page cursor, and cursors of other layouts or queries rejected.

use super::fixture::{assert_same, datasets, ids, Dataset, Lcg, SHARDS};
use super::listings::directed;
use super::shard_model::Entry;
use crate::db;
use dynashard::query::{CursorError, Layout, ShardMode};
use dynashard::{Db, Error, Page};

/// Reads `data` page by page with random page sizes up to `largest`; returns the items and the
/// number of pages.
async fn paged(
    db: &Db,
    data: &Dataset,
    descending: bool,
    seed: u64,
    largest: u64,
) -> (Vec<(u32, u32)>, usize) {
    let mut random = Lcg(seed);
    let (mut cursor, mut seen, mut pages) = (None::<String>, Vec::new(), 0);
    loop {
        let size = 1 + random.below(largest) as usize;
        let query = directed(data.query().page_size(size), descending);
        let page = db.page(&query, cursor.as_deref()).await.expect("a page");
        pages += 1;
        assert!(pages <= data.rows.len() + 1, "the pages never end");
        assert!(page.items.len() <= size);
        assert!(page.stats.requests >= 1, "a page reports its requests");
        seen.extend(page.items.iter().map(|entry| (entry.shard, entry.n)));
        match page.cursor {
            Some(next) => cursor = Some(next),
            None => return (seen, pages),
        }
    }
}

#[tokio::test]
async fn random_page_sizes_resume_exactly_across_shards() {
    let db = db().await;
    let (merged, ranged) = datasets(&db).await;
    for (data, largest) in [(ranged, 700), (merged, 1_500)] {
        for (descending, seed) in [(false, 1), (true, 2)] {
            let unpaged = ids(&db, directed(data.query(), descending)).await;
            assert_same(&unpaged, &data.expected(descending, |_| true), "the unpaged stream");
            let (pages, count) = paged(&db, data, descending, seed, largest).await;
            assert!(count > 10, "{count} pages");
            assert_same(&pages, &unpaged, &format!("{:?} pages, descending: {descending}", data.mode));
        }
    }
}

#[tokio::test]
async fn tiny_pages_cross_shard_boundaries() {
    let db = db().await;
    let (merged, ranged) = datasets(&db).await;
    for data in [ranged, merged] {
        // Two-item pages over a narrow range: most pages end on a shard boundary or cut a run of
        // equal keys on different shards.
        let query = || data.query().between("9", "B").page_size(2);
        let unpaged = ids(&db, query()).await;
        assert!(unpaged.len() > 20, "{} items", unpaged.len());
        let (mut cursor, mut seen) = (None::<String>, Vec::new());
        loop {
            let page: Page<Entry> = db.page(&query(), cursor.as_deref()).await.expect("a page");
            seen.extend(page.items.iter().map(|entry| (entry.shard, entry.n)));
            assert!(seen.len() <= unpaged.len(), "the pages repeat items");
            match page.cursor {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        assert_same(&seen, &unpaged, &format!("{:?} two-item pages", data.mode));
    }
}

#[tokio::test]
async fn a_sharded_stream_resumes_from_a_page_cursor() {
    let db = db().await;
    let (merged, ranged) = datasets(&db).await;
    for data in [merged, ranged] {
        for descending in [false, true] {
            let expected = data.expected(descending, |_| true);
            let first =
                db.page(&directed(data.query().page_size(1_234), descending), None).await.expect("a page");
            let cursor = first.cursor.expect("more pages");
            let rest = ids(&db, directed(data.query().start_after(cursor), descending)).await;
            assert_same(&rest, &expected[1_234..], &format!("{:?} after one page", data.mode));
        }
    }
}

/// An unsharded partition of `count` entries, written through the entity's own key.
pub async fn solo_partition(db: &Db, count: u32) -> String {
    let bucket = crate::unique("solo");
    let entries: Vec<Entry> =
        (0..count).map(|n| Entry { bucket: bucket.clone(), title: format!("{n:04}"), shard: 0, n }).collect();
    db.batch_put(&entries).await.expect("the partition is written");
    bucket
}

fn reason<T: std::fmt::Debug>(result: dynashard::Result<T>) -> CursorError {
    match result {
        Err(Error::InvalidCursor { reason }) => reason,
        other => panic!("expected an invalid cursor, got {other:?}"),
    }
}

#[tokio::test]
async fn cursors_of_other_layouts_and_queries_are_rejected() {
    let db = db().await;
    let (merged, ranged) = datasets(&db).await;
    let solo = solo_partition(&db, 60).await;
    for data in [merged, ranged] {
        let query = data.query().page_size(50);
        let cursor = db.page(&query, None).await.expect("a page").cursor.expect("more pages");
        assert_eq!(db.page(&query, Some(&cursor)).await.expect("the same layout").items.len(), 50);

        let relaid = Entry::query("unused")
            .sharded(data.layout(Layout::Random { shards: SHARDS as u32 }))
            .page_size(50);
        assert_eq!(reason(db.page(&relaid, Some(&cursor)).await), CursorError::LayoutChanged);
        let mut other_mode = data.layout(Layout::Hash { shards: SHARDS as u32 });
        other_mode.mode = if data.mode == ShardMode::Merge { ShardMode::InOrder } else { ShardMode::Merge };
        let other_mode = Entry::query("unused").sharded(other_mode).page_size(50);
        assert_eq!(reason(db.page(&other_mode, Some(&cursor)).await), CursorError::LayoutChanged);
        let mut fewer = data.layout(Layout::Hash { shards: SHARDS as u32 });
        fewer.partitions.pop();
        let fewer = Entry::query("unused").sharded(fewer).page_size(50);
        assert_eq!(reason(db.page(&fewer, Some(&cursor)).await), CursorError::LayoutChanged);
        let relaid_stream = Entry::query("unused")
            .sharded(data.layout(Layout::Random { shards: SHARDS as u32 }))
            .start_after(cursor.clone());
        let streamed: Result<Vec<Entry>, _> =
            futures::TryStreamExt::try_collect(db.stream(relaid_stream)).await;
        assert!(matches!(streamed, Err(Error::InvalidCursor { reason: CursorError::LayoutChanged })));

        assert_eq!(reason(db.page(&query.descending(), Some(&cursor)).await), CursorError::WrongQuery);
        let unsharded = Entry::query(&solo).page_size(50);
        assert_eq!(reason(db.page(&unsharded, Some(&cursor)).await), CursorError::WrongQuery);
        let unsharded_cursor = db.page(&unsharded, None).await.expect("a page").cursor.expect("more");
        let query = data.query().page_size(50);
        assert_eq!(reason(db.page(&query, Some(&unsharded_cursor)).await), CursorError::WrongQuery);

        let mut edited = cursor.into_bytes();
        edited[7] = if edited[7] == b'A' { b'B' } else { b'A' };
        let edited = String::from_utf8(edited).expect("ASCII");
        assert!(matches!(
            reason(db.page(&query, Some(&edited)).await),
            CursorError::Tampered | CursorError::Malformed
        ));
    }
}
