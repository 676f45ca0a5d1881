//! What a query run cost: requests sent, capacity consumed, items read (and those that did not
//! decode).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A live view of what a query or a scan has cost so far, shared with the running stream.
///
/// Cheap to clone: every clone reads the same counters, which the stream updates as its requests
/// are sent and answered. Handed out by [`QueryStream::stats`](super::QueryStream::stats),
/// [`ScanStream::stats`](crate::ScanStream::stats) and with every [`Page`](super::Page).
///
/// ```no_run
/// # use dynashard::{Db, Entity, Table};
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Table)] #[table(name = "Music", pk = "pk", sk = "sk")] struct Music;
/// # #[derive(Entity, Serialize, Deserialize)]
/// # #[entity(table = Music, pk = "{artist}", sk = "song#{title}")]
/// # struct Song { artist: String, title: String }
/// # async fn example(db: Db) -> dynashard::Result<()> {
/// use futures::TryStreamExt;
/// let songs = db.stream(Song::query("Solar Fields"));
/// let stats = songs.stats().clone(); // keeps counting after the stream is consumed
/// let songs: Vec<Song> = songs.try_collect().await?;
/// println!("{} songs, {} requests, {} RCU", songs.len(), stats.requests(), stats.capacity_units());
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct QueryStats(Arc<Counters>);

#[derive(Debug)]
struct Counters {
    requests: AtomicUsize,
    /// The bits of an `f64`: capacity units come in halves and smaller fractions.
    capacity_bits: AtomicU64,
    items_read: AtomicUsize,
    /// `BatchGetItem` requests of a hydrated query.
    hydration_requests: AtomicUsize,
    /// Query requests to a time window's bucket directory.
    directory_requests: AtomicUsize,
    /// Items read that did not decode.
    undecodable: AtomicUsize,
    /// Requests per shard; grows when a query's shards are known only once it runs (dynamic
    /// counts, a resharding's cut-over).
    per_shard: Mutex<Vec<usize>>,
}

/// The counters of a [`QueryStats`] (or of one [`crate::Page`]) at one moment.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StatsSnapshot {
    /// Query (or Scan) requests sent to DynamoDB.
    pub requests: usize,
    /// Read capacity units DynamoDB reported as consumed.
    pub capacity_units: f64,
    /// Items DynamoDB returned, before client-side exclusion and type checks.
    pub items_read: usize,
    /// `BatchGetItem` requests a [hydrated](super::Query::hydrate) query sent for the full
    /// items (their capacity is in `capacity_units`).
    pub hydration_requests: usize,
    /// Query requests of a time window to its bucket directory (also counted in `requests`,
    /// not under a shard).
    pub directory_requests: usize,
    /// Items read that did not decode as the type asked for, each reported as
    /// [`Error::Undecodable`](crate::Error::Undecodable) and gone past.
    pub undecodable: usize,
    /// Requests per shard, in shard order (one entry for an unsharded query; one per segment
    /// for a scan).
    pub per_shard_requests: Vec<usize>,
}

impl QueryStats {
    /// Counters for a query over `shards` partitions (at least one).
    pub(crate) fn new(shards: usize) -> Self {
        QueryStats(Arc::new(Counters {
            requests: AtomicUsize::new(0),
            capacity_bits: AtomicU64::new(0f64.to_bits()),
            items_read: AtomicUsize::new(0),
            hydration_requests: AtomicUsize::new(0),
            directory_requests: AtomicUsize::new(0),
            undecodable: AtomicUsize::new(0),
            per_shard: Mutex::new(vec![0; shards.max(1)]),
        }))
    }

    fn per_shard(&self) -> std::sync::MutexGuard<'_, Vec<usize>> {
        // Counters stay usable after a panic elsewhere: every update is a single addition.
        self.0.per_shard.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Counts `shards` shards from now on, once a query's shards are resolved (before its first
    /// request).
    pub(crate) fn set_shards(&self, shards: usize) {
        self.per_shard().resize(shards.max(1), 0);
    }

    /// Counts a request to `shard`, when it is sent.
    pub(crate) fn record_request(&self, shard: usize) {
        self.0.requests.fetch_add(1, Ordering::Relaxed);
        let mut per_shard = self.per_shard();
        if per_shard.len() <= shard {
            per_shard.resize(shard + 1, 0);
        }
        per_shard[shard] += 1;
    }

    /// Counts the answer to a request: the items it returned and the capacity it consumed.
    pub(crate) fn record_response(&self, items: usize, capacity_units: f64) {
        self.0.items_read.fetch_add(items, Ordering::Relaxed);
        if capacity_units != 0.0 {
            let add = |bits: u64| Some((f64::from_bits(bits) + capacity_units).to_bits());
            // `fetch_update` only fails when the closure returns `None`, which `add` never does.
            let _ = self.0.capacity_bits.fetch_update(Ordering::Relaxed, Ordering::Relaxed, add);
        }
    }

    /// Counts a `BatchGetItem` request of a hydrated query, and the capacity it consumed.
    pub(crate) fn record_hydration(&self, capacity_units: f64) {
        self.0.hydration_requests.fetch_add(1, Ordering::Relaxed);
        self.record_response(0, capacity_units);
    }

    /// Counts a request to a bucket directory, when it is sent.
    pub(crate) fn record_directory_request(&self) {
        self.0.requests.fetch_add(1, Ordering::Relaxed);
        self.0.directory_requests.fetch_add(1, Ordering::Relaxed);
    }

    /// Requests sent so far to a time window's bucket directory (also counted in
    /// [`requests`](Self::requests)).
    pub fn directory_requests(&self) -> usize {
        self.0.directory_requests.load(Ordering::Relaxed)
    }

    /// Counts an item read that did not decode.
    pub(crate) fn record_undecodable(&self) {
        self.0.undecodable.fetch_add(1, Ordering::Relaxed);
    }

    /// Items read so far that did not decode as the type asked for (each reported as
    /// [`Error::Undecodable`](crate::Error::Undecodable) and gone past).
    pub fn undecodable(&self) -> usize {
        self.0.undecodable.load(Ordering::Relaxed)
    }

    /// `BatchGetItem` requests a hydrated query has sent so far.
    pub fn hydration_requests(&self) -> usize {
        self.0.hydration_requests.load(Ordering::Relaxed)
    }

    /// Query requests sent so far.
    pub fn requests(&self) -> usize {
        self.0.requests.load(Ordering::Relaxed)
    }

    /// Read capacity units consumed so far, as DynamoDB reported them (hydration's included).
    pub fn capacity_units(&self) -> f64 {
        f64::from_bits(self.0.capacity_bits.load(Ordering::Relaxed))
    }

    /// Items DynamoDB returned so far, before client-side exclusion and type checks.
    pub fn items_read(&self) -> usize {
        self.0.items_read.load(Ordering::Relaxed)
    }

    /// Requests sent so far to each shard, in shard order (one entry for an unsharded query).
    pub fn per_shard_requests(&self) -> Vec<usize> {
        self.per_shard().clone()
    }

    /// All counters at once.
    pub fn snapshot(&self) -> StatsSnapshot {
        StatsSnapshot {
            requests: self.requests(),
            capacity_units: self.capacity_units(),
            items_read: self.items_read(),
            hydration_requests: self.hydration_requests(),
            directory_requests: self.directory_requests(),
            undecodable: self.undecodable(),
            per_shard_requests: self.per_shard_requests(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_requests_per_shard_and_sums_capacity() {
        let stats = QueryStats::new(3);
        let view = stats.clone();
        stats.record_request(0);
        stats.record_request(2);
        stats.record_request(2);
        stats.record_request(7);
        stats.record_response(10, 0.5);
        stats.record_response(3, 1.5);
        assert_eq!(view.requests(), 4);
        assert_eq!(view.per_shard_requests(), [1, 0, 2, 0, 0, 0, 0, 1], "a shard found later is counted");
        assert_eq!(view.capacity_units(), 2.0);
        assert_eq!(view.items_read(), 13);
        let resolved = QueryStats::new(21);
        resolved.set_shards(32);
        assert_eq!(resolved.per_shard_requests().len(), 32, "a query resolved to more shards");
        resolved.set_shards(8);
        assert_eq!(resolved.per_shard_requests(), [0; 8], "or to fewer");
        assert_eq!(QueryStats::new(0).per_shard_requests(), [0]);
    }
}
