//! A partition-limit emulator for DynamoDB Local.
//!
//! DynamoDB serves each partition key value at about 1,000 write units and 3,000 read units per
//! second; DynamoDB Local has no partitions and never throttles, so nothing run against it shows
//! a hot key's ceiling, or sharding lifting it. The emulator is an HTTP proxy in front of
//! DynamoDB Local (or another `http://` endpoint that does not check request signatures: the
//! emulator rewrites batch requests and reads with the caller's credentials) that any client can
//! use:
//!
//! - it **meters** what DynamoDB meters: write units per item written (one per started KB, the
//!   larger of the item before and after), again for every global secondary index the write
//!   changes, on the index's own partition; read units per started 4 KB (per item for gets, per
//!   request for queries and scans), half when eventually consistent; transactions twice;
//! - it **enforces** [`PartitionLimits`]: a read and a write limit per partition key value of the
//!   table and of each index (a token bucket with a short burst), scalable down so that a small
//!   machine reaches them, and optional limits of whole tables and indexes ([`TableLimit`]:
//!   provisioned capacity, on-demand maximum, account quota);
//! - it **fails** a request over a limit as DynamoDB does, and sends nothing on: HTTP 400
//!   `ProvisionedThroughputExceededException` (`ThrottlingException` for an on-demand maximum,
//!   `RequestLimitExceeded` for the account quota) with `ThrottlingReasons` (reason and the
//!   table's or index's ARN). A `BatchWriteItem` or `BatchGetItem` returns the entries over a
//!   limit as unprocessed, and fails only when none is under it; a transaction fails with
//!   `TransactionCanceledException`, `ThrottlingError` for the actions over a limit;
//! - it **counts**: units consumed and requests throttled per partition, table and index
//!   ([`Emulator::usage`]).
//!
//! What the emulator does to know what a write touches, and where it is approximate:
//!
//! - Before a write it reads the stored item (from the endpoint, unmetered), so a put, delete or
//!   update is admitted on every partition it will touch, index partitions included. After an
//!   update it reads the item again, and charges what the update really did.
//! - An update that sets an index key through anything but a plain `SET attr = :value`
//!   (`if_not_exists`, arithmetic, `ADD`) is admitted on the partitions known before it runs,
//!   and charged afterwards on all it touched.
//! - Writes of one item running at the same time may each read the item before the other's
//!   write; their charges then use a stale size.
//! - PartiQL (`ExecuteStatement`, `BatchExecuteStatement`, `ExecuteTransaction`) and control-plane
//!   requests pass unmetered, as do requests it cannot read (DynamoDB Local then answers them,
//!   usually with a validation error). A cancelled transaction is not charged.
//! - Table descriptions are kept for two seconds, or fifty times as long as describing the
//!   table took (DynamoDB Local counts a table's items for every description), and one request
//!   at a time describes a table again; a table changed straight on DynamoDB Local is metered
//!   by its new shape after that.
//! - Counters grow with every partition used; buckets of idle partitions are forgotten once
//!   there are 100,000.
//!
//! ```no_run
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! use dynashard_local::emulator::{Emulator, PartitionLimits};
//!
//! let local = dynashard_local::connect().await?;
//! // A tenth of DynamoDB's limits: 100 write units per second per partition.
//! let emulator = Emulator::start(local.url(), PartitionLimits::dynamodb().scaled(0.1))?;
//! let db = dynashard::Db::new(dynashard::client_for_endpoint(emulator.endpoint()));
//! // ... write a hot key ...
//! let hot = emulator.usage().partition("AuditLog", Some("ByFile"), "file#/hot");
//! println!("{} write units, {} writes throttled", hot.write_units, hot.throttled_writes);
//! # Ok(()) }
//! ```

mod batch_reads;
mod bucket;
mod charge;
mod described;
mod expression;
mod heat;
mod limits;
mod meter;
mod reads;
mod reply;
mod schema;
mod server;
mod state;
mod streams;
mod upstream;
mod usage;
mod wire;
mod write_plan;
mod writes;

pub use heat::HeatRecording;
pub use limits::{PartitionLimits, TableLimit, PARTITION_READ_UNITS, PARTITION_WRITE_UNITS};
pub use usage::{Consumption, PartitionId, Usage};

use crate::error::LocalError;
use state::Shared;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use tokio::sync::oneshot;
use upstream::Upstream;

/// A running emulator: a proxy on a loopback port in front of a DynamoDB endpoint. Stops when
/// dropped.
///
/// It runs on a thread of its own, so it serves clients of any Tokio runtime (each
/// `#[tokio::test]` has its own) and outlives none of them.
#[derive(Debug)]
pub struct Emulator {
    endpoint: String,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
}

impl Emulator {
    /// Starts an emulator on a free loopback port in front of `upstream` (an `http://` endpoint
    /// URL such as `http://127.0.0.1:8000`; anything else is [`LocalError::InvalidEndpoint`]),
    /// enforcing `limits`.
    pub fn start(upstream: &str, limits: PartitionLimits) -> Result<Self, LocalError> {
        Self::start_on(upstream, limits, 0)
    }

    /// Like [`Emulator::start`], on loopback port `port` (`0`: a free one).
    pub fn start_on(upstream: &str, limits: PartitionLimits, port: u16) -> Result<Self, LocalError> {
        let uri: hyper::Uri = upstream
            .parse()
            .ok()
            .filter(|uri: &hyper::Uri| uri.scheme_str() == Some("http") && uri.host().is_some())
            .ok_or_else(|| LocalError::InvalidEndpoint { endpoint: upstream.to_owned() })?;
        let listener = std::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
            .map_err(|error| LocalError::io("binding the emulator's port", error))?;
        listener
            .set_nonblocking(true)
            .map_err(|error| LocalError::io("binding the emulator's port", error))?;
        let address =
            listener.local_addr().map_err(|error| LocalError::io("binding the emulator's port", error))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("dynashard-emulator")
            .enable_all()
            .build()
            .map_err(|error| LocalError::io("starting the emulator's runtime", error))?;
        let shared = Arc::new(Shared::new(Upstream::new(uri), limits));
        let (stop, stopped) = oneshot::channel::<()>();
        let serving = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("dynashard-emulator".into())
            .spawn(move || {
                runtime.block_on(async move {
                    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else { return };
                    tokio::select! {
                        () = server::serve(listener, serving) => {}
                        _ = stopped => {}
                    }
                });
                // Connections still open end with the runtime.
                runtime.shutdown_background();
            })
            .map_err(|error| LocalError::io("starting the emulator's thread", error))?;
        Ok(Self { endpoint: format!("http://{address}"), shared, stop: Some(stop) })
    }

    /// The emulator's endpoint URL, e.g. `http://127.0.0.1:41235`: give clients this one.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// A snapshot of the counters.
    pub fn usage(&self) -> Usage {
        self.shared.usage()
    }

    /// Splits the shards of `table`'s stream as DynamoDB does: each open shard closes at its
    /// last record and gets `children` children (at least one) that hold the later records,
    /// each item's in one of them. The split is made at the first Streams request for the table
    /// after this call; from the first call on, the emulator serves the Streams API of every
    /// stream itself, from the endpoint's shards (a client reads the split only through the
    /// emulator, see [`streams_client_for_endpoint`](dynashard::client::streams_client_for_endpoint)).
    /// Call it before the stream is first read through the emulator, and split between
    /// reads: an iterator the endpoint gave out before the first call reads past the split.
    ///
    /// ```no_run
    /// # async fn example() -> Result<(), Box<dyn std::error::Error>> {
    /// use dynashard_local::emulator::{Emulator, PartitionLimits};
    ///
    /// let local = dynashard_local::connect().await?;
    /// let emulator = Emulator::start(local.url(), PartitionLimits::dynamodb())?;
    /// emulator.split_stream("Albums", 4); // one shard becomes a closed parent and four children
    /// let db = dynashard::Db::new(dynashard::client_for_endpoint(emulator.endpoint()))
    ///     .with_streams_client(dynashard::client::streams_client_for_endpoint(emulator.endpoint()));
    /// # drop(db);
    /// # Ok(()) }
    /// ```
    pub fn split_stream(&self, table: &str, children: u32) {
        self.shared.splits.ask(table, children);
    }

    /// Sets every counter back to zero (the limits' buckets stay as they are).
    pub fn reset_usage(&self) {
        self.shared.reset_usage();
    }

    /// Enforces `limits` from now on, starting with full buckets.
    pub fn set_limits(&self, limits: PartitionLimits) {
        self.shared.set_limits(limits);
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            // The thread may have ended already (its runtime failed); nothing to stop then.
            let _ = stop.send(());
        }
    }
}
