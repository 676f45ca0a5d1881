//! Put, get, update and delete against DynamoDB Local.

use crate::model::*;
use crate::{db, unique};
use dynashard::{Condition, Error, RawExpression};

pub fn album(artist: &str, title: &str) -> Album {
    Album { artist: artist.into(), title: title.into(), year: 2007, song_count: 0, version: 0 }
}

pub fn song(artist: &str, album: &str, title: &str) -> Song {
    Song {
        artist: artist.into(),
        album: album.into(),
        title: title.into(),
        track_number: 1,
        length_seconds: 300,
        lyrics: None,
    }
}

#[tokio::test]
async fn put_then_get_round_trips() {
    let db = db().await;
    let artist = unique("Solar Fields");
    let mut stored = album(&artist, "Leaving Home");
    db.save(&mut stored).await.unwrap();
    assert_eq!(stored.version, 1);
    let read = db.get(Album::key(&artist, "Leaving Home").unwrap()).await.unwrap();
    assert_eq!(read, Some(stored.clone()));
    let consistent = db.get(Album::key(&artist, "Leaving Home").unwrap()).consistent().await.unwrap();
    assert_eq!(consistent, Some(stored));
    let missing = db.get(Album::key(&artist, "Nope").unwrap()).await.unwrap();
    assert_eq!(missing, None);
}

#[tokio::test]
async fn items_carry_keys_and_entity_type() {
    let db = db().await;
    let artist = unique("Dday One");
    db.put(&song(&artist, "Heavy Migration", "Intro")).await.unwrap();
    let raw = db
        .client()
        .get_item()
        .table_name(db.table_name::<Music>())
        .key("pk", aws_sdk_dynamodb::types::AttributeValue::S(artist.clone()))
        .key("sk", aws_sdk_dynamodb::types::AttributeValue::S("song#Heavy Migration#Intro".into()))
        .send()
        .await
        .unwrap()
        .item
        .expect("the item is stored under the composed key");
    assert_eq!(raw["_type"].as_s().unwrap(), "Song");
    assert_eq!(raw["trackNumber"].as_n().unwrap(), "1", "serde renames apply to the body");
    assert!(!raw.contains_key("lyrics"), "None fields are left out of the item");
}

#[tokio::test]
async fn plain_put_replaces_and_create_only_refuses() {
    let db = db().await;
    let artist = unique("International Pony");
    let mut first = song(&artist, "A", "One");
    db.put(&first).create_only().await.unwrap();
    first.length_seconds = 111;
    let again = db.put(&first).create_only().await.unwrap_err();
    assert!(matches!(again, Error::AlreadyExists), "{again:?}");
    assert!(again.is_conditional_failed());
    db.put(&first).await.unwrap();
    let read = db.get(Song::key(&artist, "A", "One").unwrap()).await.unwrap().unwrap();
    assert_eq!(read.length_seconds, 111);
}

#[tokio::test]
async fn conditional_put_checks_the_stored_item() {
    let db = db().await;
    let artist = unique("Cond");
    let mut item = song(&artist, "A", "One");
    db.put(&item).await.unwrap();
    item.length_seconds = 10;
    let longer = Song::fields().length_seconds.gt(1000);
    let error = db.put(&item).condition(longer).await.unwrap_err();
    assert!(error.is_conditional_failed());
    let Error::ConditionFailed { current: Some(current) } = &error else { panic!("{error:?}") };
    assert_eq!(current["lengthSeconds"].as_n().unwrap(), "300");
    let shorter = Song::fields().length_seconds.lt(1000).and(Song::fields().lyrics.not_exists());
    db.put(&item).condition(shorter).await.unwrap();
    let read = db.get(Song::key(&artist, "A", "One").unwrap()).await.unwrap().unwrap();
    assert_eq!(read.length_seconds, 10);
}

#[tokio::test]
async fn update_sets_adds_and_removes_fields() {
    let db = db().await;
    let artist = unique("Updater");
    let mut item = song(&artist, "A", "One");
    item.lyrics = Some("la la".into());
    db.put(&item).await.unwrap();
    let key = Song::key(&artist, "A", "One").unwrap();
    let fields = Song::fields();
    let updated = db
        .update(key.clone())
        .set(fields.track_number, 7u8)
        .add(fields.length_seconds, 5)
        .remove(fields.lyrics)
        .await
        .unwrap();
    assert_eq!(updated.track_number, 7);
    assert_eq!(updated.length_seconds, 305);
    assert_eq!(updated.lyrics, None);
    assert_eq!(db.get(key.clone()).await.unwrap(), Some(updated));
    let with_lyrics = db.update(key.clone()).set(fields.lyrics, Some("new".to_string())).await.unwrap();
    assert_eq!(with_lyrics.lyrics.as_deref(), Some("new"));
    let cleared = db.update(key.clone()).set(fields.lyrics, None).await.unwrap();
    assert_eq!(cleared.lyrics, None);
    let absent = db.put(&cleared).condition(fields.lyrics.not_exists()).await;
    assert!(absent.is_ok(), "setting None removes the attribute: {absent:?}");
}

#[tokio::test]
async fn update_of_a_missing_item_is_not_found_and_creates_nothing() {
    let db = db().await;
    let artist = unique("Ghost");
    let key = Song::key(&artist, "A", "One").unwrap();
    let error = db.update(key.clone()).set(Song::fields().track_number, 2u8).await.unwrap_err();
    assert!(error.is_not_found(), "{error:?}");
    assert_eq!(db.get(key).await.unwrap(), None);
}

#[tokio::test]
async fn update_condition_and_raw_escape_hatch() {
    let db = db().await;
    let artist = unique("Raw");
    db.put(&song(&artist, "A", "One")).await.unwrap();
    let key = Song::key(&artist, "A", "One").unwrap();
    let never = Condition::raw(
        RawExpression::new("#len > :big")
            .name("#len", "lengthSeconds")
            .value(":big", aws_sdk_dynamodb::types::AttributeValue::N("100000".into())),
    );
    let error =
        db.update(key.clone()).set(Song::fields().track_number, 3u8).condition(never).await.unwrap_err();
    assert!(matches!(error, Error::ConditionFailed { current: Some(_) }), "{error:?}");
    let doubled = db
        .update(key)
        .set_raw(RawExpression::new("#len = #len + #len").name("#len", "lengthSeconds"))
        .await
        .unwrap();
    assert_eq!(doubled.length_seconds, 600);
}

#[tokio::test]
async fn delete_returns_the_old_entity() {
    let db = db().await;
    let artist = unique("Deleter");
    let item = song(&artist, "A", "One");
    db.put(&item).await.unwrap();
    let key = Song::key(&artist, "A", "One").unwrap();
    assert_eq!(db.delete(key.clone()).await.unwrap(), Some(item));
    assert_eq!(db.get(key.clone()).await.unwrap(), None);
    assert_eq!(db.delete(key).await.unwrap(), None);
}

#[tokio::test]
async fn conditional_delete() {
    let db = db().await;
    let artist = unique("CondDelete");
    db.put(&song(&artist, "A", "One")).await.unwrap();
    let key = Song::key(&artist, "A", "One").unwrap();
    let error = db.delete(key.clone()).condition(Song::fields().track_number.eq(9)).await.unwrap_err();
    assert!(error.is_conditional_failed());
    assert!(db.get(key.clone()).await.unwrap().is_some());
    db.delete(key.clone()).condition(Song::fields().track_number.eq(1)).await.unwrap();
    assert!(db.get(key).await.unwrap().is_none());
}

#[tokio::test]
async fn reading_another_entity_type_under_the_same_key_is_a_typed_error() {
    let db = db().await;
    let name = unique("Shape");
    db.put(&Artist { name: name.clone(), country: Some("SE".into()) }).await.unwrap();
    let error = db.get(Impostor::key(&name).unwrap()).await.unwrap_err();
    assert!(
        matches!(&error, Error::WrongEntityType { expected: "Impostor", found: Some(found) } if found == "Artist"),
        "{error:?}"
    );
}

#[tokio::test]
async fn partition_only_tables_and_integer_keys() {
    let db = db().await;
    let counter = Counter { shard: -3, day: 20261122, count: 5 };
    db.put(&counter).await.unwrap();
    let key = Counter::key(-3, 20261122).unwrap();
    assert_eq!(key.pk(), "counter#-2147483645#0020261122");
    assert_eq!(key.sk(), None);
    assert_eq!(db.get(key.clone()).await.unwrap(), Some(counter));
    let updated = db.update(key).add(Counter::fields().count, -2).await.unwrap();
    assert_eq!(updated.count, 3);
}
