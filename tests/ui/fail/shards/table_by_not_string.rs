use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{album}", sk = "track#{track}")]
#[shard(hash = 4, by = track)]
struct Song {
    album: String,
    track: u8,
}

fn main() {}
