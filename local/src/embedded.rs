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
use tokio::sync::oneshot;

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
        let database = dynoxide::Database::memory().map_err(|e| LocalError::Embedded(e.to_string()))?;
        let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))
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
        let server = std::thread::Builder::new()
            .name("dynashard-embedded".into())
            .spawn(move || {
                runtime.block_on(async move {
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

    /// Deletes every item whose time to live has passed, as DynamoDB's TTL process does (with a
    /// stream record of the TTL service's deletion); the number deleted. Nothing sweeps on its
    /// own: call it where a test wants expired items gone.
    pub fn sweep_ttl(&self) -> Result<usize, LocalError> {
        self.database.sweep_ttl().map_err(|e| LocalError::Embedded(e.to_string()))
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
