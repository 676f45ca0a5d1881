//! Integration tests against a real DynamoDB the suite starts by itself: the embedded one, or
//! DynamoDB Local with `DYNASHARD_BACKEND=local` (or `AWS_ENDPOINT_URL_DYNAMODB`, when set).

mod arithmetic;
mod batch;
mod batched_backfill;
mod catch_up_lease;
mod change_feed;
mod change_feed_holders;
mod changes;
mod collections;
mod conditions;
mod crud;
mod dynamic_shards;
mod edges;
mod emulator;
mod indexes;
mod key_safety;
mod lambda;
mod limits;
mod local_indexes;
mod merged;
mod migrate_add_mapping;
mod model;
mod narrow_index;
mod native_indexes;
mod numbers;
mod pagination;
mod projections;
mod queries;
mod requests;
mod resharding;
mod resharding_catch_up;
mod resharding_cursors;
mod resharding_pieces;
mod resharding_verify;
mod resharding_workers;
mod resharding_writes;
mod runtime_boundaries;
mod scan;
mod sharded_album;
mod sharded_e2e;
mod sharded_floor;
mod sharded_pruning;
mod sharded_reads;
mod sharded_table;
mod sharded_writes;
mod shop_model;
mod stream_lineage;
mod tables;
mod throttles;
mod time_windows;
mod timeouts;
mod timestamps;
mod transact_get;
mod transactions;
mod ttl;
mod two_way_pages;
mod tx_model;
mod undecodable;
mod unknown_outcomes;
mod updates;
mod versioning;

use dynashard::Db;

/// A DynamoDB of one test's own (the backend `DYNASHARD_BACKEND` chooses, or the endpoint of
/// `AWS_ENDPOINT_URL_DYNAMODB` when set), for the tests that write streamed tables while reading
/// their streams: DynamoDB Local serves every request of an instance from one SQLite thread, and
/// its stream bookkeeping grows costlier with the traffic of every streamed table it has served,
/// so that such tests sharing an instance slow each other (and everything else) many times over;
/// and for the tests that expire items. Stopped when dropped.
pub struct Own {
    connection: dynashard_local::Connection,
}

impl Own {
    /// A `Db` on this instance, its streams read there too.
    pub fn db(&self) -> Db {
        self.connection.db()
    }

    /// The endpoint, for clients of another kind.
    pub fn endpoint(&self) -> &str {
        self.connection.url()
    }

    /// The connection, to sweep expired items.
    pub fn connection(&self) -> &dynashard_local::Connection {
        &self.connection
    }
}

/// Starts a DynamoDB for the calling test alone (see [`Own`]).
pub async fn own() -> Own {
    Own { connection: dynashard_local::connect().await.expect("a DynamoDB starts") }
}

/// A `Db` on the shared DynamoDB with the test tables created.
pub async fn db() -> Db {
    let db = dynashard_local::shared_db().await.expect("the shared DynamoDB starts");
    db.create_table::<model::Music>().await.expect("create Music");
    db.create_table::<model::Counters>().await.expect("create Counters");
    db.create_table::<shop_model::Shop>().await.expect("create Shop");
    db
}

/// Whether the suite runs on a backend with `behaviour`, which only DynamoDB Local (or an endpoint
/// you point the suite at) has: a check of it runs there, and says it was left out elsewhere. CI
/// runs the suite on both backends.
pub fn backend_has(behaviour: &str) -> bool {
    let embedded = matches!(dynashard_local::Backend::from_env(), Ok(dynashard_local::Backend::Embedded));
    if embedded {
        eprintln!("left out on the embedded backend (it needs DynamoDB Local): {behaviour}");
    }
    !embedded
}

/// A name unique to one test, so tests sharing a table never see each other's items.
pub fn unique(prefix: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!("{prefix}-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}
