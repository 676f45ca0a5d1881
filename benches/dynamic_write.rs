//! A write to a dynamic-sharded index, with its shard count cached, against the same write to a
//! static hash-sharded index: 2,000 puts per round, 16 in flight, alternating rounds on the same
//! DynamoDB Local (`AWS_ENDPOINT_URL_DYNAMODB`, or one started here). The report is the ratio of the
//! median round times. Target: at most 1.1x.
//!
//! ```text
//! cargo bench --bench dynamic_write
//! ```

#[path = "support/ratio.rs"]
#[allow(dead_code)] // the rate report is not used here
mod ratio;

use dynashard::metadata::ShardMetadata;
use dynashard::{Db, Entity, Table};
use futures::stream::{self, StreamExt};
use serde::{Deserialize, Serialize};
use std::cell::Cell;
use std::time::Duration;

const PUTS: usize = 2_000;
const IN_FLIGHT: usize = 16;
const ROUNDS: usize = 11;

#[derive(Table)]
#[table(name = "DynamicWriteBench", pk = "pk", sk = "sk")]
#[gsi(ByFileHash(pk = "hash_pk", sk = "hash_sk"))]
#[gsi(ByFileDynamic(pk = "dynamic_pk", sk = "dynamic_sk"))]
struct Bench;

/// The same access, written through a static hash layout of 8 shards.
#[derive(Entity, Serialize, Deserialize, Clone)]
#[entity(table = Bench, pk = "hash#{id}", sk = "access")]
#[gsi(ByFileHash(pk = "file#{path}", sk = "{at}#{id}"))]
#[shard(ByFileHash(hash = 8, by = id))]
struct HashedAccess {
    id: String,
    path: String,
    at: u64,
    user: String,
}

/// ... and through a dynamic count (set to 8 before the run, so both spread alike).
#[derive(Entity, Serialize, Deserialize, Clone)]
#[entity(table = Bench, pk = "dynamic#{id}", sk = "access")]
#[gsi(ByFileDynamic(pk = "file#{path}", sk = "{at}#{id}"))]
#[shard(ByFileDynamic(dynamic, max = 64))]
struct DynamicAccess {
    id: String,
    path: String,
    at: u64,
    user: String,
}

fn hashed(round: usize) -> Vec<HashedAccess> {
    (0..PUTS)
        .map(|n| HashedAccess {
            id: format!("{round}-{n}"),
            path: "/shared/hot.txt".into(),
            at: n as u64,
            user: "bench".into(),
        })
        .collect()
}

fn dynamic(round: usize) -> Vec<DynamicAccess> {
    hashed(round)
        .into_iter()
        .map(|access| DynamicAccess { id: access.id, path: access.path, at: access.at, user: access.user })
        .collect()
}

async fn put_all<E: Entity>(db: &Db, items: &[E]) {
    stream::iter(items)
        .map(|item| async move { db.put(item).await.expect("put") })
        .buffer_unordered(IN_FLIGHT)
        .collect::<()>()
        .await;
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    let connection = runtime
        .block_on(dynashard_local::connect_to(
            dynashard_local::Backend::from_env_or(dynashard_local::Backend::Local).expect("a backend"),
        ))
        .expect("DynamoDB Local");
    let shards = ShardMetadata::new("DynamicWriteBenchMetadata").cache_for(Duration::from_secs(3_600));
    let db = Db::new(connection.client().clone()).with_shard_metadata(shards);
    runtime.block_on(async {
        db.create_table::<Bench>().await.expect("create table");
        db.create_shard_metadata_table().await.expect("create metadata table");
        db.set_shard_count(&DynamicAccess::query_by_file_dynamic("/shared/hot.txt"), 8)
            .await
            .expect("8 shards");
        // Warm up both paths (and the cached count).
        put_all(&db, &hashed(0)).await;
        put_all(&db, &dynamic(0)).await;
    });

    let rounds = Cell::new(0);
    let next = || {
        rounds.set(rounds.get() + 1);
        rounds.get()
    };
    let candidate = || runtime.block_on(put_all(&db, &dynamic(next())));
    let baseline = || runtime.block_on(put_all(&db, &hashed(next())));
    let ratio = ratio::compare(ROUNDS, 1, candidate, baseline);
    ratio::report(
        &format!("{PUTS} puts, {IN_FLIGHT} in flight: dynamic count (cached) vs static hash shards"),
        &ratio,
        1.1,
    );
    drop(connection);
}
