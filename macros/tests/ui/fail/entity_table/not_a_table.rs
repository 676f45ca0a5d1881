use dynashard::Entity;
use serde::{Deserialize, Serialize};

struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
struct Album {
    artist: String,
    title: String,
}

// Every check the derive makes against the table (the sort key, an index mapped with
// templates, sharded, a native index mapped with fields, time to live) holds silently: the
// one error is that `Music` is not a table.
#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}")]
#[gsi(ByYear(pk = "year", sk = "{title}"))]
#[shard(ByYear(hash = 4, by = title))]
#[gsi(ByTitle(pk = [title], sk = [year]))]
struct Single {
    artist: String,
    title: String,
    year: u16,
    #[ttl]
    expires: Option<u64>,
}

fn main() {}
