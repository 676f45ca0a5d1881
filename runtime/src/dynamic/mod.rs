//! Dynamic shard counts: a count per logical partition key, kept in a metadata table and raised
//! when writes are throttled.
//!
//! `#[shard(INDEX(dynamic, max = 64))]` spreads an index's partition over a count of shards that
//! starts at 1 and grows with load:
//!
//! - **Writers** read the count (cached for [`ShardMetadata::cache_for`]) and write to a random
//!   shard in `0..count`. When a put is throttled because a partition of the index was over its
//!   limit (`IndexWriteKeyRangeThroughputExceeded` for that index, see
//!   [`crate::throttling`]), the writer waits a random back-off (up to
//!   [`ShardMetadata::backoff`]), reads the metadata again, and raises the count with a
//!   conditional update on its last-change time, unless another writer changed it first or the
//!   last change is more recent than [`ShardMetadata::cooldown`]: it doubles (to the maximum at
//!   most) when the last change was within two cooldowns (the throttling went on), and adds one
//!   otherwise. A crowd of throttled writers therefore changes the count once per cooldown. The put is then retried on the new shard
//!   space.
//! - **Limits more shards cannot lift** (the table's or index's provisioned capacity, an
//!   on-demand maximum, the account's quota, or the base table's own key range) get the retry
//!   policy's back-off and a `tracing` warning naming the limit, and never a raise. Nor does a
//!   partition over its limit while its table or index was at such a limit within the last
//!   cooldown: the whole would refuse more writes however many shards there were. An endpoint
//!   that gives no throttling reasons (DynamoDB Local without the partition-limit emulator, or
//!   an older one) cannot tell them apart: there, any throttling raises the counts the write
//!   touched.
//! - **Readers** read every shard that may hold items: up to the largest count the history
//!   records, so lowering the count (see [`crate::Db::set_shard_count`]) retires shards for
//!   writes only.
//! - Every change is a `tracing` event (target `dynashard::shards`), and the history holds
//!   `"<unix ms>:<count>"` for each.

mod chooser;
pub(crate) mod growth;
mod ops;

pub(crate) use chooser::{Choice, DynamicTarget, Recorded};
pub(crate) use ops::{create_metadata_table_of, Counts};
