//! Dynamic shard counts: a count per logical partition key, kept in a metadata table and raised
//! when writes are throttled.
//!
//! `#[shard(INDEX, dynamic, max = 64)]` spreads an index's partition over a count of shards that
//! starts at 1 and grows with load:
//!
//! - **Writers** read the count (cached for [`ShardMetadata::cache_for`]) and write to a random
//!   shard in `0..count`. When a put is throttled because a partition of the index was over its
//!   limit (`IndexWriteKeyRangeThroughputExceeded` for that index, see
//!   [`crate::throttling`]), the writer waits a random back-off (up to
//!   [`ShardMetadata::backoff`]), reads the metadata again, and raises the count by one with a
//!   conditional update on its last-change time, unless another writer changed it first or the
//!   last change is more recent than [`ShardMetadata::cooldown`]. A crowd of throttled writers
//!   therefore raises the count once per cooldown. The put is then retried on the new shard
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

mod caps;
mod chooser;
pub(crate) mod growth;
pub(crate) mod metadata;
mod ops;
pub(crate) mod state;

pub(crate) use chooser::{Choice, DynamicTarget, Recorded};
pub use state::{HistoryEntry, ShardState};

use crate::shard::reshard::CachedReshard;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Where dynamic shard counts live and how they change. Give it to a `Db` with
/// [`crate::Db::with_shard_metadata`].
///
/// ```no_run
/// # async fn example(client: aws_sdk_dynamodb::Client) -> dynashard::Result<()> {
/// use dynashard::shard::ShardMetadata;
/// use std::time::Duration;
///
/// let shards = ShardMetadata::new("ShardMetadata").cooldown(Duration::from_secs(30));
/// let db = dynashard::Db::new(client).with_shard_metadata(shards);
/// db.create_shard_metadata_table().await?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct ShardMetadata {
    table: String,
    cache_for: Duration,
    cooldown: Duration,
    backoff: Duration,
    cache: Mutex<HashMap<String, Cached>>,
    reshards: Mutex<HashMap<String, CachedRecord>>,
    caps: caps::Caps,
}

/// A resharding record (`None`: none) and when it was read.
type CachedRecord = (Option<Arc<CachedReshard>>, Instant);

#[derive(Debug, Clone)]
struct Cached {
    state: ShardState,
    read_at: Instant,
}

impl ShardMetadata {
    /// Counts kept in the metadata table `table`; counts cached for 5 s, a 10 s cooldown between
    /// raises, a back-off of up to 1 s before one.
    pub fn new(table: impl Into<String>) -> Self {
        Self {
            table: table.into(),
            cache_for: Duration::from_secs(5),
            cooldown: Duration::from_secs(10),
            backoff: Duration::from_secs(1),
            cache: Mutex::default(),
            reshards: Mutex::default(),
            caps: caps::Caps::default(),
        }
    }

    /// How long a count read from the metadata table is used before it is read again.
    pub fn cache_for(mut self, duration: Duration) -> Self {
        self.cache_for = duration;
        self
    }

    /// The least time between two raises of one key's count.
    pub fn cooldown(mut self, duration: Duration) -> Self {
        self.cooldown = duration;
        self
    }

    /// The longest random wait of a throttled writer before it tries to raise the count.
    pub fn backoff(mut self, duration: Duration) -> Self {
        self.backoff = duration;
        self
    }

    /// Records the limits of whole tables and indexes that throttled a write with `error`.
    pub(crate) fn note_caps(&self, error: &crate::Error) {
        self.caps.note(error, Instant::now());
    }

    /// Whether `table`, or its index `index`, was at a write limit of its whole within the last
    /// cooldown: then a partition of it over its limit is not what caps the writes.
    pub(crate) fn capped(&self, table: &str, index: &str) -> bool {
        self.caps.capped(table, index, self.cooldown, Instant::now())
    }

    /// The metadata table's name.
    pub fn table(&self) -> &str {
        &self.table
    }

    /// The metadata key of `partition` in `index` of `table`.
    pub(crate) fn key(table: &str, index: &str, partition: &str) -> String {
        format!("{table}/{index}/{partition}")
    }

    /// The cached state of `key`, however old.
    pub(crate) fn cached(&self, key: &str) -> Option<ShardState> {
        self.lock().get(key).map(|cached| cached.state.clone())
    }

    /// The cached state of `key` if it is younger than the cache duration.
    fn fresh(&self, key: &str) -> Option<ShardState> {
        let cache = self.lock();
        let cached = cache.get(key)?;
        (cached.read_at.elapsed() < self.cache_for).then(|| cached.state.clone())
    }

    /// Caches `state` for `key`, as read (or written) by a request sent at `sent`. Like a
    /// resharding record, a count is as old as the request that returned it, and an answer to
    /// a request sent before the cached one's does not replace it: a late answer never undoes a
    /// raise or a set made meanwhile.
    fn remember(&self, key: &str, state: &ShardState, sent: Instant) {
        let mut cache = self.lock();
        if cache.get(key).is_some_and(|cached| cached.read_at > sent) {
            return;
        }
        cache.insert(key.to_owned(), Cached { state: state.clone(), read_at: sent });
    }

    /// Caches the resharding record under `key` (`None`: there is none), as read by a request
    /// sent at `read_at`. The record counts as read when the request was sent, not when its
    /// answer came: a process waiting one cache time after changing a record then knows that no
    /// one acts on the record from before the change. A read sent before the cached one does
    /// not replace it.
    pub(crate) fn remember_reshard(&self, key: &str, state: Option<Arc<CachedReshard>>, read_at: Instant) {
        let mut reshards = self.reshards.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match reshards.get(key) {
            Some((_, cached_at)) if *cached_at > read_at => {}
            _ => {
                reshards.insert(key.to_owned(), (state, read_at));
            }
        }
    }

    /// The cached resharding record under `key`, if cached within the cache time.
    pub(crate) fn fresh_reshard(&self, key: &str) -> Option<Option<Arc<CachedReshard>>> {
        let reshards = self.reshards.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let (state, read_at) = reshards.get(key)?;
        (read_at.elapsed() < self.cache_for).then(|| state.clone())
    }

    /// The cached resharding record under `key`, however old; `None` when never read.
    pub(crate) fn cached_reshard(&self, key: &str) -> Option<Option<Arc<CachedReshard>>> {
        let reshards = self.reshards.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        reshards.get(key).map(|(state, _)| state.clone())
    }

    /// How long processes may act on a cached record before they re-read it.
    pub(crate) fn cache_time(&self) -> Duration {
        self.cache_for
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Cached>> {
        // A panic while holding the lock leaves a usable map: entries are replaced whole.
        self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shard::reshard::{NewLayout, Phase, ReshardState};

    fn record(frozen: bool) -> Option<Arc<CachedReshard>> {
        Some(CachedReshard::unchecked(ReshardState {
            source: "ByTitle".into(),
            target: "ByTitleNext".into(),
            layout: NewLayout::hash(32),
            phase: Phase::DualWrites,
            started: 0,
            segments: Default::default(),
            frozen,
            frozen_seen: 0,
            scan_table: false,
        }))
    }

    fn frozen(shards: &ShardMetadata) -> Option<bool> {
        Some(shards.cached_reshard("k")??.state.frozen)
    }

    #[test]
    fn a_record_is_as_old_as_the_request_that_read_it() {
        let shards = ShardMetadata::new("Meta").cache_for(Duration::from_secs(60));
        let long_ago = Instant::now() - Duration::from_secs(61);
        shards.remember_reshard("k", record(false), long_ago);
        assert!(shards.fresh_reshard("k").is_none(), "sent a cache time ago: stale, however late it came");
        let sent = Instant::now();
        shards.remember_reshard("k", record(true), sent);
        assert!(shards.fresh_reshard("k").is_some());
        shards.remember_reshard("k", record(false), sent - Duration::from_millis(1));
        assert_eq!(frozen(&shards), Some(true), "an answer to an earlier request does not replace it");
        shards.remember_reshard("k", record(false), Instant::now());
        assert_eq!(frozen(&shards), Some(false), "a later one does");
    }

    #[test]
    fn a_count_is_as_old_as_the_request_that_read_it() {
        let shards = ShardMetadata::new("Meta").cache_for(Duration::from_secs(60));
        shards.remember("k", &ShardState::first(100), Instant::now() - Duration::from_secs(61));
        assert!(shards.fresh("k").is_none(), "sent a cache time ago: stale, however late it came");
        let mut raised = ShardState::first(100);
        raised.count = 2;
        let sent = Instant::now();
        shards.remember("k", &raised, sent);
        shards.remember("k", &ShardState::first(100), sent - Duration::from_millis(1));
        assert_eq!(
            shards.fresh("k").map(|state| state.count),
            Some(2),
            "an earlier request's answer is dropped"
        );
        shards.remember("k", &ShardState::first(100), Instant::now());
        assert_eq!(
            shards.fresh("k").map(|state| state.count),
            Some(1),
            "a later one replaces it, lower or not"
        );
    }
}
