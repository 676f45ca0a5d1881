//! Field handles use the attribute names serde writes: `rename_all`, `rename`, `skip`, `flatten`.

use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist_name}", sk = "song#{album_title}#{song_title}")]
#[serde(rename_all = "camelCase")]
struct Song {
    artist_name: String,
    album_title: String,
    #[serde(rename = "title")]
    song_title: String,
    track_number: u8,
    #[serde(rename = "len")]
    length_seconds: u32,
    #[serde(skip)]
    cached: Option<String>,
    #[serde(flatten)]
    extra: HashMap<String, String>,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{id}", sk = "tag")]
#[serde(rename_all = "SCREAMING-KEBAB-CASE")]
struct Tag {
    id: String,
    display_name: String,
}

#[test]
fn accepted() {
    let fields = Song::fields();
    assert_eq!(fields.track_number.name(), "trackNumber");
    assert_eq!(fields.length_seconds.name(), "len");
    let key = Song::key("a", "b", "c").unwrap();
    assert_eq!(key.sk(), Some("song#b#c"));
    let song = Song {
        artist_name: "a".into(),
        album_title: "b".into(),
        song_title: "c".into(),
        track_number: 1,
        length_seconds: 60,
        cached: None,
        extra: HashMap::new(),
    };
    assert_eq!(dynashard::Key::of(&song).unwrap(), key);
    assert!(song.cached.is_none());

    assert_eq!(Tag::fields().display_name.name(), "DISPLAY-NAME");
}
