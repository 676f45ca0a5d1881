//! Put, get, update and delete against DynamoDB Local.

use crate::model::*;
use crate::{db, unique};

fn album(artist: &str, title: &str) -> Album {
    Album { artist: artist.into(), title: title.into(), year: 2007, song_count: 0, version: 0 }
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
