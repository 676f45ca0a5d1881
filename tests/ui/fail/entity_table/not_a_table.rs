use dynashard::Entity;
use serde::{Deserialize, Serialize};

struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
struct Album {
    artist: String,
    title: String,
}

fn main() {}
