//! An item collection: an enum of entities that share a partition key, read with one query and
//! dispatched on the entity-type attribute.

use dynashard::query::{Done, FromItem};
use dynashard::AttributeValue;
use dynashard::{Collection, Entity, Error, Query, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
struct Music;

#[derive(Entity, Serialize, Deserialize, Debug)]
#[entity(table = Music, pk = "{name}", sk = "artist")]
struct Artist {
    name: String,
}

#[derive(Entity, Serialize, Deserialize, Debug)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
struct Album {
    artist: String,
    title: String,
}

#[derive(Entity, Serialize, Deserialize, Debug)]
#[entity(table = Music, pk = "{artist}", sk = "song#{album}#{title}", name = "track")]
struct Song {
    artist: String,
    album: String,
    title: String,
}

#[derive(Entity, Serialize, Deserialize, Debug)]
#[entity(table = Music, pk = "{artist}", sk = "tour#{year}")]
struct Tour {
    artist: String,
    year: u16,
}

#[derive(Collection, Debug)]
enum ArtistItems {
    Artist(Artist),
    Album(Album),
    Song(Song),
}

#[test]
fn accepted() {
    assert_eq!(<ArtistItems as FromItem>::TYPE_NAMES, &["Artist", "Album", "track"]);
    let _items: Query<ArtistItems, Done> = ArtistItems::query(&Artist::key("x").unwrap());
    // The key of any entity of the table names the partition.
    let _items: Query<ArtistItems, Done> = ArtistItems::query(&Album::key("x", "y").unwrap()).descending();

    let song = Song { artist: "x".into(), album: "a".into(), title: "t".into() };
    let item = dynashard::item::to_item(&song).unwrap();
    assert_eq!(item.get("_type"), Some(&AttributeValue::S("track".into())));
    match ArtistItems::from_item(item, false).unwrap() {
        Some(ArtistItems::Song(read)) => assert_eq!(read.title, "t"),
        other => panic!("expected a song, got {other:?}"),
    }

    let tour = dynashard::item::to_item(&Tour { artist: "x".into(), year: 2026 }).unwrap();
    assert!(ArtistItems::from_item(tour.clone(), true).unwrap().is_none());
    let error = ArtistItems::from_item(tour, false).unwrap_err();
    assert!(matches!(error, Error::UnknownEntityType { found: Some(ref found), .. } if found == "Tour"));
}
