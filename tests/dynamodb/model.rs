//! The seed's Music table, shared by the integration tests.

use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "MusicTests", pk = "pk", sk = "sk")]
#[gsi(GSI1(pk = "gsi1pk", sk = "gsi1sk"))]
pub struct Music;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Music, pk = "{name}", sk = "artist")]
pub struct Artist {
    pub name: String,
    pub country: Option<String>,
}

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
#[gsi(GSI1(pk = "album", sk = "{title}"))]
pub struct Album {
    pub artist: String,
    pub title: String,
    pub year: u16,
    pub song_count: u32,
    #[version]
    pub version: u64,
}

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Music, pk = "{artist}", sk = "song#{album}#{title}")]
#[serde(rename_all = "camelCase")]
pub struct Song {
    pub artist: String,
    pub album: String,
    pub title: String,
    pub track_number: u8,
    pub length_seconds: u32,
    pub lyrics: Option<String>,
}

/// A table with a partition key only and numeric key parts.
#[derive(Table)]
#[table(name = "CounterTests", pk = "id")]
pub struct Counters;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Counters, pk = "counter#{shard}#{day}", name = "counter")]
pub struct Counter {
    pub shard: i32,
    pub day: u32,
    pub count: i64,
}

/// Deliberately shares `Artist`'s key shape, to test the entity-type check on read.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Music, pk = "{name}", sk = "artist", name = "Impostor")]
pub struct Impostor {
    pub name: String,
}

/// Integer key parts in the sort key, to check that DynamoDB's order is numeric order.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Music, pk = "{artist}", sk = "play#{day}#{offset}")]
pub struct Play {
    pub artist: String,
    pub day: u32,
    pub offset: i64,
}

/// Serializes an attribute named like the table's partition key, through a flattened struct
/// that the derive cannot see into (a field of its own named `pk` does not compile).
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Music, pk = "{name}", sk = "clash")]
pub struct Clash {
    pub name: String,
    #[serde(flatten)]
    pub extra: ClashExtra,
}

/// The attributes [`Clash`] adds through `#[serde(flatten)]`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct ClashExtra {
    pub pk: String,
}

impl Clash {
    /// A clash whose flattened `pk` attribute holds `pk`.
    pub fn new(name: impl Into<String>, pk: &str) -> Self {
        Clash { name: name.into(), extra: ClashExtra { pk: pk.into() } }
    }
}
