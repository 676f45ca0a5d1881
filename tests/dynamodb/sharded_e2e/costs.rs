//! What the sharded listings cost: requests in flight under a concurrency cap, about one request
//! per page for range shards, at most one request per shard for a limited merge.

use super::data::{data, directed, with_query, Listing, Strategy, RECORDS};
use super::model::E2eRecord;
use crate::db;
use crate::requests::watched;
use dynashard::query::QueryStats;
use dynashard::{Db, Query};
use futures::TryStreamExt;

/// Streams `query` to the end: how many records it yielded and what it cost.
async fn run<F>(db: &Db, query: Query<E2eRecord, F>) -> (usize, QueryStats) {
    let stream = db.stream(query);
    let stats = stream.stats().clone();
    let records: Vec<E2eRecord> = stream.try_collect().await.expect("the stream reads");
    (records.len(), stats)
}

fn merged(listing: &Listing) -> bool {
    listing.strategy != Strategy::Range
}

#[tokio::test]
async fn a_merge_never_exceeds_its_concurrency() {
    let db = db().await;
    let data = data(&db).await;
    for listing in data.listings().into_iter().filter(|listing| merged(listing)) {
        let (watched, requests) = watched(&db);
        let (read, stats) =
            with_query!(listing, |query| run(&watched, query().page_size(100).concurrency(3)).await);
        assert_eq!(read, RECORDS);
        let context = format!("{:?}", listing.strategy);
        assert!(requests.max_in_flight() <= 3, "{context}: {} requests in flight", requests.max_in_flight());
        assert!(requests.max_in_flight() >= 2, "{context}: the shards are read concurrently");
        assert_eq!(requests.total(), stats.requests(), "{context}: the stats count every request");
        assert!(stats.requests() >= RECORDS / 100, "{context}: {} requests", stats.requests());
    }
}

#[tokio::test]
async fn a_range_listing_costs_about_one_request_per_page() {
    let db = db().await;
    let data = data(&db).await;
    let range = &data.range;
    // Streamed: one request per full page of a shard, plus its last, partial one.
    let (read, stats) = run(&db, E2eRecord::query_title_range().page_size(100)).await;
    assert_eq!(read, RECORDS);
    let per_shard: Vec<usize> = range.per_shard().iter().map(|count| count / 100 + 1).collect();
    assert_eq!(stats.per_shard_requests(), per_shard, "one request per page");
    assert!(stats.requests() <= RECORDS / 100 + range.shards as usize, "{}", stats.requests());
    assert_eq!(stats.items_read(), RECORDS, "nothing is read twice");
    assert!(stats.capacity_units() > 0.0);

    // Page by page: a page costs one request, two when it crosses into the next shard.
    let query = E2eRecord::query_title_range().page_size(100);
    let (mut cursor, mut pages, mut requests) = (None::<String>, 0, 0);
    loop {
        let page = db.page(&query, cursor.as_deref()).await.expect("a page");
        assert!((1..=2).contains(&page.stats.requests), "page {pages}: {:?}", page.stats);
        (pages, requests) = (pages + 1, requests + page.stats.requests);
        match page.cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    // A last full page cannot know it is the last: an empty page may follow it.
    assert!((RECORDS.div_ceil(100)..=RECORDS.div_ceil(100) + 1).contains(&pages), "{pages} pages");
    assert!(requests <= pages + range.shards as usize, "{requests} requests for {pages} pages");

    // The first ten records: one request to the first shard, where a merge asks every shard.
    let (read, first) = run(&db, E2eRecord::query_title_range().limit(10)).await;
    assert_eq!((read, first.requests()), (10, 1));
    let (read, merged) = run(&db, E2eRecord::query_title_hash().limit(10)).await;
    assert_eq!((read, merged.requests()), (10, data.hash.shards as usize));
}

#[tokio::test]
async fn a_limited_merge_asks_each_shard_about_once() {
    let db = db().await;
    let data = data(&db).await;
    for listing in data.listings().into_iter().filter(|listing| merged(listing)) {
        for descending in [false, true] {
            let (watched, requests) = watched(&db);
            let (read, limited) =
                with_query!(listing, |query| run(&watched, directed(query().limit(10), descending)).await);
            let context = format!("{:?}, descending: {descending}", listing.strategy);
            assert_eq!(read, 10, "{context}");
            // Every shard once, for its share of the ten filled to a read unit; again only a
            // shard the merge waits on, which holds more of the first ten than it was asked for.
            let per_shard = limited.per_shard_requests();
            assert!(per_shard.iter().all(|requests| (1..=2).contains(requests)), "{context}: {per_shard:?}");
            let total = requests.total();
            assert!(
                total >= listing.shards as usize && total <= listing.shards as usize + 2,
                "{context}: {total}"
            );
            assert!(limited.items_read() <= 10 * listing.shards as usize, "{context}: only what is wanted");
            assert!(limited.capacity_units() > 0.0, "{context}: capacity is reported");
        }
    }
}
