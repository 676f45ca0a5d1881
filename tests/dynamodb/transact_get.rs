//! Transactional reads: items of several entity types and tables from one snapshot, as a tuple
//! or as a collection's variants.

use crate::crud::{album, song};
use crate::model::*;
use crate::{db, unique};
use dynashard::transaction::{ReasonCode, MAX_TRANSACTION_ACTIONS};
use dynashard::{Collection, Error};

#[derive(Collection, Debug)]
enum ArtistReads {
    Artist(Artist),
    Song(Song),
}

#[tokio::test]
async fn reads_of_several_types_and_tables_come_back_in_order() {
    let db = db().await;
    let name = unique("TxGet");
    let artist = Artist { name: name.clone(), country: Some("SE".into()) };
    db.put(&artist).await.unwrap();
    let mut stored_album = album(&name, "Leaving Home");
    db.save(&mut stored_album).await.unwrap();
    let counter = Counter { shard: 77, day: 9_001, count: 5 };
    db.put(&counter).await.unwrap();

    let (got_artist, got_album, missing, got_counter) = db
        .transact_get()
        .get(Artist::key(&name).unwrap())
        .get(Album::key(&name, "Leaving Home").unwrap())
        .get(Song::key(&name, "Leaving Home", "Not Written").unwrap())
        .get(Counter::key(77, 9_001).unwrap())
        .await
        .unwrap();
    assert_eq!(got_artist, Some(artist));
    assert_eq!(got_album, Some(stored_album.clone()), "with its version");
    assert_eq!(missing, None, "no item under the key");
    assert_eq!(got_counter, Some(counter));
    let () = db.transact_get().await.unwrap();

    let written = song(&name, "Leaving Home", "Air Song");
    db.put(&written).await.unwrap();
    let members = db
        .transact_get_members::<ArtistReads>()
        .member(Song::key(&name, "Leaving Home", "Air Song").unwrap())
        .member(Song::key(&name, "Leaving Home", "Nothing").unwrap())
        .member(Artist::key(&name).unwrap())
        .await
        .unwrap();
    assert!(
        matches!(&members[..], [Some(ArtistReads::Song(s)), None, Some(ArtistReads::Artist(a))] if *s == written && a.name == name),
        "{members:?}"
    );

    // The artist's item read as another entity type with the same key shape.
    let error = db.transact_get().get(Impostor::key(&name).unwrap()).await.unwrap_err();
    assert!(matches!(error, Error::WrongEntityType { .. }), "{error:?}");
}

#[tokio::test]
async fn bad_reads_fail_before_sending() {
    let db = db().await;
    let name = unique("TxGetBad");
    let key = || Artist::key(&name).unwrap();
    let error = db.transact_get().get(key()).get(key()).await.unwrap_err();
    assert!(matches!(error, Error::DuplicateTransactionKey { .. }), "{error:?}");
    let mut many = db.transact_get_members::<ArtistReads>();
    for n in 0..=MAX_TRANSACTION_ACTIONS {
        many = many.member(Song::key(&name, "Album", &format!("song {n}")).unwrap());
    }
    let error = many.await.unwrap_err();
    assert!(matches!(error, Error::TransactionTooLarge { actions: 101, max: 100 }), "{error:?}");
}

#[tokio::test]
async fn a_snapshot_never_shows_half_a_transaction() {
    let db = db().await;
    let (from, to) =
        (Counter { shard: 78, day: 9_002, count: 100 }, Counter { shard: 78, day: 9_003, count: 0 });
    db.put(&from).await.unwrap();
    db.put(&to).await.unwrap();
    let keys = || (Counter::key(78, 9_002).unwrap(), Counter::key(78, 9_003).unwrap());
    let writer = {
        let db = db.clone();
        tokio::spawn(async move {
            for _ in 0..40 {
                let (from, to) = keys();
                let moved = db
                    .transaction()
                    .update(db.update(from).add(Counter::fields().count, -1))
                    .update(db.update(to).add(Counter::fields().count, 1))
                    .await;
                if let Err(error) = moved {
                    assert!(matches!(error, Error::TransactionCanceled { .. }), "{error:?}");
                }
            }
        })
    };
    let (mut reads, mut conflicts) = (0, 0);
    while !writer.is_finished() || reads == 0 {
        let (from, to) = keys();
        match db.transact_get().get(from).get(to).await {
            Ok((Some(from), Some(to))) => {
                assert_eq!(from.count + to.count, 100, "both moves or neither: {from:?} {to:?}");
                reads += 1;
            }
            Ok(other) => panic!("both counters exist: {other:?}"),
            Err(Error::TransactionCanceled { reasons }) => {
                assert!(reasons.iter().any(|reason| reason.code != ReasonCode::None), "{reasons:?}");
                assert_eq!(reasons.len(), 2, "one reason per read");
                conflicts += 1;
            }
            Err(error) => panic!("{error:?}"),
        }
    }
    writer.await.unwrap();
    assert!(reads > 0, "{reads} snapshots, {conflicts} cancelled by a write in progress");
}
