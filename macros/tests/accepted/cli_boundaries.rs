//! Boundaries cut by `dynashard boundaries` (21 shards over skewed titles; the CLI's tests keep
//! the file equal to the command's output) compile into a range-sharded index and route alike.

use dynashard::range_shards;
use dynashard::shard::Normalization;
use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
#[gsi(ByTitle(pk = "album", sk = "{title}"))]
#[shard(ByTitle(range = "../ui/data/cli_skewed_21.json", by = title))]
struct Album {
    artist: String,
    title: String,
}

#[test]
fn accepted() {
    let boundaries = range_shards::<Album>(Music::BY_TITLE).expect("range-sharded").current();
    assert_eq!(boundaries.shards(), 21);
    let query = Album::query_by_title();
    assert_eq!(query.plan_shards().map(|shards| shards.partitions.len()), Some(21));
    let shard = boundaries.shard("Greatest Hits", Normalization::NfkdLower);
    assert!(shard < 21);
}
