//! A table with a sort key and an index; entities with field and literal-only templates.

use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(GSI1(pk = "gsi1pk", sk = "gsi1sk"))]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{name}", sk = "artist")]
struct Artist {
    name: String,
    country: Option<String>,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
struct Album {
    artist: String,
    title: String,
    year: u16,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "song#{album}#{title}")]
struct Song {
    artist: String,
    album: String,
    title: String,
    length: u32,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "artist", sk = "all")]
struct Catalog {
    count: u64,
}

#[test]
fn accepted() {
    let definition = <Music as Table>::DEFINITION;
    assert_eq!(definition.name, "Music");
    assert_eq!(definition.sort_key, Some("sk"));
    assert_eq!(definition.type_attribute, "_type");
    assert_eq!(definition.indexes[0].name, "GSI1");
    assert_eq!(definition.indexes[0].partition_key[0].name, "gsi1pk");
    assert_eq!(definition.indexes[0].sort_key[0].name, "gsi1sk");

    let artist = Artist::key("Solar Fields").unwrap();
    assert_eq!((artist.pk(), artist.sk()), ("Solar Fields", Some("artist")));
    assert_eq!(Artist::fields().country.name(), "country");

    let album = Album::key("a", "b").unwrap();
    assert_eq!((album.pk(), album.sk()), ("a", Some("album#b")));
    assert_eq!(Album::fields().year.name(), "year");
    assert_eq!(<Album as dynashard::Entity>::TYPE_NAME, "Album");

    let song = Song::key("a", "x#y", "z").unwrap();
    assert_eq!((song.pk(), song.sk()), ("a", Some("song#x$#y#z")));
    let value = Song { artist: "a".into(), album: "x#y".into(), title: "z".into(), length: 1 };
    assert_eq!(dynashard::Key::of(&value).unwrap(), song);

    let catalog = Catalog::key().unwrap();
    assert_eq!((catalog.pk(), catalog.sk()), ("artist", Some("all")));
    assert_eq!(Catalog::fields().count.name(), "count");

    assert!(Album::key("", "b").is_err());
}
