//! The guide: how to use dynashard, chapter by chapter, with every example compiled as a doc
//! test. Start with [`quickstart`].

/// A first program: a table, two entities, every single-item operation, a lock conflict.
///
#[doc = include_str!(concat!(env!("OUT_DIR"), "/guide/quickstart.md"))]
pub mod quickstart {}

/// Running against AWS: clients, table names, timeouts, provisioning.
///
#[doc = include_str!(concat!(env!("OUT_DIR"), "/guide/aws.md"))]
pub mod aws {}

/// `#[derive(Table)]`: a table, its keys and indexes.
///
#[doc = include_str!(concat!(env!("OUT_DIR"), "/guide/tables.md"))]
pub mod tables {}

/// `#[derive(Entity)]`: an entity type, its key templates and what is generated.
///
#[doc = include_str!(concat!(env!("OUT_DIR"), "/guide/entities.md"))]
pub mod entities {}

/// How key values are encoded so that keys are injective and prefix-safe, and checked before sending.
///
#[doc = include_str!(concat!(env!("OUT_DIR"), "/guide/keys.md"))]
pub mod keys {}

/// Puts, gets, updates, deletes, batches, transactions, scans and conditions.
///
#[doc = include_str!(concat!(env!("OUT_DIR"), "/guide/operations.md"))]
pub mod operations {}

/// Global secondary indexes: key templates, sparse indexes, multi-attribute keys.
///
#[doc = include_str!(concat!(env!("OUT_DIR"), "/guide/indexes.md"))]
pub mod indexes {}

/// Typed queries along the sort-key template, streams, pages and cursors.
///
#[doc = include_str!(concat!(env!("OUT_DIR"), "/guide/queries.md"))]
pub mod queries {}

/// Indexes that hold some attributes: hydration and typed views, checked at compile time.
///
#[doc = include_str!(concat!(env!("OUT_DIR"), "/guide/projections.md"))]
pub mod projections {}

/// Declared write sharding: hash, random, range and time-bucket shards, read back in order.
///
#[doc = include_str!(concat!(env!("OUT_DIR"), "/guide/sharding.md"))]
pub mod sharding {}

/// Shard counts that grow under throttling.
///
#[doc = include_str!(concat!(env!("OUT_DIR"), "/guide/dynamic_counts.md"))]
pub mod dynamic_counts {}

/// Changing an index's layout while writers run.
///
#[doc = include_str!(concat!(env!("OUT_DIR"), "/guide/resharding.md"))]
pub mod resharding {}

/// Migrations: changing a live design (a mapping added to items that exist, a layout moved)
/// while writers and readers go on.
///
#[doc = include_str!(concat!(env!("OUT_DIR"), "/guide/migrations.md"))]
pub mod migrations {}

/// Several entity types read with one query: `#[derive(Collection)]`.
///
#[doc = include_str!(concat!(env!("OUT_DIR"), "/guide/collections.md"))]
pub mod collections {}

/// A table's stream read as typed changes: `dynashard::changes`.
///
#[doc = include_str!(concat!(env!("OUT_DIR"), "/guide/change_feeds.md"))]
pub mod change_feeds {}

/// A table's stream handled by AWS Lambda: batches in order, partial failures, positions.
///
#[doc = include_str!(concat!(env!("OUT_DIR"), "/guide/lambda.md"))]
pub mod lambda {}

/// DynamoDB's per-partition limits, emulated over DynamoDB Local.
///
#[doc = include_str!(concat!(env!("OUT_DIR"), "/guide/partition_limits.md"))]
pub mod partition_limits {}

/// What a `Db` consumed, in all and by partition key: totals and hot keys.
///
#[doc = include_str!(concat!(env!("OUT_DIR"), "/guide/consumption.md"))]
pub mod consumption {}

/// The DynamoDB your tests and the examples run against: embedded, DynamoDB Local, or an endpoint.
///
#[doc = include_str!(concat!(env!("OUT_DIR"), "/guide/backends.md"))]
pub mod backends {}

/// Injecting throttling, unprocessed items and server errors into your own tests.
///
#[doc = include_str!(concat!(env!("OUT_DIR"), "/guide/faults.md"))]
pub mod faults {}

/// What can go wrong, as typed errors.
///
#[doc = include_str!(concat!(env!("OUT_DIR"), "/guide/errors.md"))]
pub mod errors {}
