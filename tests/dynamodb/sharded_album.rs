//! Albums in three sharded copies of one index: hash, range (the seed's 21 boundaries) and
//! random shards.

use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "ShardedAlbumTests", pk = "pk", sk = "sk")]
#[gsi(ByTitleHash(pk = "hash_pk", sk = "hash_sk"))]
#[gsi(ByTitleRange(pk = "range_pk", sk = "range_sk"))]
#[gsi(Anywhere(pk = "random_pk", sk = "random_sk"))]
#[gsi(ByTitleHot(pk = "hot_pk", sk = "hot_sk"))]
pub struct ShardedMusic;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = ShardedMusic, pk = "{artist}", sk = "album#{title}")]
#[gsi(ByTitleHash(pk = "album", sk = "{title}"))]
#[shard(ByTitleHash(hash = 21, by = title))]
#[gsi(ByTitleRange(pk = "albums", sk = "{title}"))]
#[shard(ByTitleRange(range = "tests/data/album_boundaries_21.json", by = title))]
#[gsi(Anywhere(pk = "any_album", sk = "{title}"))]
#[shard(Anywhere(random = 5))]
#[gsi(ByTitleHot(pk = "hot_album", sk = "{title}"))]
#[shard(ByTitleHot(range = "tests/data/album_boundaries_21.json", by = title, overflow = 3))]
pub struct ShardedAlbum {
    pub artist: String,
    pub title: String,
    pub year: u16,
}

#[derive(Table)]
#[table(name = "SensorTests", pk = "pk", sk = "sk")]
#[gsi(Readings(pk = "reading_pk", sk = "reading_sk"))]
pub struct Sensors;

/// Seed 004's hybrid layout: a hash of the sensor and an hour bucket in the partition key, so one
/// sensor's readings in one hour share a partition and a burst spreads over 16 shards.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Sensors, pk = "sensor#{sensor}", sk = "at#{taken_at}")]
#[gsi(Readings(pk = "reading", sk = "{taken_at}#{sensor}"))]
#[shard(Readings(hash = 16, by = sensor, bucket = "hour", at = taken_at))]
pub struct Reading {
    pub sensor: String,
    pub taken_at: i64,
    pub celsius: i32,
}
