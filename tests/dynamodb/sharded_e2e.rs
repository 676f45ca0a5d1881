//! Sharded indexes end to end, through `#[derive(Entity)]` and `#[shard(...)]`: 10,000 records
//! written with `batch_put` behind a hash-, a range- and a random-sharded copy of one title index,
//! read back whole, limited and page by page in both directions; requests in flight and request
//! counts; and sensor readings in hourly buckets across midnight.

#[path = "sharded_e2e_model.rs"]
pub(crate) mod model;

mod buckets;
mod costs;
mod counts;
mod data;
mod listings;
mod paging;
mod records;
