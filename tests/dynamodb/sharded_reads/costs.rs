//! What sharded reads cost: requests in flight (counted by an SDK interceptor), requests per
//! shard, capacity, and the prefetch of in-order reads.

use super::fixture::{datasets, Dataset};
use super::paging::solo_partition;
use super::shard_model::Entry;
use crate::db;
use dynashard::query::QueryStats;
use dynashard::{Db, Query};
use futures::{StreamExt, TryStreamExt};
use std::sync::Arc;
use std::time::Duration;

/// Counts operations in flight on a client.
/// A `Db` on DynamoDB Local whose requests are counted.
fn counted(db: &Db) -> (Db, Arc<crate::requests::Requests>) {
    crate::requests::watched(db)
}

/// Streams `query` to the end, returning how many entries it yielded and what it cost.
async fn run<F>(db: &Db, query: Query<Entry, F>) -> (usize, QueryStats) {
    let stream = db.stream(query);
    let stats = stream.stats().clone();
    let entries: Vec<Entry> = stream.try_collect().await.expect("the stream reads");
    (entries.len(), stats)
}

/// Requests to read each shard whole with pages of `page`: one per full page, plus the last
/// (partial or empty) one.
fn pages_per_shard(data: &Dataset, page: usize) -> Vec<usize> {
    data.per_shard().iter().map(|count| count / page + 1).collect()
}

#[tokio::test]
async fn a_merge_never_exceeds_its_concurrency() {
    let db = db().await;
    let (merged, _) = datasets(&db).await;
    for (concurrency, low) in [(3, 2), (8, 4)] {
        let (counted, counts) = counted(&db);
        let (read, stats) = run(&counted, merged.query().page_size(50).concurrency(concurrency)).await;
        assert_eq!(read, merged.rows.len());
        let (max, total) = (counts.max_in_flight(), counts.total());
        assert!((low..=concurrency).contains(&max), "concurrency {concurrency}: {max} requests in flight");
        assert_eq!(total, stats.requests(), "the stats count every request sent");
    }
}

#[tokio::test]
async fn full_listings_read_every_page_once() {
    let db = db().await;
    let (merged, ranged) = datasets(&db).await;
    for data in [ranged, merged] {
        for descending in [false, true] {
            let query = data.query().page_size(100);
            let (read, stats) = run(&db, if descending { query.descending() } else { query }).await;
            assert_eq!(read, data.rows.len());
            let expected = pages_per_shard(data, 100);
            assert_eq!(stats.per_shard_requests(), expected, "{:?}: one request per page", data.mode);
            assert_eq!(stats.requests(), expected.iter().sum::<usize>());
            assert_eq!(stats.items_read(), data.rows.len(), "nothing is read twice");
            assert!(stats.capacity_units() > 0.0, "capacity is reported");
        }
    }
}

#[tokio::test]
async fn a_limited_merge_reads_a_fraction_of_the_shards() {
    let db = db().await;
    let (merged, ranged) = datasets(&db).await;
    let (read, full) = run(&db, merged.query().page_size(100)).await;
    assert_eq!(read, merged.rows.len());
    for descending in [false, true] {
        let (counted, counts) = counted(&db);
        let query = merged.query().page_size(100).limit(10);
        let (read, limited) = run(&counted, if descending { query.descending() } else { query }).await;
        assert_eq!(read, 10);
        assert!(limited.per_shard_requests().iter().all(|requests| *requests <= 1), "{limited:?}");
        assert!(limited.requests() * 5 < full.requests(), "{} vs {}", limited.requests(), full.requests());
        assert!(limited.items_read() <= 21 * 10, "each request asks for what is still wanted");
        assert!(limited.capacity_units() < full.capacity_units());
        assert_eq!(counts.total(), limited.requests());
    }
    // Range shards stop at the first shard that has enough.
    let (read, limited) = run(&db, ranged.query().page_size(100).limit(10)).await;
    assert_eq!((read, limited.requests()), (10, 1));
}

#[tokio::test]
async fn an_in_order_read_requests_the_next_page_while_one_drains() {
    let db = db().await;
    let (_, ranged) = datasets(&db).await;
    // One request at a time: the next page of the shard, and nothing more.
    let mut stream = db.stream(ranged.query().page_size(100).concurrency(1));
    let stats = stream.stats().clone();
    let first = stream.next().await.expect("an item").expect("no error");
    assert_eq!(first.shard, 0);
    // 99 items of the first page are still buffered, yet the next request goes out.
    settle(&stats, 2).await;
    assert_eq!(stats.requests(), 2, "the next page is requested before the current one is drained");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(stats.requests(), 2, "no more than one request ahead");

    // Four at a time: four shards read ahead, each at most a page beyond what it buffers.
    let mut stream = db.stream(ranged.query().page_size(100).concurrency(4));
    let stats = stream.stats().clone();
    stream.next().await.expect("an item").expect("no error");
    settle(&stats, 4).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let ahead = stats.per_shard_requests();
    assert!(ahead.iter().take(4).all(|requests| *requests >= 1), "four shards read ahead: {ahead:?}");
    assert!(ahead.iter().skip(4).all(|requests| *requests == 0), "no more than four: {ahead:?}");
    assert!(stats.requests() <= 8, "at most two pages per shard: {ahead:?}");
}

/// Waits up to five seconds for `requests` requests to have gone out.
async fn settle(stats: &dynashard::query::QueryStats, requests: usize) {
    let mut waited = Duration::ZERO;
    while stats.requests() < requests && waited < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(10)).await;
        waited += Duration::from_millis(10);
    }
}

#[tokio::test]
async fn unsharded_queries_report_their_cost() {
    let db = db().await;
    datasets(&db).await;
    let solo = solo_partition(&db, 250).await;
    let (read, stats) = run(&db, Entry::query(&solo).page_size(100)).await;
    assert_eq!(read, 250);
    assert_eq!((stats.requests(), stats.per_shard_requests()), (3, vec![3]));
    assert_eq!(stats.items_read(), 250);
    assert!(stats.capacity_units() > 0.0);
    let page = db.page(&Entry::query(&solo).page_size(100), None).await.expect("a page");
    assert_eq!((page.items.len(), page.stats.requests, page.stats.items_read), (100, 1, 100));
    assert!(page.stats.capacity_units > 0.0);
}
