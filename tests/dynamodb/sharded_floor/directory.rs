//! Minute buckets over four random shards with a bucket directory: a read of a window costs the
//! partitions that hold items (and a request or two of the directory), not the window; every
//! write path records its partitions first, so nothing acknowledged is skipped.

use super::model::{floor, group, Lcg, Listed as Note};
use crate::db;
use aws_sdk_dynamodb::types::AttributeValue;
use dynashard::Db;
use futures::TryStreamExt;
use std::collections::BTreeSet;

/// A listed note `n` of `group` at `at`.
fn note(group: &str, n: u32, random: &mut Lcg, at: i64) -> Note {
    super::model::note(group, n, random, at).into()
}

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

/// The same notes in the index without a directory.
async fn unlisted(db: &Db, notes: &[Note]) {
    let notes: Vec<super::model::Note> = notes
        .iter()
        .map(|note| super::model::Note {
            group: note.group.clone(),
            n: note.n,
            title: note.title.clone(),
            at: note.at,
            body: note.body.clone(),
        })
        .collect();
    db.batch_put(&notes).await.expect("the notes are written without a directory");
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
            // One shard a bucket (one `Db` wrote each bucket slowly, so to one of its four
            // shards), a bucket or two read ahead while the answers come in, and the
            // directory: never the window's 17,280.
            assert!(
                stats.requests <= buckets.len() + 4,
                "{descending}: {stats:?} for {} buckets",
                buckets.len()
            );
            assert!(stats.directory_requests >= 1 && stats.directory_requests <= 2, "{stats:?}");
            // Half a unit a request: a bucket's notes fit 4 KB, and the directory of an index is
            // read eventually consistent, as the index itself is.
            assert!(stats.capacity_units <= 0.5 * stats.requests as f64, "{stats:?}");
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
    unlisted(&db, &notes).await;
    let feed = super::model::Note::query_feed(&group, START, START + 3 * DAY - 1);
    let unlisted = db.page(&feed.page_size(20), None).await;
    let unlisted = unlisted.expect("a page without a directory");
    assert!(unlisted.stats.requests > 200, "{:?}", unlisted.stats);
}

/// Every write path records the partitions it puts an item in before the item: a put, a put in
/// a transaction, an update and an upsert that move an item to another bucket, a batch, each from
/// a `Db` of its own (no cache shared with the reader's). The window reads only what the
/// directory lists, so a path that did not record would lose its item.
#[tokio::test]
async fn every_write_path_records_its_buckets_first() {
    let db = db().await;
    floor(&db).await;
    let group = group("paths");
    let mut random = Lcg(11);
    let hour = 3_600;
    let fresh = || Db::new(db.client().clone());
    let at = |n: i64| START + n * hour;
    let mut expected = Vec::new();

    fresh().put(&note(&group, 0, &mut random, at(1))).await.expect("a put");
    expected.push((0, at(1)));
    let in_transaction = note(&group, 1, &mut random, at(5));
    fresh().transaction().put(&in_transaction).await.expect("a transaction");
    expected.push((1, at(5)));
    let batch: Vec<Note> = (2..5).map(|n| note(&group, n, &mut random, at(9) + i64::from(n))).collect();
    fresh().batch_put(&batch).await.expect("a batch");
    expected.extend(batch.iter().map(|note| (note.n, note.at)));
    // Moved: written at hour 2, updated to hour 20.
    let moved = note(&group, 5, &mut random, at(2));
    db.put(&moved).await.expect("the note to move");
    let fields = Note::fields();
    let key = Note::key(&group, 5).expect("a key");
    let mover = fresh();
    let update = mover.update(key).set(fields.at, at(20)).set(fields.title, moved.title.clone());
    update.await.expect("an update moving the note");
    expected.push((5, at(20)));
    // Created by an upsert at hour 30.
    let key = Note::key(&group, 6).expect("a key");
    let upserted = fresh()
        .upsert(key)
        .set(fields.title, "upserted".to_owned())
        .set(fields.body, String::new())
        .set(fields.at, at(30))
        .await;
    upserted.expect("an upsert");
    expected.push((6, at(30)));

    expected.sort_by_key(|&(_, at)| at);
    let window = Note::query_listed(&group, START, START + 3 * 86_400 - 1);
    let read: Vec<Note> = fresh().stream(window).try_collect().await.expect("the window");
    let read: Vec<(u32, i64)> = read.iter().map(|note| (note.n, note.at)).collect();
    assert_eq!(read, expected);
}

/// Windows at the bound of 100,000 partitions and at both ends of time: reading them whole costs
/// the partitions that hold notes and a request or two of the directory, in both directions.
#[tokio::test]
async fn wide_and_extreme_windows_read_only_what_holds_items() {
    let db = db().await;
    floor(&db).await;
    let group = group("edges");
    let mut random = Lcg(5);
    // 25,000 minutes over 4 shards: the default bound.
    let last = START + 25_000 * 60 - 1;
    let times = [START, START + 12_345 * 60 + 7, last, i64::MIN, i64::MIN + 61, i64::MAX, i64::MAX - 61];
    let notes: Vec<Note> = times.iter().zip(0..).map(|(&at, n)| note(&group, n, &mut random, at)).collect();
    db.batch_put(&notes).await.expect("the notes are written");
    let windows = [
        (START, last, vec![0, 1, 2]),
        (i64::MIN, i64::MIN + 600, vec![3, 4]),
        (i64::MAX - 600, i64::MAX, vec![6, 5]),
    ];
    for (from, to, expected) in windows {
        for descending in [false, true] {
            let query = Note::query_listed(&group, from, to);
            let query = if descending { query.descending() } else { query };
            let stream = db.stream(query);
            let stats = stream.stats().clone();
            let read: Vec<Note> = stream.try_collect().await.expect("the window");
            let mut expected = expected.clone();
            if descending {
                expected.reverse();
            }
            assert_eq!(read.iter().map(|note| note.n).collect::<Vec<_>>(), expected, "{from}..={to}");
            let stats = stats.snapshot();
            assert!(stats.requests <= expected.len() + 2, "{from}..={to} {descending}: {stats:?}");
        }
        // A count sends a request to each listed partition, not to the window's 100,000.
        let counted = db.count(&Note::query_listed(&group, from, to)).await.expect("a count");
        assert_eq!(counted, expected.len() as u64, "{from}..={to}");
    }
}

/// Items the directory does not list (put before it was declared, or by other means) are not
/// read, until `record_bucket_directory` lists them from a scan of the index.
#[tokio::test]
async fn recording_the_directory_lists_items_put_without_it() {
    let db = db().await;
    floor(&db).await;
    let group = group("unlisted");
    let notes = bursts(&db, &group).await;
    // Take the directory away, as if the notes were put before `directory` was declared.
    let client = db.client();
    let partition = dynashard::shard::directory_partition("Listed", &group);
    let entries = client
        .query()
        .table_name("ShardedFloor")
        .key_condition_expression("pk = :pk")
        .expression_attribute_values(":pk", AttributeValue::S(partition.clone()))
        .consistent_read(true)
        .send()
        .await
        .expect("the directory");
    assert!(!entries.items().is_empty());
    for entry in entries.items() {
        let key = [("pk", entry["pk"].clone()), ("sk", entry["sk"].clone())];
        let key = key.into_iter().map(|(name, value)| (name.to_owned(), value)).collect();
        client.delete_item().table_name("ShardedFloor").set_key(Some(key)).send().await.expect("deleted");
    }
    let window = || Note::query_listed(&group, START, START + 3 * 86_400 - 1);
    let fresh = || Db::new(db.client().clone());
    let unlisted: Vec<Note> = fresh().stream(window()).try_collect().await.expect("the window");
    assert!(unlisted.is_empty(), "{} notes read", unlisted.len());
    assert_eq!(fresh().count(&window()).await.expect("a count"), 0, "a count follows the directory too");

    let listed = fresh().record_bucket_directory::<Note>("Listed").await.expect("recorded");
    assert!(listed >= 50, "{listed} partitions");
    let read: Vec<Note> = fresh().stream(window()).try_collect().await.expect("the window");
    assert_eq!(
        read.iter().map(|note| note.n).collect::<Vec<_>>(),
        notes.iter().map(|note| note.n).collect::<Vec<_>>()
    );
    assert_eq!(fresh().count(&window()).await.expect("a count"), notes.len() as u64);
    let error = db.record_bucket_directory::<Note>("Feed").await.expect_err("Feed keeps no directory");
    assert!(matches!(error, dynashard::Error::InvalidQuery { .. }), "{error:?}");
}

/// A reader pages a listed window forwards while a writer puts notes all over it, then back
/// through `previous` once the writer is done: never backwards, nothing repeated, every note
/// written before a pass began is in it, in both directions.
#[tokio::test]
async fn a_listed_window_pages_both_ways_while_writers_run() {
    let db = db().await;
    floor(&db).await;
    let group = group("listed-writers");
    let notes = bursts(&db, &group).await;
    let window = || Note::query_listed(&group, START, START + 3 * 86_400 - 1).page_size(20);
    let writer = {
        let (db, group) = (Db::new(db.client().clone()), group.clone());
        tokio::spawn(async move {
            let mut random = Lcg(99);
            let mut written = Vec::new();
            for n in 1_000..1_040 {
                let at = START + random.below(3 * 86_400) as i64;
                let note = note(&group, n, &mut random, at);
                db.put(&note).await.expect("a write while the reader pages");
                written.push(note);
            }
            written
        })
    };
    let key = |note: &Note| (note.at, note.n);
    let (mut forwards, mut page) = (Vec::new(), db.page(&window(), None).await.expect("the first page"));
    loop {
        forwards.extend(page.items.iter().map(key));
        let Some(cursor) = page.cursor.clone() else { break };
        let next = db.page(&window(), Some(&cursor)).await.expect("a next page");
        if next.items.is_empty() {
            break;
        }
        page = next;
    }
    assert!(forwards.windows(2).all(|pair| pair[0] < pair[1]), "forwards, in order and never repeated");
    for note in &notes {
        assert!(forwards.contains(&key(note)), "{:?} read forwards", key(note));
    }
    let written = writer.await.expect("the writer");
    // Backwards from the last page, every note before it is read: all were written by now.
    let end = page.items.first().map(key).expect("a last page");
    let mut backwards: Vec<(i64, u32)> = Vec::new();
    while let Some(previous) = page.previous.clone() {
        page = db.page(&window(), Some(&previous)).await.expect("a previous page");
        let keys: Vec<(i64, u32)> = page.items.iter().map(key).collect();
        assert!(keys.windows(2).all(|pair| pair[0] < pair[1]), "a page in the query's order");
        if let (Some(last), Some(first)) = (keys.last(), backwards.first()) {
            assert!(last < first, "never backwards");
        }
        backwards.splice(0..0, keys);
    }
    let all: BTreeSet<(i64, u32)> = notes.iter().chain(&written).map(key).filter(|&at| at < end).collect();
    assert_eq!(backwards, all.into_iter().collect::<Vec<_>>(), "every note before the last page, once");
}

/// A window of an index sorted by title merges its partitions as one: with a directory, only the
/// partitions it lists, read after the whole directory of the window.
#[tokio::test]
async fn a_window_merged_as_one_reads_the_partitions_its_directory_lists() {
    let db = db().await;
    floor(&db).await;
    let group = group("listed-titles");
    let notes = bursts(&db, &group).await;
    let listed: BTreeSet<(i64, String)> =
        notes.iter().map(|note| (note.at.div_euclid(60), String::new())).collect();
    let window = || Note::query_listed_titles(&group, START, START + 3 * DAY - 1);
    let mut sorted: Vec<&Note> = notes.iter().collect();
    sorted.sort_by_key(|note| (note.title.clone(), note.at, note.n));
    let want: Vec<(String, u32)> = sorted.iter().map(|note| (note.title.clone(), note.n)).collect();
    let stream = db.stream(window());
    let stats = stream.stats().clone();
    let all: Vec<Note> = stream.try_collect().await.expect("the window");
    assert_eq!(all.iter().map(|note| (note.title.clone(), note.n)).collect::<Vec<_>>(), want);
    let stats = stats.snapshot();
    // Four shards at most in each of the buckets holding notes, and the directory (a part).
    assert!(stats.requests <= 4 * listed.len() + 2, "{stats:?} for {} buckets", listed.len());
    assert_eq!(stats.directory_requests, 1, "{stats:?}");
    let page = db.page(&window().page_size(20), None).await.expect("a page");
    assert_eq!(page.items.iter().map(|note| (note.title.clone(), note.n)).collect::<Vec<_>>(), want[..20]);
    let next = db.page(&window().page_size(20), page.cursor.as_deref()).await.expect("a next page");
    assert_eq!(next.items.iter().map(|note| (note.title.clone(), note.n)).collect::<Vec<_>>(), want[20..40]);
    assert!(next.stats.requests <= 4 * listed.len() + 2, "{:?}", next.stats);
}
