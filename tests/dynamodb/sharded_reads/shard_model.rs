//! A table of entries written under hand-made shard partitions.

use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "ShardedReadTests", pk = "pk", sk = "sk")]
pub struct ShardedReads;

/// One entry; `shard` and `n` say where it was written and which one it is.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = ShardedReads, pk = "{bucket}", sk = "t#{title}")]
pub struct Entry {
    pub bucket: String,
    pub title: String,
    pub shard: u32,
    pub n: u32,
}
