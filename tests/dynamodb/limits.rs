//! DynamoDB's limits, enforced before any request is sent.

use crate::crud::song;
use crate::model::*;
use crate::{db, unique};
use dynashard::item::MAX_ITEM_BYTES;
use dynashard::{Db, Error, KeyError};

/// A `Db` whose endpoint accepts no connection: any request that is sent fails with a service
/// error, so a typed validation error proves nothing was sent.
fn unreachable_db() -> Db {
    Db::new(dynashard::client_for_endpoint("http://127.0.0.1:9"))
}

#[tokio::test]
async fn empty_key_values_are_rejected_before_sending() {
    let db = unreachable_db();
    let error = db.put(&song("", "A", "One")).await.unwrap_err();
    assert!(
        matches!(
            error,
            Error::InvalidKey { attribute: "pk", reason: KeyError::EmptyValue { field: "artist" }, .. }
        ),
        "{error:?}"
    );
    assert!(error.is_invalid_input());
    let error = Song::key("someone", "", "One").unwrap_err();
    assert!(matches!(error, Error::InvalidKey { attribute: "sk", .. }), "{error:?}");
}

#[tokio::test]
async fn key_size_limits_apply_after_encoding() {
    let db = db().await;
    let artist = unique("Long");
    // "song#" + album + "#" + title: exactly 1,024 bytes is accepted by DynamoDB Local.
    let title = "t".repeat(1024 - "song#A#".len());
    db.put(&song(&artist, "A", &title)).await.unwrap();
    assert!(db.get(Song::key(&artist, "A", &title).unwrap()).await.unwrap().is_some());
    // One more byte, or escaping that pushes it over, is rejected before sending.
    let over = format!("{title}t");
    let error = unreachable_db().put(&song(&artist, "A", &over)).await.unwrap_err();
    assert!(matches!(error, Error::InvalidKey { reason: KeyError::TooLong { bytes: 1025, max: 1024 }, .. }));
    let escaped = format!("{}#", &title[1..]);
    let error = Song::key(&artist, "A", &escaped).unwrap_err();
    assert!(
        matches!(error, Error::InvalidKey { reason: KeyError::TooLong { bytes: 1025, .. }, .. }),
        "{error:?}"
    );

    let long_artist = "p".repeat(2048);
    db.put(&song(&long_artist, "A", "One")).await.unwrap();
    let error = Song::key(&format!("{long_artist}p"), "A", "One").unwrap_err();
    assert!(matches!(
        error,
        Error::InvalidKey { attribute: "pk", reason: KeyError::TooLong { max: 2048, .. }, .. }
    ));
}

#[tokio::test]
async fn items_over_400_kb_are_rejected_before_sending() {
    let db = db().await;
    let artist = unique("Big");
    let mut item = song(&artist, "A", "One");
    item.lyrics = Some("x".repeat(MAX_ITEM_BYTES - 400));
    db.put(&item).await.unwrap();
    let read = db.get(Song::key(&artist, "A", "One").unwrap()).await.unwrap().unwrap();
    assert_eq!(read.lyrics.map(|l| l.len()), Some(MAX_ITEM_BYTES - 400));

    item.lyrics = Some("x".repeat(MAX_ITEM_BYTES));
    let error = unreachable_db().put(&item).await.unwrap_err();
    assert!(matches!(error, Error::ItemTooLarge { max: MAX_ITEM_BYTES, .. }), "{error:?}");
    assert!(error.is_invalid_input());
}

/// Two large values, each of which fits on its own.
#[derive(dynashard::Entity, serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
#[entity(table = crate::model::Music, pk = "blob#{id}", sk = "blob")]
struct Blob {
    id: String,
    first: String,
    second: String,
}

#[tokio::test]
async fn an_update_growing_an_item_past_400_kb_is_refused_and_stores_nothing() {
    let db = db().await;
    let blob = Blob { id: unique("blob"), first: "a".repeat(300_000), second: String::new() };
    db.put(&blob).await.unwrap();
    let key = || Blob::key(&blob.id).unwrap();
    let f = Blob::fields();
    let error = db.update(key()).set(f.second, "b".repeat(200_000)).await.unwrap_err();
    assert!(matches!(error, Error::UpdatedItemTooLarge { max: MAX_ITEM_BYTES }), "{error:?}");
    let refused =
        db.transaction().update(db.update(key()).set(f.second, "b".repeat(200_000))).await.unwrap_err();
    let Error::TransactionCanceled { reasons } = &refused else { panic!("{refused:?}") };
    assert!(matches!(reasons[0].error.as_deref(), Some(Error::UpdatedItemTooLarge { .. })), "{reasons:?}");
    assert_eq!(db.get(key()).await.unwrap().unwrap(), blob, "nothing stored");
    db.update(key()).set(f.second, "b".repeat(90_000)).await.expect("within the limit");
}

#[tokio::test]
async fn a_body_attribute_named_like_a_key_attribute_is_rejected() {
    let error = unreachable_db().put(&Clash::new("n", "sneaky")).await.unwrap_err();
    assert!(matches!(&error, Error::ReservedAttribute { attribute } if attribute == "pk"), "{error:?}");
}

#[tokio::test]
async fn network_failures_are_service_errors_with_a_source() {
    let error = unreachable_db().get(Song::key("a", "b", "c").unwrap()).await.unwrap_err();
    assert!(matches!(error, Error::Service { operation: "GetItem", .. }), "{error:?}");
    assert!(std::error::Error::source(&error).is_some());
    assert!(!error.is_conditional_failed() && !error.is_throttled());
}
