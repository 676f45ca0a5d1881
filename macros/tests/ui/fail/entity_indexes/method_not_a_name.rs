use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
#[gsi(ByYear(pk = "year_pk", sk = "year_sk"))]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
#[gsi(ByTitle(method = "by title", pk = "albums", sk = "{title}"))]
#[sparse_gsi(ByYear(method = "query", pk = "years", sk = "{year}"))]
struct Album {
    artist: String,
    title: String,
    year: Option<u16>,
}

fn main() {}
