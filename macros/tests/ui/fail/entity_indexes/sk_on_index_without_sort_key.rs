use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(ByTitle(pk = "title_pk"))]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
#[gsi(ByTitle(pk = "{title}", sk = "{year}"))]
struct Album {
    artist: String,
    title: String,
    year: u16,
}

fn main() {}
