//! The shard metadata a table's writers share, all kept in one metadata table, and what every
//! `Db` keeps of it:
//!
//! - `table.rs`: the metadata table's shape and I/O (conditional puts, reads, deletes, retries),
//!   and the items of dynamic shard counts;
//! - `counts.rs`: a dynamic count's state and history;
//! - `reshard_state.rs` and `reshard_records.rs`: resharding records (phase, scan, freeze,
//!   verification) and their I/O;
//! - `lease.rs`: leases on work items (stream shards, scan segments), with owners, fences, beats
//!   and checkpoints;
//! - `fences.rs`: the counter a family of leases takes its fences from;
//! - `cache.rs`: the one cache of what was read, each entry as old as its request;
//! - `store.rs`: the client and retry policy the I/O goes through (nothing of `Db`);
//! - `registry.rs`: which metadata a `Db` keeps for each table;
//! - `placement.rs`: what a cached resharding record implies for an item (its new place);
//! - `caps.rs`: the table-wide write limits seen, which no raise of a count can lift.

mod cache;
mod caps;
mod counts;
pub(crate) mod fences;
pub(crate) mod items;
pub(crate) mod lease;
mod placement;
pub(crate) mod registry;
pub(crate) mod reshard_records;
mod reshard_state;
pub(crate) mod store;
pub(crate) mod table;

pub(crate) use counts::now_ms;
pub use counts::{HistoryEntry, ShardState};
pub use placement::Placement;
pub(crate) use placement::{mappings, refuse, reshard_key, string_keys, CachedReshard, Change, Checked};
pub use reshard_state::{
    Budget, Capacity, MigrationKind, Phase, ReshardState, ScanKind, ScanPlan, SegmentProgress, Verified,
};

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Where dynamic shard counts live and how they change. Give it to a `Db` with
/// [`crate::Db::with_shard_metadata`].
///
/// ```no_run
/// # async fn example(client: aws_sdk_dynamodb::Client) -> dynashard::Result<()> {
/// use dynashard::metadata::ShardMetadata;
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
    pub(crate) cooldown: Duration,
    pub(crate) backoff: Duration,
    pub(crate) catch_up_lease: Duration,
    /// Dynamic shard counts, by metadata key.
    counts: cache::Cache<ShardState>,
    /// Resharding records (`None`: none), by metadata key.
    reshards: cache::Cache<Option<Arc<CachedReshard>>>,
    caps: caps::Caps,
    /// What this process saw of the leases other processes hold, by lease key.
    watched: Mutex<HashMap<String, lease::Watched>>,
    /// The name this process's workers hold leases under, unless told another.
    worker: String,
    /// The leases this process is working under now.
    working: Arc<Mutex<std::collections::HashSet<String>>>,
}

impl ShardMetadata {
    /// Counts kept in the metadata table `table`; counts cached for 2 s, a 2 s cooldown between
    /// raises (a raise waits for the longer of the two, so that every writer has read the count
    /// before it is judged), a back-off of up to 250 ms before one; a catch-up's shard leases of
    /// 30 s.
    pub fn new(table: impl Into<String>) -> Self {
        Self {
            table: table.into(),
            cache_for: Duration::from_secs(2),
            cooldown: Duration::from_secs(2),
            backoff: Duration::from_millis(250),
            catch_up_lease: Duration::from_secs(30),
            counts: cache::Cache::default(),
            reshards: cache::Cache::default(),
            caps: caps::Caps::default(),
            watched: Mutex::default(),
            worker: format!("{:016x}", rand::random::<u64>()),
            working: Arc::default(),
        }
    }

    /// The least time between two raises of a count: the cooldown, or the cache time if longer
    /// (until every writer has read the last change).
    pub(crate) fn raise_interval(&self) -> Duration {
        self.cooldown.max(self.cache_for)
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

    /// How long a catch-up's lease on a stream shard may go without a beat before another
    /// process takes the shard over (default 30 s; see
    /// [`ChangeFeed::lease`](crate::changes::ChangeFeed::lease)). A holder beats every third of
    /// it while a page is under way and a beat that takes longer fails: make it several times
    /// the longest a request to the metadata table takes when the table is busiest, or passes
    /// give their shards up (none of their beats landed for the lease) and others read them again.
    ///
    /// ```
    /// use dynashard::metadata::ShardMetadata;
    /// use std::time::Duration;
    ///
    /// let shards = ShardMetadata::new("ShardMetadata").catch_up_lease(Duration::from_secs(120));
    /// ```
    pub fn catch_up_lease(mut self, lease: Duration) -> Self {
        self.catch_up_lease = lease;
        self
    }

    /// Records the limits of whole tables and indexes among the reasons a write was throttled.
    pub(crate) fn note_caps(&self, reasons: &[crate::throttling::ThrottlingReason]) {
        self.caps.note(reasons, Instant::now());
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

    /// The cached count of `key`, however old.
    pub(crate) fn cached(&self, key: &str) -> Option<ShardState> {
        self.counts.any(key)
    }

    /// Drops `key`'s cached count.
    pub(crate) fn forget(&self, key: &str) {
        self.counts.forget(key);
    }

    /// The cached count of `key` if it is younger than the cache duration.
    pub(crate) fn fresh(&self, key: &str) -> Option<ShardState> {
        self.counts.fresh(key, self.cache_for)
    }

    /// Caches `state` for `key`, as read (or written) by a request sent at `sent` (see
    /// [`cache::Cache`]): a late answer never undoes a raise or a set made meanwhile.
    pub(crate) fn remember(&self, key: &str, state: &ShardState, sent: Instant) {
        self.counts.remember(key, state.clone(), sent);
    }

    /// Caches the resharding record under `key` (`None`: there is none), as read by a request
    /// sent at `read_at` (see [`cache::Cache`]).
    pub(crate) fn remember_reshard(&self, key: &str, state: Option<Arc<CachedReshard>>, read_at: Instant) {
        self.reshards.remember(key, state, read_at);
    }

    /// The cached resharding record under `key`, if cached within the cache time.
    pub(crate) fn fresh_reshard(&self, key: &str) -> Option<Option<Arc<CachedReshard>>> {
        self.reshards.fresh(key, self.cache_for)
    }

    /// The cached resharding record under `key`, however old; `None` when never read.
    pub(crate) fn cached_reshard(&self, key: &str) -> Option<Option<Arc<CachedReshard>>> {
        self.reshards.any(key)
    }

    /// Whether the lease under `key`, held by another process as `seen` (`None`: no item), has
    /// gone without a beat for `lease`, by what this process watched of it (see
    /// [`lease::expired`]).
    pub(crate) fn lease_expired(
        &self,
        key: &str,
        seen: Option<&lease::LeaseRecord>,
        lease: Duration,
    ) -> bool {
        let Some(seen) = seen else { return true };
        let mut watched = self.watched.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut entry = watched.get(key).copied();
        let expired = lease::expired(&mut entry, seen, lease, Instant::now());
        if let Some(entry) = entry {
            watched.insert(key.to_owned(), entry);
        }
        expired
    }

    /// The name this process's workers hold leases under, unless told another: a lease left
    /// under it by a worker that stopped (dropped, or failed) is taken again at once.
    pub(crate) fn worker(&self) -> &str {
        &self.worker
    }

    /// Marks the lease under `key` as worked on in this process until the guard is dropped;
    /// `None` when it already is.
    pub(crate) fn work_on(&self, key: &str) -> Option<lease::Working> {
        lease::Working::new(&self.working, key)
    }

    /// Whether the lease under `key` is worked on in this process now.
    pub(crate) fn working_on(&self, key: &str) -> bool {
        self.working.lock().unwrap_or_else(std::sync::PoisonError::into_inner).contains(key)
    }

    /// How long processes may act on a cached record before they re-read it.
    pub(crate) fn cache_time(&self) -> Duration {
        self.cache_for
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use super::{Phase, ReshardState};
    use crate::shard::Layout;

    fn record(frozen: bool) -> Option<Arc<CachedReshard>> {
        Some(CachedReshard::unchecked(ReshardState {
            kind: Default::default(),
            source: "ByTitle".into(),
            target: "ByTitleNext".into(),
            layout: Layout::hash(32),
            phase: Phase::DualWrites,
            started: 0,
            segments: Default::default(),
            frozen,
            frozen_seen: 0,
            scan: None,
            verified: None,
            caught_up: 0,
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
