use dynashard::{Collection, Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{name}", sk = "artist")]
struct Artist {
    name: String,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "play#{id}")]
#[shard(hash = 8, by = id)]
struct Play {
    artist: String,
    id: String,
}

#[derive(Collection)]
enum ArtistItems {
    Artist(Artist),
    Play(Play),
}

fn main() {}
