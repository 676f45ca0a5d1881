use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk", shard_metadata = "Meta", stream = "new_image")]
#[lsi(ByYear(sk = "lsi1sk"))]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
#[lsi(ByYear(sk = "{year}", added))]
struct Album {
    artist: String,
    title: String,
    year: u16,
}

fn main() {}
