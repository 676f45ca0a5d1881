//! Optimistic locking through a `#[version]` field.

use crate::crud::album;
use crate::model::*;
use crate::{db, unique};
use dynashard::Error;

#[tokio::test]
async fn every_write_checks_and_increments_the_version() {
    let db = db().await;
    let artist = unique("Versioned");
    let mut mine = album(&artist, "One");
    db.save(&mut mine).await.unwrap();
    db.save(&mut mine).await.unwrap();
    assert_eq!(mine.version, 2);

    let mut theirs = db.get(Album::key(&artist, "One").unwrap()).await.unwrap().unwrap();
    theirs.year = 1999;
    db.save(&mut theirs).await.unwrap();
    assert_eq!(theirs.version, 3);

    mine.year = 2001;
    let conflict = db.save(&mut mine).await.unwrap_err();
    assert!(matches!(conflict, Error::VersionConflict { expected: 2, found: Some(3) }), "{conflict:?}");
    assert!(conflict.is_conditional_failed() && conflict.is_version_conflict());
    assert_eq!(mine.version, 2, "a failed save leaves the version alone");
    let stored = db.get(Album::key(&artist, "One").unwrap()).await.unwrap().unwrap();
    assert_eq!(stored.year, 1999, "the conflicting write changed nothing");
}

#[tokio::test]
async fn a_new_value_cannot_overwrite_a_stored_one() {
    let db = db().await;
    let artist = unique("Fresh");
    db.put(&album(&artist, "One")).await.unwrap();
    let error = db.put(&album(&artist, "One")).await.unwrap_err();
    assert!(matches!(error, Error::VersionConflict { expected: 0, found: Some(1) }), "{error:?}");
}

#[tokio::test]
async fn updates_increment_and_check_when_asked() {
    let db = db().await;
    let artist = unique("VersionedUpdate");
    let mut stored = album(&artist, "One");
    db.save(&mut stored).await.unwrap();
    let key = Album::key(&artist, "One").unwrap();
    let updated = db.update(key.clone()).add(Album::fields().song_count, 1).await.unwrap();
    assert_eq!((updated.version, updated.song_count), (2, 1));
    let stale =
        db.update(key.clone()).expect_version(1).add(Album::fields().song_count, 1).await.unwrap_err();
    assert!(matches!(stale, Error::VersionConflict { expected: 1, found: Some(2) }), "{stale:?}");
    let fresh = db.update(key).expect_version(2).set(Album::fields().year, 2010u16).await.unwrap();
    assert_eq!((fresh.version, fresh.year), (3, 2010));
}

#[tokio::test]
async fn versioned_deletes() {
    let db = db().await;
    let artist = unique("VersionedDelete");
    let mut stored = album(&artist, "One");
    db.save(&mut stored).await.unwrap();
    let key = Album::key(&artist, "One").unwrap();
    let stale = db.delete(key.clone()).expect_version(7).await.unwrap_err();
    assert!(matches!(stale, Error::VersionConflict { expected: 7, found: Some(1) }), "{stale:?}");
    assert_eq!(db.delete(key.clone()).expect_version(1).await.unwrap(), Some(stored));
    let gone = db.delete(key).expect_version(1).await.unwrap_err();
    assert!(gone.is_not_found(), "{gone:?}");
}
