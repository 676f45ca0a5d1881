//! Sharded pages at the read-capacity floor, against DynamoDB Local: what a merged page costs
//! next to an unsharded one (hash and random shards), pages that never go back while writers
//! insert, minute buckets read bucket after bucket, and a stream's cursor.

#[path = "sharded_floor_model.rs"]
mod model;

mod buckets;
mod costs;
mod directory;
mod writers;
