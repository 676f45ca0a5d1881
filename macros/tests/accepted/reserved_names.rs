//! Fields may not be stored under attributes dynashard writes itself, but a name is only taken
//! by what the entity writes: a skipped field, a renamed one, and a field named like the key of
//! an index the entity does not map are all fine. The attributes of a flattened field are not
//! known at compile time, so they are checked when an item is written.

use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(GSI1(pk = "gsi1pk", sk = "gsi1sk"))]
#[gsi(GSI2(pk = "gsi2pk", sk = "gsi2sk"))]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
#[gsi(GSI1(pk = "albums", sk = "{title}"))]
struct Album {
    artist: String,
    title: String,
    #[serde(skip)]
    pk: Option<String>,
    #[serde(rename = "owner")]
    sk: String,
    gsi2pk: String,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{name}", sk = "clash")]
struct Clash {
    name: String,
    #[serde(flatten)]
    extra: Extra,
}

#[derive(Serialize, Deserialize)]
struct Extra {
    pk: String,
}

#[test]
fn accepted() {
    let album = Album { artist: "a".into(), title: "t".into(), pk: None, sk: "o".into(), gsi2pk: "x".into() };
    let item = dynashard::item::to_item(&album).unwrap();
    assert_eq!(item["owner"].as_s().unwrap(), "o");
    assert_eq!(item["gsi2pk"].as_s().unwrap(), "x");
    assert_eq!(item["gsi1pk"].as_s().unwrap(), "albums");

    let clash = Clash { name: "n".into(), extra: Extra { pk: "sneaky".into() } };
    let error = dynashard::item::to_item(&clash).unwrap_err();
    assert!(
        matches!(&error, dynashard::Error::ReservedAttribute { attribute } if attribute == "pk"),
        "{error:?}"
    );
}
