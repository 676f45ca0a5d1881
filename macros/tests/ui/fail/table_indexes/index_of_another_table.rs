use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
struct Music;

#[derive(Table)]
#[table(name = "Films", pk = "pk", sk = "sk")]
#[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
struct Films;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
#[gsi(ByTitle(pk = "albums", sk = "{title}"))]
#[shard(ByTitle(hash = 4, by = title))]
struct Album {
    artist: String,
    title: String,
}

fn main() {
    let _ = dynashard::range_shards::<Album>(Films::BY_TITLE);
    let _ = dynashard::range_shards::<Album>(Music::BY_NAME);
}
