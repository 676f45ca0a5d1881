//! Minute buckets over four random shards with a bucket directory: a read of a window costs the
//! partitions that hold items (and a request or two of the directory), not the window; every
//! write path records its partitions first, so nothing acknowledged is skipped.

use super::model::{floor, group, note, Lcg, Note};
use crate::db;
use dynashard::Db;
use futures::TryStreamExt;
use std::collections::BTreeSet;

/// 2023-10-27T00:00:00Z.
const START: i64 = 1_698_364_800;
const DAY: i64 = 86_400;

/// 250 notes in 10 bursts over 3 days: 25 notes 10 seconds apart (5 minute buckets) each.
async fn bursts(db: &Db, group: &str) -> Vec<Note> {
    let mut random = Lcg(7);
    let notes: Vec<Note> = (0..250)
        .map(|n| {
            let at = START + 25_000 * i64::from(n / 25) + 10 * i64::from(n % 25) + 3_600;
            note(group, n, &mut random, at)
        })
        .collect();
    db.batch_put(&notes).await.expect("the notes are written");
    notes
}

#[tokio::test]
async fn a_sparse_window_costs_the_partitions_that_hold_its_items() {
    let db = db().await;
    floor(&db).await;
    let group = group("listed");
    let notes = bursts(&db, &group).await;
    let window = || Note::query_listed(&group, START, START + 3 * DAY - 1);
    for descending in [false, true] {
        let mut expected: Vec<u32> = notes.iter().map(|note| note.n).collect();
        if descending {
            expected.reverse();
        }
        let query = || if descending { window().descending() } else { window() };
        let (mut cursor, mut read) = (None::<String>, Vec::new());
        while read.len() < expected.len() {
            let page = db.page(&query().page_size(20), cursor.as_deref()).await.expect("a page");
            let buckets: BTreeSet<i64> = page.items.iter().map(|note| note.at.div_euclid(60)).collect();
            let stats = &page.stats;
            // Each bucket's four shards at most, and the directory: never the window's 17,280.
            assert!(
                stats.requests <= 4 * buckets.len() + 3,
                "{descending}: {stats:?} for {} buckets",
                buckets.len()
            );
            assert!(stats.directory_requests >= 1 && stats.directory_requests <= 2, "{stats:?}");
            read.extend(page.items.iter().map(|note| note.n));
            match page.cursor {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        assert_eq!(read, expected, "descending: {descending}");
        let all: Vec<Note> = db.stream(query()).try_collect().await.expect("the window");
        assert_eq!(all.iter().map(|note| note.n).collect::<Vec<_>>(), expected);
    }
    // The same page without the directory reads every empty bucket up to the first burst.
    let unlisted = db.page(&Note::query_feed(&group, START, START + 3 * DAY - 1).page_size(20), None).await;
    let unlisted = unlisted.expect("a page without a directory");
    assert!(unlisted.stats.requests > 200, "{:?}", unlisted.stats);
}
