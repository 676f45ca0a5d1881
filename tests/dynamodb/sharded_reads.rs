//! Sharded reads against DynamoDB Local: range shards read in order, hash shards merged, with
//! limits, sort-key ranges, pages, cursors, a concurrency cap and request counts.
//!
//! The queries are built by hand from a one-partition query and a shard layout, over items whose
//! partition key is overridden to `<bucket>#<shard>`.

mod costs;
mod counts;
mod fixture;
mod listings;
mod paging;
mod shard_model;
