//! `crate = "..."` names the dynashard crate where it is not `::dynashard`, for code that reaches
//! it through a re-export.

mod storage {
    pub use dynashard as engine;
}

use serde::{Deserialize, Serialize};
use storage::engine::{Collection, Entity, Table};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk", crate = "storage::engine")]
#[gsi(GSI1(pk = "gsi1pk", sk = "gsi1sk"))]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}", crate = "storage::engine")]
#[gsi(GSI1(pk = "album", sk = "{title}"))]
#[shard(GSI1(hash = 4, by = title))]
struct Album {
    artist: String,
    title: String,
    plays: u64,
}

#[derive(Collection)]
#[collection(crate = "crate::crate_path::storage::engine")]
enum Discography {
    Album(Album),
}

#[test]
fn accepted() {
    let key = Album::key("Solar Fields", "Leaving Home").expect("a valid key");
    let _ = key;
    let _ = Album::fields().plays;
    let _ = Music::GSI1;
    let _ = Album::query_gsi1();
    let _ = <Discography as storage::engine::query::FromItem>::TYPE_NAMES;
    let _ = <Album as Entity>::TYPE_NAME;
}
