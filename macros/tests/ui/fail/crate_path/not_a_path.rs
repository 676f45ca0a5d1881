use dynashard::{Collection, Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", crate = "not a path")]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", crate = dynashard)]
struct Artist {
    artist: String,
}

#[derive(Collection)]
#[collection(crate = "dynashard", crate = "dynashard", name = "x")]
enum Everything {
    Artist(Artist),
}

fn main() {}
