//! Batch get, put and delete against DynamoDB Local.

mod faults;
mod table;

use crate::crud::{album, song};
use crate::model::*;
use crate::{db, unique};
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::types::{AttributeValue, Select};
use dynashard::item::MAX_ITEM_BYTES;
use dynashard::{Db, Error, Key, KeyError, RetryPolicy, Unprocessed};
use std::sync::Arc;
use std::time::Duration;

/// `count` songs of `artist`, all different, some with lyrics.
pub fn songs(artist: &str, count: usize) -> Vec<Song> {
    (0..count)
        .map(|i| Song {
            track_number: (i % 250) as u8,
            length_seconds: i as u32,
            lyrics: (i % 3 == 0).then(|| format!("verse {i}")),
            ..song(artist, "A", &format!("{i:05}"))
        })
        .collect()
}

pub fn keys(songs: &[Song]) -> Vec<Key<Song>> {
    songs.iter().map(|s| Key::of(s).unwrap()).collect()
}

/// How many items the partition `pk` holds, by a strongly consistent query.
pub async fn count_stored(db: &Db, pk: &str) -> usize {
    let mut count = 0;
    let mut start = None;
    loop {
        let page = db
            .client()
            .query()
            .table_name(db.table_name::<Music>())
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", AttributeValue::S(pk.to_owned()))
            .select(Select::Count)
            .consistent_read(true)
            .set_exclusive_start_key(start)
            .send()
            .await
            .unwrap();
        count += page.count as usize;
        start = page.last_evaluated_key;
        if start.is_none() {
            return count;
        }
    }
}

/// A `Db` whose endpoint accepts no connection and whose client does not retry: anything sent
/// fails, so a typed validation error proves that nothing was sent.
fn unreachable_db() -> Db {
    let config = dynashard::client_for_endpoint("http://127.0.0.1:9").config().to_builder();
    Db::new(aws_sdk_dynamodb::Client::from_conf(config.retry_config(RetryConfig::disabled()).build()))
}

#[tokio::test]
async fn ten_thousand_items_round_trip_in_input_order() {
    let db = db().await;
    let artist = unique("Batch10k");
    let stored = songs(&artist, 10_000);
    db.batch_put(&stored).await.unwrap();
    assert_eq!(count_stored(&db, &artist).await, 10_000);

    // Reverse order, with a missing key after every seventh and some keys asked for twice.
    let mut requested = Vec::new();
    let mut expected = Vec::new();
    for (i, song) in stored.iter().enumerate().rev() {
        requested.push(Key::of(song).unwrap());
        expected.push(Some(song.clone()));
        if i % 7 == 0 {
            requested.push(Song::key(&artist, "A", &format!("missing {i}")).unwrap());
            expected.push(None);
        }
        if i % 1_000 == 0 {
            requested.push(Key::of(&stored[i / 2]).unwrap());
            expected.push(Some(stored[i / 2].clone()));
        }
    }
    let read = db.batch_get(requested).consistent().await.unwrap();
    assert_eq!(read.len(), expected.len());
    assert!(read == expected, "batch_get is not aligned with its input");
}

#[tokio::test]
async fn missing_and_repeated_keys_fan_out() {
    let db = db().await;
    let artist = unique("FanOut");
    let stored = songs(&artist, 2);
    db.batch_put(&stored).await.unwrap();
    let (a, b) = (Key::of(&stored[0]).unwrap(), Key::of(&stored[1]).unwrap());
    let missing = Song::key(&artist, "A", "nope").unwrap();
    let read =
        db.batch_get([a.clone(), missing.clone(), a.clone(), b, missing, a]).consistent().await.unwrap();
    let (first, second) = (Some(stored[0].clone()), Some(stored[1].clone()));
    assert_eq!(read, [first.clone(), None, first.clone(), second, None, first]);
    assert_eq!(db.batch_get(Vec::<Key<Song>>::new()).await.unwrap(), []);
}

#[tokio::test]
async fn batch_get_checks_the_entity_type() {
    let db = db().await;
    let name = unique("Impostor");
    db.put(&Impostor { name: name.clone() }).await.unwrap();
    let error = db.batch_get([Artist::key(&name).unwrap()]).await.unwrap_err();
    assert!(matches!(error, Error::WrongEntityType { expected: "Artist", .. }), "{error:?}");
}

#[tokio::test]
async fn versioned_entities_can_be_read_in_a_batch() {
    let db = db().await;
    let artist = unique("VersionedRead");
    let mut stored = album(&artist, "One");
    db.save(&mut stored).await.unwrap();
    let read = db.batch_get([Album::key(&artist, "One").unwrap()]).consistent().await.unwrap();
    assert_eq!(read, [Some(stored)]);
}

#[tokio::test]
async fn batch_delete_removes_exactly_the_given_keys() {
    let db = db().await;
    let artist = unique("BatchDelete");
    let stored = songs(&artist, 120);
    db.batch_put(&stored).await.unwrap();
    let even: Vec<Key<Song>> = stored.iter().step_by(2).map(|s| Key::of(s).unwrap()).collect();
    let never_stored = Song::key(&artist, "A", "never").unwrap();
    db.batch_delete(even.into_iter().chain([never_stored])).await.unwrap();

    assert_eq!(count_stored(&db, &artist).await, 60);
    let read = db.batch_get(keys(&stored)).consistent().await.unwrap();
    for (i, (read, song)) in read.into_iter().zip(&stored).enumerate() {
        assert_eq!(read, (i % 2 == 1).then(|| song.clone()), "song {i}");
    }
}

#[tokio::test]
async fn puts_and_deletes_mix_in_one_call() {
    let db = db().await;
    let artist = unique("Mixed");
    let all = songs(&artist, 80);
    let (old, new) = all.split_at(40);
    db.batch_put(old).await.unwrap();
    db.batch_write().put_all(new).delete_all(keys(&old[..30])).concurrency(3).await.unwrap();
    assert_eq!(count_stored(&db, &artist).await, 50);
    let read = db.batch_get(keys(&all)).consistent().await.unwrap();
    let expected: Vec<Option<Song>> =
        all.iter().enumerate().map(|(i, s)| (i >= 30).then(|| s.clone())).collect();
    assert!(read == expected);
}

#[tokio::test]
async fn duplicate_keys_are_rejected_before_anything_is_sent() {
    let artist = unique("Duplicates");
    let mut batch = songs(&artist, 100);
    let mut twin = batch[42].clone();
    twin.length_seconds += 1; // same key, different item
    batch.push(twin);
    let expected_key = Key::of(&batch[42]).unwrap().primary().clone();

    let error = unreachable_db().batch_put(&batch).await.unwrap_err();
    assert!(matches!(&error, Error::DuplicateBatchKey { key } if *key == expected_key), "{error:?}");
    assert!(error.is_invalid_input());

    // A put and a delete of one key, and two deletes of one key, are duplicates too.
    let error = unreachable_db().batch_write().put_all(&batch[..3]).delete_all(keys(&batch[2..4])).await;
    assert!(matches!(error, Err(Error::DuplicateBatchKey { .. })), "{error:?}");
    let error = unreachable_db().batch_delete(keys(&batch[..2]).into_iter().chain(keys(&batch[1..2]))).await;
    assert!(matches!(error, Err(Error::DuplicateBatchKey { .. })), "{error:?}");

    // Against DynamoDB Local: not even the requests before the duplicate are sent.
    let db = db().await;
    let error = db.batch_put(&batch).await.unwrap_err();
    assert!(matches!(error, Error::DuplicateBatchKey { .. }), "{error:?}");
    assert_eq!(count_stored(&db, &artist).await, 0);
}

#[tokio::test]
async fn versioned_entities_are_batch_written_only_as_told() {
    let db = unreachable_db();
    let albums = [album("someone", "One")];
    let error = db.batch_put(&albums).await.unwrap_err();
    assert!(matches!(error, Error::VersionedBatchWrite { entity: "Album" }), "{error:?}");
    assert!(error.is_invalid_input());
    assert!(error.to_string().contains("BatchVersions::FirstVersion"), "{error}");
    let error = db.batch_delete([Album::key("someone", "One").unwrap()]).await.unwrap_err();
    assert!(matches!(error, Error::VersionedBatchWrite { entity: "Album" }), "{error:?}");
    let error = db.batch_put::<Album>(&[]).await.unwrap_err();
    assert!(matches!(error, Error::VersionedBatchWrite { .. }), "{error:?}");
}

#[tokio::test]
async fn invalid_items_are_rejected_before_anything_is_sent() {
    let artist = unique("Invalid");
    let mut batch = songs(&artist, 60);
    batch.push(song("", "A", "no artist"));
    let error = unreachable_db().batch_put(&batch).await.unwrap_err();
    assert!(
        matches!(
            error,
            Error::InvalidKey { attribute: "pk", reason: KeyError::EmptyValue { field: "artist" }, .. }
        ),
        "{error:?}"
    );
    assert!(error.is_invalid_input());

    let mut big = song(&artist, "A", "big");
    big.lyrics = Some("x".repeat(MAX_ITEM_BYTES));
    let error = unreachable_db().batch_put(&[big]).await.unwrap_err();
    assert!(matches!(error, Error::ItemTooLarge { .. }), "{error:?}");
    let error = unreachable_db().batch_put(&[Clash::new(artist.clone(), "x")]).await.unwrap_err();
    assert!(matches!(error, Error::ReservedAttribute { .. }), "{error:?}");

    let db = db().await;
    assert!(db.batch_put(&batch).await.unwrap_err().is_invalid_input());
    assert_eq!(count_stored(&db, &artist).await, 0);
}

#[tokio::test]
async fn empty_batches_send_nothing() {
    let db = unreachable_db();
    db.batch_put::<Song>(&[]).await.unwrap();
    db.batch_delete(Vec::<Key<Song>>::new()).await.unwrap();
    assert_eq!(db.batch_get(Vec::<Key<Song>>::new()).await.unwrap(), []);
}

#[tokio::test]
async fn unreachable_dynamodb_leaves_everything_unprocessed() {
    let quick = RetryPolicy::new(2, Duration::from_millis(1), Duration::from_millis(2));
    let db = unreachable_db().with_retry_policy(quick);
    let batch = songs(&unique("Unreachable"), 60);
    let error = db.batch_put(&batch).await.unwrap_err();
    let Error::BatchIncomplete {
        operation,
        unprocessed: Unprocessed::Writes { puts, deletes },
        unknown,
        succeeded,
        last_error,
    } = error
    else {
        panic!("{error:?}")
    };
    assert_eq!((operation, succeeded, deletes.len()), ("BatchWriteItem", 0, 0));
    assert!(unknown.is_empty(), "a connection never made sent nothing: {unknown:?}");
    let mut left: Vec<Song> =
        puts.into_iter().map(|item| dynashard::item::from_item(item).unwrap()).collect();
    left.sort_by(|a, b| a.title.cmp(&b.title));
    assert!(left == batch, "every item comes back");
    assert!(matches!(last_error.as_deref(), Some(Error::Service { operation: "BatchWriteItem", .. })));

    let requested = keys(&batch[..3]).into_iter().chain(keys(&batch[..1])).collect::<Vec<_>>();
    let error = db.batch_get(requested.clone()).await.unwrap_err();
    assert!(error.is_batch_incomplete());
    let expected: Vec<_> = requested[..3].iter().map(|key| key.primary().clone()).collect();
    assert_eq!(error.unprocessed(), Some(&Unprocessed::Keys(expected)));
}

#[tokio::test]
async fn retry_policies_are_set_per_db() {
    let db = unreachable_db();
    assert_eq!(db.retry_policy(), RetryPolicy::default());
    let policy = RetryPolicy::new(3, Duration::from_millis(1), Duration::from_millis(8));
    assert_eq!(db.with_retry_policy(policy).retry_policy(), policy);
}

/// A `Db` on DynamoDB Local whose requests are counted.
async fn counted_db() -> (Db, Arc<crate::requests::Requests>) {
    crate::requests::watched(&db().await)
}

#[tokio::test]
async fn concurrency_bounds_the_requests_in_flight() {
    let artist = unique("Concurrency");
    let batch = songs(&artist, 500); // 20 write requests, 5 read requests
    for (concurrency, low, high) in [(1, 1, 1), (3, 2, 3)] {
        let (db, counts) = counted_db().await;
        db.batch_put(&batch).concurrency(concurrency).await.unwrap();
        let (max, total) = (counts.max_in_flight(), counts.total());
        assert_eq!(total, 20);
        assert!((low..=high).contains(&max), "concurrency {concurrency}: {max} requests in flight");
    }
    let (db, counts) = counted_db().await;
    let read = db.batch_get(keys(&batch)).concurrency(2).await.unwrap();
    assert!(read.iter().all(Option::is_some));
    assert_eq!(counts.total(), 5);
    assert_eq!(counts.max_in_flight(), 2);
    let (db, counts) = counted_db().await;
    db.batch_delete(keys(&batch)).await.unwrap();
    assert!((2..=8).contains(&counts.max_in_flight()), "default concurrency is 8");
    assert_eq!(count_stored(&db, &artist).await, 0);
}

#[tokio::test]
async fn a_first_import_of_versioned_entities_writes_version_one() {
    use dynashard::ops::BatchVersions;
    let db = db().await;
    let artist = unique("FirstImport");
    let albums: Vec<Album> = (0..60).map(|n| album(&artist, &format!("Album {n:02}"))).collect();
    db.batch_put(&albums).versions(BatchVersions::FirstVersion).await.unwrap();
    let stored = db.get(Album::key(&artist, "Album 07").unwrap()).await.unwrap().unwrap();
    assert_eq!(stored.version, 1, "written at version 1");
    // Unchecked: a second import overwrites whatever is stored.
    let mut changed = stored.clone();
    db.save(&mut changed).await.unwrap();
    assert_eq!(changed.version, 2);
    db.batch_put(&albums).versions(BatchVersions::FirstVersion).await.unwrap();
    assert_eq!(db.get(Album::key(&artist, "Album 07").unwrap()).await.unwrap().unwrap().version, 1);

    // Checked: every put is checked against the stored version, and what fails comes back typed.
    let mut fresh: Vec<Album> = (60..64).map(|n| album(&artist, &format!("Album {n:02}"))).collect();
    fresh.push(album(&artist, "Album 07")); // stored, at version 1: a version-0 put conflicts
    let error = db.batch_put(&fresh).versions(BatchVersions::Checked).await.unwrap_err();
    let Error::BatchIncomplete { unprocessed, succeeded, last_error, .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(*succeeded, 4);
    assert!(matches!(last_error.as_deref(), Some(Error::VersionConflict { .. })), "{last_error:?}");
    let left: Vec<Album> = unprocessed.puts_as::<Album>().unwrap();
    assert_eq!(left.iter().map(|album| album.title.as_str()).collect::<Vec<_>>(), ["Album 07"]);
    assert_eq!(db.get(Album::key(&artist, "Album 61").unwrap()).await.unwrap().unwrap().version, 1);
    let deleted = db
        .batch_delete(vec![Album::key(&artist, "Album 60").unwrap()])
        .versions(BatchVersions::Checked)
        .await;
    assert!(deleted.is_ok(), "{deleted:?}");
    assert_eq!(db.get(Album::key(&artist, "Album 60").unwrap()).await.unwrap(), None);
}

#[tokio::test]
async fn unprocessed_writes_come_back_typed_and_resend() {
    let db = db().await;
    let artist = unique("Resend");
    let written = songs(&artist, 3);
    let unprocessed = Unprocessed::Writes {
        puts: written.iter().map(|song| dynashard::item::to_item(song).unwrap()).collect(),
        deletes: vec![dynashard::item::key_item(
            &<crate::model::Music as dynashard::Table>::DEFINITION,
            Song::key(&artist, "gone", "gone").unwrap().primary(),
        )],
    };
    assert_eq!(unprocessed.puts_as::<Song>().unwrap(), written);
    assert_eq!(unprocessed.keys_as::<Song>(), [Song::key(&artist, "gone", "gone").unwrap()]);
    let wrong = unprocessed.puts_as::<Album>().unwrap_err();
    assert!(matches!(wrong, Error::WrongEntityType { .. }), "{wrong:?}");
    db.resend::<Song>(&unprocessed).unwrap().await.unwrap();
    assert_eq!(count_stored(&db, &artist).await, 3, "the puts were written");
    let keys = Unprocessed::Keys(vec![Song::key(&artist, "a", "b").unwrap().primary().clone()]);
    assert!(matches!(db.resend::<Song>(&keys), Err(Error::InvalidQuery { .. })));
    assert_eq!(keys.keys_as::<Song>().len(), 1);
}
