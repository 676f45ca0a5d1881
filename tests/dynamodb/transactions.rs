//! Transactions: writes across entity types and tables that all apply or none do.

use crate::crud::{album, song};
use crate::model::*;
use crate::{db, unique};
use dynashard::transaction::{ReasonCode, MAX_TRANSACTION_ACTIONS};
use dynashard::{Db, Error, Key};

async fn stored_album(db: &Db, artist: &str) -> Album {
    db.get(Album::key(artist, "Leaving Home").unwrap()).consistent().await.unwrap().expect("album stored")
}

async fn stored_song(db: &Db, key: Key<Song>) -> Option<Song> {
    db.get(key).consistent().await.unwrap()
}

/// An album (version 1, no songs) and a counter, stored.
async fn setup(db: &Db, artist: &str) -> (Album, Counter) {
    let mut stored = album(artist, "Leaving Home");
    db.save(&mut stored).await.unwrap();
    let counter = Counter { shard: 4242, day: next_day(), count: 0 };
    db.put(&counter).await.unwrap(); // replaces a counter left by an earlier run
    (stored, counter)
}

/// A counter day no other test of this process uses.
fn next_day() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

#[tokio::test]
async fn a_song_and_its_album_count_commit_together_across_tables() {
    let db = db().await;
    let artist = unique("TxCommit");
    let (_, counter) = setup(&db, &artist).await;
    let new_song = song(&artist, "Leaving Home", "Air Song");
    let album_key = Album::key(&artist, "Leaving Home").unwrap();
    let counter_key = Counter::key(counter.shard, counter.day).unwrap();
    db.transaction()
        .put(db.put(&new_song).create_only())
        .update(db.update(album_key).add(Album::fields().song_count, 1))
        .update(db.update(counter_key.clone()).add(Counter::fields().count, 1))
        .await
        .unwrap();
    let key = Song::key(&artist, "Leaving Home", "Air Song").unwrap();
    assert_eq!(stored_song(&db, key).await, Some(new_song));
    let updated = stored_album(&db, &artist).await;
    assert_eq!(
        (updated.song_count, updated.version),
        (1, 2),
        "the update in a transaction bumps the version"
    );
    assert_eq!(db.get(counter_key).consistent().await.unwrap().unwrap().count, 1);
}

#[tokio::test]
async fn a_failing_condition_on_either_side_leaves_both_unchanged() {
    let db = db().await;
    let artist = unique("TxRollback");
    let (before, _) = setup(&db, &artist).await;
    let mut existing = song(&artist, "Leaving Home", "Air Song");
    existing.length_seconds = 111;
    db.put(&existing).await.unwrap();
    let album_key = || Album::key(&artist, "Leaving Home").unwrap();
    let song_key = || Song::key(&artist, "Leaving Home", "Air Song").unwrap();

    // The put fails: the song exists.
    let error = db
        .transaction()
        .put(db.put(&song(&artist, "Leaving Home", "Air Song")).create_only())
        .update(db.update(album_key()).add(Album::fields().song_count, 1))
        .await
        .unwrap_err();
    assert!(error.is_conditional_failed() && !error.is_version_conflict(), "{error:?}");
    let Error::TransactionCanceled { reasons } = &error else { panic!("{error:?}") };
    assert_eq!(reasons.len(), 2);
    assert_eq!((reasons[0].action, &reasons[0].code), (0, &ReasonCode::ConditionalCheckFailed));
    assert!(matches!(reasons[0].error.as_deref(), Some(Error::AlreadyExists)), "{:?}", reasons[0]);
    let returned = reasons[0].item.as_deref().expect("DynamoDB returns the stored item");
    assert_eq!(returned["lengthSeconds"].as_n().unwrap(), "111");
    assert_eq!(reasons[0].key, *song_key().primary());
    assert_eq!(reasons[1].code, ReasonCode::None);
    assert!(reasons[1].error.is_none() && !reasons[1].failed());
    assert!(error.to_string().contains("action 0"), "{error}");
    assert_eq!(stored_album(&db, &artist).await, before, "the album update was rolled back");

    // The update fails: the caller's condition on the album does not hold.
    let other = song(&artist, "Leaving Home", "Monogram");
    let error = db
        .transaction()
        .put(&other)
        .update(
            db.update(album_key())
                .add(Album::fields().song_count, 1)
                .condition(Album::fields().year.eq(1900)),
        )
        .await
        .unwrap_err();
    let Error::TransactionCanceled { reasons } = &error else { panic!("{error:?}") };
    assert_eq!(reasons[0].code, ReasonCode::None);
    assert_eq!(reasons[1].code, ReasonCode::ConditionalCheckFailed);
    let Some(Error::ConditionFailed { current: Some(current) }) = reasons[1].error.as_deref() else {
        panic!("{:?}", reasons[1])
    };
    assert_eq!(current["year"].as_n().unwrap(), "2007");
    let other_key = Song::key(&artist, "Leaving Home", "Monogram").unwrap();
    assert_eq!(stored_song(&db, other_key).await, None, "the put was rolled back");
    assert_eq!(stored_album(&db, &artist).await, before);
    assert_eq!(stored_song(&db, song_key()).await, Some(existing));
}

#[tokio::test]
async fn updates_and_deletes_keep_their_guards() {
    let db = db().await;
    let artist = unique("TxGuards");
    setup(&db, &artist).await;
    let missing = Song::key(&artist, "Leaving Home", "Missing").unwrap();
    let new_song = song(&artist, "Leaving Home", "New");

    // An update never creates an item, even one without changes (then only a check).
    for update in
        [db.update(missing.clone()).set(Song::fields().length_seconds, 1u32), db.update(missing.clone())]
    {
        let error = db.transaction().put(&new_song).update(update).await.unwrap_err();
        let Error::TransactionCanceled { reasons } = &error else { panic!("{error:?}") };
        assert!(matches!(reasons[1].error.as_deref(), Some(Error::NotFound)), "{:?}", reasons[1]);
        assert!(reasons[1].item.is_none());
    }
    let new_key = Song::key(&artist, "Leaving Home", "New").unwrap();
    assert_eq!(stored_song(&db, new_key.clone()).await, None);

    // A versioned delete of a stale version, and a failing condition check.
    let album_key = Album::key(&artist, "Leaving Home").unwrap();
    let error = db.transaction().delete(db.delete(album_key.clone()).expect_version(5)).await.unwrap_err();
    let Error::TransactionCanceled { reasons } = &error else { panic!("{error:?}") };
    assert!(
        matches!(reasons[0].error.as_deref(), Some(Error::VersionConflict { expected: 5, found: Some(1) })),
        "{:?}",
        reasons[0]
    );
    db.put(&Artist { name: artist.clone(), country: Some("SE".into()) }).await.unwrap();
    let artist_key = Artist::key(&artist).unwrap();
    let country = |code: &str| Artist::fields().country.eq(Some(code.to_owned()));
    let error =
        db.transaction().put(&new_song).condition_check(artist_key.clone(), country("NO")).await.unwrap_err();
    assert!(error.is_conditional_failed(), "{error:?}");
    let Error::TransactionCanceled { reasons } = &error else { panic!("{error:?}") };
    let Some(Error::ConditionFailed { current: Some(current) }) = reasons[1].error.as_deref() else {
        panic!("{:?}", reasons[1])
    };
    assert_eq!(current["country"].as_s().unwrap(), "SE");
    assert_eq!(stored_song(&db, new_key.clone()).await, None);

    // All together, when the guards hold.
    db.transaction()
        .put(&new_song)
        .condition_check(artist_key, country("SE"))
        .delete(db.delete(album_key.clone()).expect_version(1))
        .await
        .unwrap();
    assert_eq!(stored_song(&db, new_key).await, Some(new_song));
    assert_eq!(db.get(album_key).consistent().await.unwrap(), None);
}

#[tokio::test]
async fn version_conflicts_inside_a_transaction() {
    let db = db().await;
    let artist = unique("TxVersion");
    let (mut mine, _) = setup(&db, &artist).await;
    let mut stale = mine.clone();
    mine.year = 2010;
    db.save(&mut mine).await.unwrap();
    stale.year = 1999;
    let new_song = song(&artist, "Leaving Home", "Air Song");
    let error = db.transaction().save(&mut stale).put(&new_song).await.unwrap_err();
    assert!(error.is_version_conflict() && error.is_conditional_failed(), "{error:?}");
    let Error::TransactionCanceled { reasons } = &error else { panic!("{error:?}") };
    assert!(
        matches!(reasons[0].error.as_deref(), Some(Error::VersionConflict { expected: 1, found: Some(2) })),
        "{:?}",
        reasons[0]
    );
    assert_eq!(stale.version, 1, "a cancelled transaction leaves the value's version alone");
    let song_key = Song::key(&artist, "Leaving Home", "Air Song").unwrap();
    assert_eq!(stored_song(&db, song_key.clone()).await, None);

    let update = db.update(Album::key(&artist, "Leaving Home").unwrap()).expect_version(1);
    let error = db.transaction().update(update.set(Album::fields().year, 1u16)).await.unwrap_err();
    assert!(error.is_version_conflict(), "{error:?}");

    mine.year = 2011;
    db.transaction().save(&mut mine).put(&new_song).await.unwrap();
    assert_eq!(mine.version, 3, "a committed save advances the version");
    assert_eq!(stored_album(&db, &artist).await, mine);
    assert_eq!(stored_song(&db, song_key).await, Some(new_song));
}

#[tokio::test]
async fn too_many_actions_and_duplicate_keys_are_rejected_before_sending() {
    let db = db().await;
    let artist = unique("TxLimits");
    let songs: Vec<Song> =
        (0..=MAX_TRANSACTION_ACTIONS).map(|n| song(&artist, "Many", &format!("Track {n:03}"))).collect();
    let too_many = songs.iter().fold(db.transaction(), |tx, song| tx.put(song));
    assert_eq!(too_many.len(), 101);
    let error = too_many.await.unwrap_err();
    assert!(matches!(error, Error::TransactionTooLarge { actions: 101, max: 100 }), "{error:?}");
    assert!(error.is_invalid_input());
    let first = Song::key(&artist, "Many", "Track 000").unwrap();
    assert_eq!(stored_song(&db, first.clone()).await, None, "nothing was sent");

    let key = Song::key(&artist, "Many", "Track 001").unwrap();
    let error = db.transaction().put(&songs[0]).put(&songs[1]).delete(key.clone()).await.unwrap_err();
    let Error::DuplicateTransactionKey { table, key: duplicate } = &error else { panic!("{error:?}") };
    assert_eq!((table.as_str(), duplicate), (db.table_name::<Music>(), key.primary()));
    assert!(error.is_invalid_input());
    assert_eq!(stored_song(&db, first.clone()).await, None, "nothing was sent");

    let invalid = Clash::new(unique("TxClash"), "x");
    let error = db.transaction().put(&songs[0]).put(&invalid).await.unwrap_err();
    assert!(matches!(error, Error::ReservedAttribute { .. }), "{error:?}");

    // Exactly the limit commits.
    let full = songs[..MAX_TRANSACTION_ACTIONS].iter().fold(db.transaction(), |tx, song| tx.put(song));
    full.await.unwrap();
    assert_eq!(stored_song(&db, first).await.as_ref(), Some(&songs[0]));
    let last = Song::key(&artist, "Many", "Track 099").unwrap();
    assert_eq!(stored_song(&db, last).await.as_ref(), Some(&songs[99]));
    db.transaction().await.unwrap();
}
