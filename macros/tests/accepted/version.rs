//! An entity with a `#[version]` field for optimistic locking.

use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
struct Album {
    artist: String,
    title: String,
    year: u16,
    #[version]
    #[serde(rename = "v")]
    version: u64,
}

#[test]
fn accepted() {
    assert_eq!(<Album as Entity>::VERSION_ATTRIBUTE, Some("v"));
    let mut album = Album { artist: "a".into(), title: "b".into(), year: 2007, version: 0 };
    assert_eq!(album.version(), 0);
    album.set_version(3);
    assert_eq!(album.version, 3);
    // The version field is neither a key field nor an updatable field.
    let fields = Album::fields();
    let _: dynashard::Field<Album, u16> = fields.year;
    assert_eq!(fields.year.name(), "year");
}
