//! How a worker of a backfill or cleanup runs: [`Backfill`].

use crate::metadata::{Budget, ReshardState};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// A random token naming one worker, or one freeze.
pub(super) fn token() -> String {
    format!("{:016x}", rand::random::<u64>())
}

/// Called with the recorded state after every scanned page.
type ProgressReport = Arc<dyn Fn(&ReshardState) + Send + Sync>;

/// How a worker of a backfill (or of the cleanup of
/// [`Db::finish_resharding`](crate::Db::finish_resharding)) runs. `Backfill::default()`: 8
/// scan segments, all of them worked on by this worker at once if no other holds them, 2 write
/// requests (of up to 25 items each) in flight per segment, conditional writes, 30 s leases, no
/// budget, no progress report.
///
/// Any number of workers may run the same backfill at once: each scan segment is leased to one
/// of them at a time (see [`Backfill::concurrency`]), a worker that stops is taken over when its
/// lease expires, and each returns once every segment is done.
#[derive(Clone)]
pub struct Backfill {
    pub(super) segments: u32,
    pub(super) concurrency: Option<usize>,
    pub(super) in_flight: usize,
    pub(super) batched: bool,
    pub(super) freeze_lease: Duration,
    pub(super) lease: Duration,
    pub(super) page_size: Option<u32>,
    pub(super) budget: Option<Budget>,
    pub(super) worker: Option<String>,
    pub(super) progress: Option<ProgressReport>,
    pub(super) stop_by: Option<SystemTime>,
    pub(super) scan_index: bool,
}

impl Default for Backfill {
    fn default() -> Self {
        Self {
            segments: 8,
            concurrency: None,
            in_flight: 2,
            batched: false,
            freeze_lease: Duration::from_secs(60),
            lease: Duration::from_secs(30),
            page_size: None,
            budget: None,
            worker: None,
            progress: None,
            stop_by: None,
            scan_index: false,
        }
    }
}

impl std::fmt::Debug for Backfill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Backfill")
            .field("segments", &self.segments)
            .field("concurrency", &self.concurrency)
            .field("in_flight", &self.in_flight)
            .field("batched", &self.batched)
            .field("freeze_lease", &self.freeze_lease)
            .field("lease", &self.lease)
            .field("page_size", &self.page_size)
            .field("budget", &self.budget)
            .field("worker", &self.worker)
            .field("progress", &self.progress.is_some())
            .field("stop_by", &self.stop_by)
            .field("scan_index", &self.scan_index)
            .finish()
    }
}

impl Backfill {
    /// Scans in `segments` parallel segments (1 to 10,000). Workers joining a scan under way keep
    /// its count.
    ///
    /// When the source's partitions are known without reading (its partition key template names
    /// no field, as in `pk = "albums"`, and it has hash shards), the scan reads each of them by
    /// Query instead, cut into about `segments` pieces in all (the same number a partition, at
    /// least one, split by sort key): it reads the entity's items in the source index and no
    /// other item, and a piece is the unit workers lease. See [`Backfill::scan_index`].
    pub fn segments(mut self, segments: u32) -> Self {
        self.segments = segments.clamp(1, 10_000);
        self
    }

    /// Works on at most `segments` segments at once in this worker (default: all it can lease).
    /// With more segments than one worker works on, other workers take the rest. A worker that
    /// holds all it may reads no segment's lease until one of its segments ends; then it reads
    /// a few more leases than it may take, twice as many at each read after while it finds none
    /// to take, never those of segments it has seen done (the leases it saw end are the
    /// progress it returns).
    pub fn concurrency(mut self, segments: usize) -> Self {
        self.concurrency = Some(segments.max(1));
        self
    }

    /// How long a segment's lease may go without a beat before another worker takes it over
    /// (default 30 s). A holder beats after every page and, while a page is under way, every
    /// third of the lease. Expiry only decides when a segment is taken over: every write is
    /// conditioned on the item as read, so a slow holder that lost its lease does no harm.
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(100));
        self
    }

    /// The capacity the scan's workers may consume together, in units per second, as DynamoDB
    /// reports it (`ConsumedCapacity`). Recorded with the scan, so it holds every worker, and
    /// a worker given another one changes it for all. Each segment being worked on (by any
    /// worker) gets an equal share; a worker waits between pages so that its segments spend no
    /// more than theirs. To count the segments being worked on, every worker reads the lease of
    /// every segment not done at every look (each poll, and whenever one of its segments ends).
    pub fn budget(mut self, budget: Budget) -> Self {
        self.budget = Some(budget);
        self
    }

    /// Names this worker in the leases it holds, for progress reports (default: a token of the
    /// process, under which a worker of the same process takes a stopped one's segments at
    /// once). Several workers may share a name; each still waits out the others' leases.
    pub fn worker(mut self, name: impl Into<String>) -> Self {
        self.worker = Some(name.into());
        self
    }

    /// Sends at most `requests` write requests (of up to 25 items each) at once in each segment.
    pub fn in_flight(mut self, requests: usize) -> Self {
        self.in_flight = requests.max(1);
        self
    }

    /// Writes whole items with `BatchWriteItem` instead of conditional updates, read from the
    /// table with strongly consistent scans, and for that **freezes existing items** of the
    /// entity until the backfill has finished: writers may
    /// create items (a put becomes create-only, a batch put a series of them), but a write that
    /// would change or delete an existing item fails with [`Error::Frozen`](crate::Error::Frozen). For append-only
    /// data (logs, events, readings) nothing changes for writers, and the backfill costs what a
    /// batch import of the same items costs. Writes that bypass dynashard and TTL deletions are
    /// not held back: an item they change during the backfill can lose that change, and an item
    /// time to live deletes between the scan and the rewrite comes back, still expired, until
    /// DynamoDB deletes it again (`.unexpired()` reads leave it out).
    ///
    /// A batched backfill that was interrupted keeps the items frozen until it is run again;
    /// running it again without `batched()` lifts the freeze and goes on with conditional writes,
    /// once the batched run has been silent for the [freeze lease](Backfill::freeze_lease). The
    /// cleanup of [`Db::finish_resharding`](crate::Db::finish_resharding) always writes conditionally.
    pub fn batched(mut self) -> Self {
        self.batched = true;
        self
    }

    /// How long batched workers must have been silent (they renew the freeze before every page
    /// they read) before a backfill without [`batched`](Backfill::batched) may lift the freeze
    /// and take over, as this process's own clock measures it: the first run that finds the
    /// freeze notes its last renewal and fails with [`Error::Resharding`](crate::Error::Resharding);
    /// a run once the lease has passed with no renewal since lifts it. A batched worker writes a
    /// page only within half the lease after renewing. Default: 60 s.
    pub fn freeze_lease(mut self, lease: Duration) -> Self {
        self.freeze_lease = lease;
        self
    }

    /// Reads at most `items` per scan page (default: DynamoDB's 1 MB pages). Progress is
    /// recorded after every page, so smaller pages lose less work when a backfill is killed.
    pub fn page_size(mut self, items: u32) -> Self {
        self.page_size = Some(items.max(1));
        self
    }

    /// Begins no segment and no page after `deadline` (say, a minute before an AWS Lambda
    /// invocation's own): the segments this worker holds are given up at their last recorded
    /// page, for the next worker or invocation to take at once, and the call returns the
    /// resharding as it stands, its phase not moved on (`state.phase` tells whether the scan
    /// finished; call again until it did). So a scan far longer than one invocation is shared
    /// out among invocations, each resuming where the last one stopped. A finish waits one
    /// metadata cache time in every call before its cleanup begins (writers that read the phase
    /// before it must have read it again): a deadline closer than that makes no progress.
    pub fn stop_by(mut self, deadline: SystemTime) -> Self {
        self.stop_by = Some(deadline);
        self
    }

    /// Reads the source index with a parallel Scan even when its partitions are known (see
    /// [`Backfill::segments`]). A Scan also finds items that writers outside dynashard put under
    /// partition keys the layout does not name, which no read of the mapping returns; it reads
    /// every item of the index, other entities' too.
    pub fn scan_index(mut self) -> Self {
        self.scan_index = true;
        self
    }

    /// How often a worker looks at the leases of a scan for segments to take.
    pub(super) fn poll(&self) -> Duration {
        (self.lease / 4).min(Duration::from_secs(2))
    }

    /// Whether the [deadline](Backfill::stop_by) has come.
    pub(super) fn past_deadline(&self) -> bool {
        self.stop_by.is_some_and(|deadline| SystemTime::now() >= deadline)
    }

    /// Calls `report` with the recorded state, segments filled in, after every page this worker
    /// scanned.
    pub fn on_progress(mut self, report: impl Fn(&ReshardState) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(report));
        self
    }
}
