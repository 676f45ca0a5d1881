//! Minute buckets over four random shards, read bucket after bucket: a page costs requests in
//! proportion to the buckets that hold its notes, not to the window.

use super::model::{floor, note, Lcg, Note};
use crate::{db, unique};
use futures::TryStreamExt;
use std::collections::BTreeSet;

/// 2023-10-27T00:00:00Z.
const START: i64 = 1_698_364_800;
const DAY: i64 = 86_400;

#[tokio::test]
async fn a_minute_bucket_page_costs_requests_by_the_buckets_that_hold_it() {
    let db = db().await;
    floor(&db).await;
    let group = unique("feed");
    let mut random = Lcg(23);
    // 500 notes, one every 30 seconds from the start of a day's window: 1,440 minute buckets
    // over 4 shards, 5,760 partitions, of which the notes fill the first 250 buckets.
    let notes: Vec<Note> =
        (0..500).map(|n| note(&group, n, &mut random, START + i64::from(n) * 30)).collect();
    db.batch_put(&notes).await.expect("the notes are written");
    let window = || Note::query_feed(&group, START, START + DAY - 1);

    let (mut cursor, mut read) = (None::<String>, Vec::new());
    for page in 0..5 {
        let page_read = db.page(&window().page_size(20), cursor.as_deref()).await.expect("a page");
        assert_eq!(page_read.items.len(), 20);
        let buckets: BTreeSet<i64> = page_read.items.iter().map(|note| note.at.div_euclid(60)).collect();
        let stats = &page_read.stats;
        assert!(
            stats.requests <= 4 * (buckets.len() + 2),
            "page {page}: {stats:?} for {} buckets",
            buckets.len()
        );
        assert_eq!(stats.per_shard_requests.len(), 4, "requests count under their shard");
        let next = page_read.cursor.expect("more notes");
        assert!(next.len() <= 512, "a cursor of {} characters", next.len());
        cursor = Some(next);
        read.extend(page_read.items.iter().map(|note| note.n));
    }
    assert_eq!(read, (0..100).collect::<Vec<u32>>(), "five pages in time order");

    // The whole window, and a short one read backwards, are exact.
    let all: Vec<Note> = db.stream(window()).try_collect().await.expect("the window");
    assert_eq!(all.iter().map(|note| note.n).collect::<Vec<_>>(), (0..500).collect::<Vec<u32>>());
    let back: Vec<Note> = db
        .stream(Note::query_feed(&group, START + 600, START + 1_799).descending())
        .try_collect()
        .await
        .expect("a short window backwards");
    assert_eq!(back.iter().map(|note| note.n).collect::<Vec<_>>(), (20..60).rev().collect::<Vec<u32>>());
}
