//! Batch calls through a client that throttles, fails and leaves items unprocessed.

use super::{count_stored, keys, songs};
use crate::model::*;
use crate::{db, unique};
use dynashard::{Db, Error, Key, RetryPolicy, Unprocessed};
use dynashard_local::faults::FaultInjector;
use std::collections::BTreeSet;
use std::time::Duration;

/// A `Db` whose client gets `faults` (SDK retries off, so every fault reaches dynashard).
async fn faulty_db(faults: &FaultInjector, policy: RetryPolicy) -> Db {
    db().await; // creates the tables
    let endpoint = dynashard_local::shared_endpoint().await.unwrap();
    Db::new(faults.client_for_endpoint(&endpoint)).with_retry_policy(policy)
}

/// Patient enough that 10,000 items get through faults on about half of all attempts.
fn patient() -> RetryPolicy {
    RetryPolicy::new(60, Duration::from_millis(1), Duration::from_millis(20))
}

fn tiny() -> RetryPolicy {
    RetryPolicy::new(2, Duration::from_millis(1), Duration::from_millis(1))
}

#[tokio::test]
async fn ten_thousand_puts_survive_throttling_and_unprocessed_items() {
    let faults = FaultInjector::new(11).throttling(0.3).unprocessed(0.3).without_sdk_retries();
    let db = faulty_db(&faults, patient()).await;
    let artist = unique("FaultyPut");
    let batch = songs(&artist, 10_000);
    db.batch_put(&batch).concurrency(16).await.unwrap();

    let stats = faults.stats().operation("BatchWriteItem");
    assert!(stats.attempts > 400 && stats.throttled > 50 && stats.unprocessed > 50, "{stats:?}");
    let plain = crate::db().await;
    assert_eq!(count_stored(&plain, &artist).await, 10_000, "every item stored exactly once");
    let read = plain.batch_get(keys(&batch)).consistent().await.unwrap();
    assert!(read.into_iter().zip(&batch).all(|(read, song)| read.as_ref() == Some(song)));
}

#[tokio::test]
async fn a_tiny_retry_bound_returns_the_leftover_writes() {
    let faults = FaultInjector::new(12).unprocessed(1.0).without_sdk_retries();
    let db = faulty_db(&faults, tiny()).await;
    let artist = unique("Leftovers");
    let batch = songs(&artist, 10_000);
    let error = db.batch_put(&batch).await.unwrap_err();
    let Error::BatchIncomplete {
        operation,
        unprocessed: Unprocessed::Writes { puts, deletes },
        succeeded,
        ..
    } = error
    else {
        panic!("{error:?}")
    };
    assert_eq!((operation, deletes.len()), ("BatchWriteItem", 0));
    assert!(!puts.is_empty() && succeeded > 0, "{} left, {succeeded} written", puts.len());

    let left: Vec<Song> = puts.into_iter().map(|item| dynashard::item::from_item(item).unwrap()).collect();
    let plain = crate::db().await;
    let stored = plain.batch_get(keys(&batch)).consistent().await.unwrap();
    let stored: Vec<&Song> = stored.iter().flatten().collect();
    assert_eq!(count_stored(&plain, &artist).await, succeeded);
    assert_eq!(stored.len() + left.len(), batch.len());
    let titles: BTreeSet<&str> =
        stored.iter().map(|s| s.title.as_str()).chain(left.iter().map(|s| s.title.as_str())).collect();
    assert_eq!(titles.len(), batch.len(), "leftovers and stored items are disjoint and cover the batch");
    assert!(left.iter().all(|song| batch.contains(song)), "leftovers are the items as given");

    // Resending the leftovers completes the import.
    faults.set_enabled(false);
    plain.batch_put(&left).await.unwrap();
    assert_eq!(count_stored(&plain, &artist).await, batch.len());
}

#[tokio::test]
async fn batch_get_survives_throttling_server_errors_and_unprocessed_keys() {
    let artist = unique("FaultyGet");
    let batch = songs(&artist, 3_000);
    crate::db().await.batch_put(&batch).await.unwrap();
    // Rates at which each fault happens many times over the 30 batches and their retries, whatever
    // order the four concurrent batches draw in: the assertion below never rests on luck.
    let faults =
        FaultInjector::new(13).throttling(0.2).server_errors(0.2).unprocessed(0.3).without_sdk_retries();
    let db = faulty_db(&faults, patient()).await;
    let mut requested = keys(&batch);
    requested.push(Song::key(&artist, "A", "missing").unwrap());
    let read = db.batch_get(requested).consistent().concurrency(4).await.unwrap();
    assert_eq!(read.last(), Some(&None));
    assert!(read.iter().zip(&batch).all(|(read, song)| read.as_ref() == Some(song)));
    let stats = faults.stats().operation("BatchGetItem");
    assert!(stats.throttled >= 3 && stats.server_errors >= 3 && stats.unprocessed >= 3, "{stats:?}");
}

#[tokio::test]
async fn a_tiny_retry_bound_returns_the_unread_keys() {
    let artist = unique("UnreadKeys");
    let batch = songs(&artist, 1_000);
    crate::db().await.batch_put(&batch).await.unwrap();
    let faults = FaultInjector::new(14).unprocessed(1.0).without_sdk_retries();
    let db = faulty_db(&faults, tiny()).await;
    let error = db.batch_get(keys(&batch)).await.unwrap_err();
    let Error::BatchIncomplete { operation, unprocessed: Unprocessed::Keys(left), succeeded, .. } = error
    else {
        panic!("{error:?}")
    };
    assert_eq!(operation, "BatchGetItem");
    assert!(!left.is_empty() && succeeded > 0, "{} left, {succeeded} read", left.len());
    assert_eq!(left.len() + succeeded, batch.len());
    let requested: BTreeSet<_> = keys(&batch).iter().map(|key: &Key<Song>| key.primary().clone()).collect();
    assert!(left.iter().all(|key| requested.contains(key)));
    assert_eq!(left.iter().collect::<BTreeSet<_>>().len(), left.len(), "no key reported twice");
}

/// The fault rates of the README's example, with no SDK retries: the default policy carries
/// every item through, for every seed.
#[tokio::test]
async fn the_default_policy_carries_the_documented_fault_rates() {
    let runs = (0..7u64).map(|seed| async move {
        let faults = FaultInjector::new(100 + seed)
            .throttling(0.3)
            .unprocessed(0.3)
            .server_errors(0.05)
            .without_sdk_retries();
        let db = faulty_db(&faults, RetryPolicy::default()).await;
        let artist = unique("DefaultPolicy");
        let batch = songs(&artist, 5_000);
        let written = db.batch_put(&batch).await;
        assert!(written.is_ok(), "seed {seed}: {:?}", written.err().map(|error| error.to_string()));
        let plain = crate::db().await;
        assert_eq!(count_stored(&plain, &artist).await, 5_000, "seed {seed}: every item stored once");
    });
    futures::future::join_all(runs).await;
}

/// One request out of attempts does not stop the others: every request is sent, and the call
/// reports exactly what was throttled.
#[tokio::test]
async fn a_request_out_of_attempts_lets_the_others_finish() {
    let faults = FaultInjector::new(31).throttling(0.3).without_sdk_retries();
    let db = faulty_db(&faults, RetryPolicy::no_retries()).await;
    let artist = unique("OthersFinish");
    let batch = songs(&artist, 5_000);
    let error = db.batch_put(&batch).await.unwrap_err();
    let Error::BatchIncomplete { unprocessed: Unprocessed::Writes { puts, .. }, succeeded, .. } = error
    else {
        panic!("{error:?}")
    };
    let stats = faults.stats().operation("BatchWriteItem");
    assert_eq!(stats.attempts, 200, "every request was sent once: {stats:?}");
    assert_eq!(puts.len() as u64, 25 * stats.throttled, "exactly the throttled requests are left");
    assert_eq!(succeeded + puts.len(), 5_000);
    let plain = crate::db().await;
    assert_eq!(count_stored(&plain, &artist).await, succeeded);
}

#[derive(dynashard::Collection, Debug, PartialEq)]
enum Catalogue {
    Artist(Artist),
    Song(Song),
}

#[tokio::test]
async fn a_mixed_batch_get_decodes_each_type_in_input_order_through_faults() {
    let artist = unique("MixedGet");
    let batch = songs(&artist, 500);
    let stored = Artist { name: artist.clone(), country: Some("SE".into()) };
    let plain = crate::db().await;
    plain.batch_put(&batch).await.unwrap();
    plain.put(&stored).await.unwrap();
    let faults = FaultInjector::new(15).throttling(0.2).unprocessed(0.3).without_sdk_retries();
    let db = faulty_db(&faults, patient()).await;
    let read = db
        .batch_get_members::<Catalogue>()
        .member(Artist::key(&artist).unwrap())
        .members(keys(&batch))
        .member(Song::key(&artist, "A", "missing").unwrap())
        .member(Artist::key(&artist).unwrap())
        .concurrency(3)
        .await
        .unwrap();
    assert_eq!(read.len(), batch.len() + 3, "one result per key, repeats included");
    assert_eq!(read[0], Some(Catalogue::Artist(stored.clone())));
    assert_eq!(read[read.len() - 1], Some(Catalogue::Artist(stored)), "a repeated key at both places");
    assert_eq!(read[read.len() - 2], None);
    for (got, song) in read[1..=batch.len()].iter().zip(&batch) {
        assert_eq!(got.as_ref(), Some(&Catalogue::Song(song.clone())));
    }
    let stats = faults.stats().operation("BatchGetItem");
    assert!(stats.unprocessed > 0 && stats.attempts > 5, "retried through faults: {stats:?}");
    // An item of a type outside the collection is an error, not a silent `None`.
    let play = Play { artist: artist.clone(), day: 3, offset: 1 };
    plain.put(&play).await.unwrap();
    let error =
        plain.batch_get_members::<Catalogue>().member(Play::key(&artist, 3, 1).unwrap()).await.unwrap_err();
    assert!(matches!(error, Error::UnknownEntityType { .. }), "{error:?}");
}
