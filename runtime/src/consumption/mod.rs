//! What a [`Db`](crate::Db) consumed: running totals of read and write units per table or
//! index and entity type ([`Db::consumed`](crate::Db::consumed)), and the partition keys it
//! consumed the most on and was throttled on the most over a sliding window
//! ([`Db::hot_keys`](crate::Db::hot_keys)).
//!
//! Every operation asks DynamoDB for the units it consumed, per index for writes, and counts
//! them here: gets, puts, updates, deletes, each request of a query, a scan or a count, batches
//! (their units shared among their items by what each costs alone), transactions and the
//! requests of a resharding's steps. What one piece of work consumed is [`Measure::measured`].

mod batch;
mod count;
mod hot_keys;
mod routing;
mod scope;
mod throttles;
mod totals;

pub use hot_keys::{HotKey, HotKeyTracking, HotKeys, KeyPlace};

pub(crate) use hot_keys::{KeyHistory, Tracker};
pub use scope::{Measure, Measured, Measuring};
pub use totals::Consumed;

pub(crate) use scope::{carry, retried, Scope};
pub(crate) use throttles::{watched, CountThrottles};

pub(crate) use batch::{count_actions, Action, BatchItem, BatchItems};
pub(crate) use count::{count_read, count_units, count_write, item_keys, refused_write, Meter};
pub(crate) use routing::EntityType;
pub(crate) use totals::Kind;
