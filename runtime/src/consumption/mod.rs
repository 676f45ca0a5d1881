//! What a [`Db`](crate::Db) consumed: running totals of read and write units per table or
//! index and entity type ([`Db::consumed`](crate::Db::consumed)), and the partition keys it
//! consumed the most on and was throttled on the most over a sliding window
//! ([`Db::hot_keys`](crate::Db::hot_keys)).
//!
//! Every get, query request (each shard of a merge on its own), put, update and delete asks
//! DynamoDB for the units it consumed, per index for writes, and counts them here.

mod batch;
mod count;
mod hot_keys;
mod scope;
mod totals;

pub use hot_keys::{HotKey, HotKeyTracking, HotKeys, KeyPlace};

pub(crate) use hot_keys::Tracker;
pub use scope::{Measure, Measured, Measuring};
pub use totals::Consumed;

pub(crate) use scope::{carry, retried, Scope};

pub(crate) use batch::{count_actions, Action, BatchItem, BatchItems};
pub(crate) use count::{count_read, count_write, index_keys, refused_write, Meter};
pub(crate) use totals::Kind;
