//! A table for the emulator's tests, and clients through an emulator.

use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::Client;
use dynashard::{Db, Entity, Table};
use dynashard_local::emulator::{Emulator, PartitionLimits};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "EmulatorTests", pk = "pk", sk = "sk")]
#[gsi(ByFile(pk = "file_pk", sk = "file_sk"))]
#[gsi(ByUser(pk = "user_pk", sk = "user_sk"))]
pub struct Audit;

/// One access to a file: its own table partition, and the file's partition of `ByFile`. Both
/// mappings sort by `{at}#{id}`.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[entity(table = Audit, pk = "access#{id}", sk = "access")]
#[gsi(ByFile(pk = "file#{path}", sk = "{at}#{id}"))]
#[gsi(ByUser(pk = "user#{user}", sk = "{at}#{id}"))]
pub struct Access {
    pub at: u64,
    pub id: String,
    pub path: String,
    pub user: String,
    pub note: String,
}

impl Access {
    /// An access of `path` by `user`, with a note of `pad` bytes.
    pub fn new(id: impl Into<String>, path: &str, user: &str, at: u64, pad: usize) -> Self {
        Self { at, id: id.into(), path: path.into(), user: user.into(), note: "n".repeat(pad) }
    }
}

/// An emulator with `limits` in front of the shared DynamoDB Local, whose tables exist.
pub async fn emulator(limits: PartitionLimits) -> Emulator {
    let endpoint = dynashard_local::shared_endpoint().await.expect("DynamoDB Local starts");
    let db = Db::new(dynashard::client_for_endpoint(&endpoint));
    db.create_table::<Audit>().await.expect("create EmulatorTests");
    Emulator::start(&endpoint, limits).expect("the emulator starts")
}

/// A client of `emulator` whose SDK does not retry, so that every throttling reaches the caller.
pub fn client(emulator: &Emulator) -> Client {
    let base = dynashard::client_for_endpoint(emulator.endpoint());
    Client::from_conf(base.config().to_builder().retry_config(RetryConfig::disabled()).build())
}

/// A client of DynamoDB Local itself, past the emulator.
pub async fn direct() -> Db {
    Db::new(dynashard_local::shared_client().await.expect("DynamoDB Local starts"))
}

#[derive(Table)]
#[table(name = "EmulatorDynamicTests", pk = "pk", sk = "sk")]
#[gsi(ByFile(pk = "file_pk", sk = "file_sk"))]
#[gsi(ByUser(pk = "user_pk", sk = "user_sk"))]
pub struct SharedLog;

/// An access listed by file and by user, both over dynamic shard counts.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[entity(table = SharedLog, pk = "access#{id}", sk = "access")]
#[gsi(ByFile(pk = "file#{path}", sk = "{at}#{id}"))]
#[shard(ByFile(dynamic, max = 16))]
#[gsi(ByUser(pk = "user#{user}", sk = "{at}#{id}"))]
#[shard(ByUser(dynamic, max = 16))]
pub struct SharedAccess {
    pub at: u64,
    pub id: String,
    pub path: String,
    pub user: String,
}

/// The metadata table of [`SharedAccess`]'s counts.
pub const METADATA: &str = "EmulatorShardMetadata";

/// Dynamic shards that react within a test's time: a 300 ms cooldown.
pub fn shard_metadata() -> dynashard::metadata::ShardMetadata {
    use std::time::Duration;
    dynashard::metadata::ShardMetadata::new(METADATA)
        .cooldown(Duration::from_millis(300))
        .backoff(Duration::from_millis(30))
        .cache_for(Duration::from_millis(50))
}

/// An emulator with `limits` in front of the shared DynamoDB Local, with [`SharedLog`] and the
/// metadata table created.
pub async fn dynamic_emulator(limits: PartitionLimits) -> Emulator {
    let endpoint = dynashard_local::shared_endpoint().await.expect("DynamoDB Local starts");
    let db = Db::new(dynashard::client_for_endpoint(&endpoint)).with_shard_metadata(shard_metadata());
    db.create_table::<SharedLog>().await.expect("create EmulatorDynamicTests");
    db.create_shard_metadata_table().await.expect("create the metadata table");
    Emulator::start(&endpoint, limits).expect("the emulator starts")
}
