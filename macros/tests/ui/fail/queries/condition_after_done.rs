use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "song#{album}#{title}")]
struct Song {
    artist: String,
    album: String,
    title: String,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{user}", sk = "play#{track}#{offset}")]
struct Play {
    user: String,
    track: u32,
    offset: i64,
}

fn main() {
    let _ = Song::query("a").eq("album").between("a", "m").eq("x");
}
