//! Albums in three sharded copies of one index: hash, range (the seed's 21 boundaries) and
//! random shards.

use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "ShardedAlbumTests", pk = "pk", sk = "sk")]
#[gsi(name = "ByTitleHash", pk = "hash_pk", sk = "hash_sk")]
#[gsi(name = "ByTitleRange", pk = "range_pk", sk = "range_sk")]
#[gsi(name = "Anywhere", pk = "random_pk", sk = "random_sk")]
pub struct ShardedMusic;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = ShardedMusic, pk = "{artist}", sk = "album#{title}")]
#[gsi(ByTitleHash, pk = "album", sk = "{title}")]
#[shard(ByTitleHash, hash = 21, by = title)]
#[gsi(ByTitleRange, pk = "album", sk = "{title}")]
#[shard(ByTitleRange, range = "tests/data/album_boundaries_21.json", by = title)]
#[gsi(Anywhere, pk = "album", sk = "{title}")]
#[shard(Anywhere, random = 5)]
pub struct ShardedAlbum {
    pub artist: String,
    pub title: String,
    pub year: u16,
}
