//! Models of the end-to-end sharding tests: records behind three sharded copies of one title
//! index (hash, range over the seed's 21 boundaries, random), and sensor readings in hourly
//! buckets.

use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "ShardedE2eRecords", pk = "pk", sk = "sk")]
#[gsi(TitleHash(pk = "hash_pk", sk = "hash_sk"))]
#[gsi(TitleRange(pk = "range_pk", sk = "range_sk"))]
#[gsi(TitleRandom(pk = "random_pk", sk = "random_sk"))]
pub struct E2eRecords;

/// A record; `n` is its position in the generated input. Three index mappings share
/// `sk = "{title}"`.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = E2eRecords, pk = "artist#{artist}", sk = "record#{title}")]
#[gsi(TitleHash(pk = "hashed", sk = "{title}"))]
#[shard(TitleHash(hash = 21, by = title))]
#[gsi(TitleRange(pk = "ranged", sk = "{title}"))]
#[shard(TitleRange(range = "tests/data/album_boundaries_21.json", by = title))]
#[gsi(TitleRandom(pk = "scattered", sk = "{title}"))]
#[shard(TitleRandom(random = 8))]
pub struct E2eRecord {
    pub artist: String,
    pub title: String,
    pub n: u32,
}

#[derive(Table)]
#[table(name = "ShardedE2eSensors", pk = "pk", sk = "sk")]
#[gsi(Readings(pk = "reading_pk", sk = "reading_sk"))]
pub struct E2eSensors;

/// A reading; `seq` tells apart readings of one sensor in one second. The index is sharded by a
/// hash of the sensor and bucketed by the hour of `taken_at`, and sorted by time first.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = E2eSensors, pk = "sensor#{sensor}", sk = "at#{taken_at}#{seq}")]
#[gsi(Readings(pk = "reading", sk = "{taken_at}#{sensor}#{seq}"))]
#[shard(Readings(hash = 8, by = sensor, bucket = "hour", at = taken_at))]
pub struct E2eReading {
    pub sensor: String,
    pub taken_at: i64,
    pub seq: u32,
    pub celsius: i32,
}
