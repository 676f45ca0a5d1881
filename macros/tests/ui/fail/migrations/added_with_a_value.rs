use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk", shard_metadata = "Meta", stream = "new_image")]
#[gsi(ByTitle(pk = "gsi1pk", sk = "gsi1sk"))]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
#[gsi(ByTitle(pk = "albums", sk = "{title}", added = true))]
struct Album {
    artist: String,
    title: String,
}

fn main() {}
