use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
#[gsi(ByTitleNext(pk = "next_pk", sk = "next_sk"))]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
#[gsi(ByTitle(pk = "albums", sk = "{title}"))]
#[gsi(ByTitleNext(method = "query_by_title", pk = "albums", sk = "{title}"))]
struct Album {
    artist: String,
    title: String,
}

fn main() {}
