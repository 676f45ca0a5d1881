use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(GSI1(pk = "gsi1pk", sk = "gsi1sk"))]
#[gsi(GSI2(pk = "gsi2pk", sk = "gsi2sk"))]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
#[gsi(GSI1, pk = "album", sk = "{title}")]
struct Flat {
    artist: String,
    title: String,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
#[gsi(GSI1(pk = "album", sk = "{title}"), GSI2(pk = "album", sk = "{title}"))]
struct TwoInOne {
    artist: String,
    title: String,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
#[gsi(GSI1(pk = "album", sk = "{title}"))]
#[shard(GSI1, hash = 8, by = title)]
struct FlatShard {
    artist: String,
    title: String,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
#[gsi(GSI1(pk = "album", sk = "{title}"))]
#[shard(GSI1(hash = 8), by = title)]
struct KeyOutside {
    artist: String,
    title: String,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
#[gsi(GSI1(pk = "album", sk = "{title}"))]
#[gsi(GSI2(pk = "album", sk = "{title}"))]
#[shard(GSI1(hash = 8, by = title), GSI2(hash = 8, by = title))]
#[gsi()]
struct TwoShardsInOne {
    artist: String,
    title: String,
}

fn main() {}
