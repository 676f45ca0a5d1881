//! A mapping names its query method: after a resharding moves a mapping to the spare index,
//! `method` keeps the callers' `query_by_title()`.

use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
#[gsi(ByTitleNext(pk = "next_pk", sk = "next_sk"))]
#[gsi(ByYear(pk = ["year:N"]))]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
#[gsi(ByTitleNext(method = "query_by_title", pk = "albums", sk = "{title}"))]
#[shard(ByTitleNext(hash = 32, by = title))]
#[gsi(ByYear(method = "albums_of_year", pk = [year]))]
struct Album {
    artist: String,
    title: String,
    year: u16,
}

#[test]
fn accepted() {
    let by_title = Album::query_by_title().begins_with("Leaving");
    let shards = by_title.plan_shards().expect("sharded");
    assert_eq!(shards.partitions.len(), 32);
    assert!(shards.partitions.iter().all(|partition| partition.starts_with("albums")));
    let _ = Album::albums_of_year(2007);
}
