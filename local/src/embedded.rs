//! An embedded DynamoDB: the [`dynoxide`](https://docs.rs/dynoxide-rs) emulator, in memory,
//! served on a loopback port from a thread of this process. Nothing to install but crates; it
//! starts in milliseconds.
//!
//! It serves the DynamoDB and DynamoDB Streams APIs at one endpoint, like DynamoDB Local. Unlike
//! DynamoDB Local it can expire items by their time to live ([`Embedded::sweep_ttl`]), and it
//! knows no transaction conflicts and no continuous backups.

use crate::error::LocalError;
use aws_sdk_dynamodb::Client;
use dynashard::client::client_for_endpoint;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::thread::JoinHandle;
use std::time::Duration;
use tokio::sync::oneshot;

/// How to start an [`Embedded`] DynamoDB.
///
/// ```
/// use dynashard_local::EmbeddedOptions;
/// use std::time::Duration;
///
/// let options = EmbeddedOptions::default().sweep_ttl_every(Duration::from_secs(1));
/// assert_eq!(options.ttl_sweep, Some(Duration::from_secs(1)));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct EmbeddedOptions {
    /// How often it deletes the items whose time to live has passed, as DynamoDB's TTL process
    /// does; `None` (the default) never on its own, only when [`Embedded::sweep_ttl`] is called,
    /// so that a test decides when items expire.
    pub ttl_sweep: Option<Duration>,
    /// The loopback port to serve on; `None` (the default) a free one.
    pub port: Option<u16>,
}

impl EmbeddedOptions {
    /// Sweeps expired items every `period` (at least a millisecond).
    #[must_use]
    pub fn sweep_ttl_every(mut self, period: Duration) -> Self {
        self.ttl_sweep = Some(period.max(Duration::from_millis(1)));
        self
    }

    /// Serves on this loopback port (an error at start when it is taken).
    #[must_use]
    pub fn port(mut self, port: u16) -> Self {
        self.port = Some(port);
        self
    }
}

/// An embedded DynamoDB, served until it is dropped.
///
/// ```
/// # fn main() -> Result<(), dynashard_local::LocalError> {
/// let embedded = dynashard_local::Embedded::start()?;
/// assert!(embedded.endpoint().starts_with("http://127.0.0.1:"));
/// let db = dynashard::Db::new(embedded.client());
/// # drop(db);
/// # Ok(()) }
/// ```
pub struct Embedded {
    endpoint: String,
    database: dynoxide::Database,
    stop: Option<oneshot::Sender<()>>,
    server: Option<JoinHandle<Result<(), String>>>,
}

impl std::fmt::Debug for Embedded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedded").field("endpoint", &self.endpoint).finish_non_exhaustive()
    }
}

impl Embedded {
    /// Opens an empty in-memory database and serves it on a free loopback port, from a thread
    /// with a runtime of its own (so it serves whatever the caller's runtime is doing, and
    /// outside any runtime too).
    pub fn start() -> Result<Self, LocalError> {
        Self::start_with(&EmbeddedOptions::default())
    }

    /// As [`start`](Self::start), with `options`: a TTL sweep on a schedule, for one.
    pub fn start_with(options: &EmbeddedOptions) -> Result<Self, LocalError> {
        let database = open_database()?;
        let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, options.port.unwrap_or(0))))
            .map_err(|e| LocalError::io("binding a loopback port for the embedded DynamoDB", e))?;
        let address = listener
            .local_addr()
            .map_err(|e| LocalError::io("reading the embedded DynamoDB's address", e))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| LocalError::io("setting the embedded DynamoDB's listener", e))?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| LocalError::io("starting the embedded DynamoDB's runtime", e))?;
        let (stop, stopped) = oneshot::channel::<()>();
        let served = database.clone();
        let swept = database.clone();
        let sweep = options.ttl_sweep;
        let server = std::thread::Builder::new()
            .name("dynashard-embedded".into())
            .spawn(move || {
                runtime.block_on(async move {
                    if let Some(period) = sweep {
                        tokio::spawn(sweep_on_schedule(swept, period));
                    }
                    let listener = tokio::net::TcpListener::from_std(listener).map_err(|e| e.to_string())?;
                    let shutdown = async move {
                        // A dropped sender stops the server too.
                        let _ = stopped.await;
                    };
                    dynoxide::server::serve_with_shutdown(listener, served, shutdown).await
                })
            })
            .map_err(|e| LocalError::io("starting the embedded DynamoDB's thread", e))?;
        Ok(Embedded {
            endpoint: format!("http://{address}"),
            database,
            stop: Some(stop),
            server: Some(server),
        })
    }

    /// Its endpoint URL, `http://127.0.0.1:<port>`.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// A client for it (a fixed region, dummy credentials, the default timeouts).
    pub fn client(&self) -> Client {
        client_for_endpoint(&self.endpoint)
    }

    /// A streams client for it, which reads a deletion by time to live's identity as DynamoDB's
    /// Streams API spells it ([`StreamIdentity`](crate::StreamIdentity)).
    pub fn streams_client(&self) -> aws_sdk_dynamodbstreams::Client {
        crate::stream_identity::streams_client(&self.endpoint)
    }

    /// Deletes every item whose time to live has passed, as DynamoDB's TTL process does (with a
    /// stream record of the TTL service's deletion); the number deleted. Unless its options set a
    /// schedule, nothing sweeps on its own: call it where a test wants expired items gone.
    pub fn sweep_ttl(&self) -> Result<usize, LocalError> {
        self.database.sweep_ttl().map_err(|e| LocalError::Embedded(e.to_string()))
    }
}

/// Deletes expired items every `period`, off the server's thread, until the runtime stops.
/// The indexes the emulator's stream records lack: without them every write to a table with a
/// stream looks for the table's last sequence number through every stream record ever written
/// (images and all), and every page of a stream through all of them again, so a write costs more
/// the more was written before it.
const STREAM_RECORD_INDEXES: &str = "
    CREATE INDEX IF NOT EXISTS dynashard_stream_sequence
        ON _stream_records (table_name, CAST(sequence_number AS INTEGER));
    CREATE INDEX IF NOT EXISTS dynashard_stream_shard_sequence
        ON _stream_records (table_name, shard_id, CAST(sequence_number AS INTEGER));";

/// An empty in-memory database, with [`STREAM_RECORD_INDEXES`]: opened by name in a shared cache,
/// so that a second connection can add them once the emulator has made its tables (the database
/// lives while the emulator's connection does).
fn open_database() -> Result<dynoxide::Database, LocalError> {
    let failed = |e: &dyn std::fmt::Display| LocalError::Embedded(e.to_string());
    let name = format!("file:dynashard-{:016x}?mode=memory&cache=shared", rand::random::<u64>());
    let database = dynoxide::Database::new(&name).map_err(|e| failed(&e))?;
    let connection = rusqlite::Connection::open(&name).map_err(|e| failed(&e))?;
    connection.execute_batch(STREAM_RECORD_INDEXES).map_err(|e| failed(&e))?;
    Ok(database)
}

async fn sweep_on_schedule(database: dynoxide::Database, period: Duration) {
    let mut ticks = tokio::time::interval(period);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let database = database.clone();
        match tokio::task::spawn_blocking(move || database.sweep_ttl()).await {
            Ok(Ok(_)) => {}
            Ok(Err(error)) => eprintln!("dynashard-local: the embedded DynamoDB's TTL sweep failed: {error}"),
            Err(_) => return,
        }
    }
}

impl Drop for Embedded {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(server) = self.server.take() {
            let _ = server.join();
        }
    }
}
