use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(GSI1(pk = "gsi1Pk", sk = "gsi1Sk"))]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
#[gsi(GSI1(pk = "album", sk = "{title}"))]
struct Album {
    artist: String,
    title: String,
    gsi1_sk: String,
}

fn main() {}
