//! The DynamoDB that `dynashard local` serves: the embedded one or DynamoDB Local.

use crate::args::{BackendArg, LocalArgs};
use crate::error::CliError;
use dynashard_local::{default_cache_dir, Embedded, EmbeddedOptions, LocalDynamo};
use std::time::Duration;

/// How often the embedded DynamoDB sweeps expired items unless `--ttl-sweep` says otherwise.
const DEFAULT_TTL_SWEEP: Duration = Duration::from_secs(10);

/// A running DynamoDB, stopped by [`Served::stop`].
#[derive(Debug)]
pub enum Served {
    /// The embedded DynamoDB, in this process.
    Embedded(Embedded),
    /// DynamoDB Local, in a Java process.
    Local(LocalDynamo),
}

impl Served {
    /// Starts the backend `args` choose; the embedded one on `port` when given (DynamoDB Local
    /// always picks a free port of its own).
    pub async fn start(args: &LocalArgs, port: Option<u16>) -> Result<Self, CliError> {
        match args.backend {
            BackendArg::Embedded => {
                let mut options = EmbeddedOptions::default();
                let sweep = args.ttl_sweep.map_or(DEFAULT_TTL_SWEEP, Duration::from_secs);
                if !sweep.is_zero() {
                    options = options.sweep_ttl_every(sweep);
                }
                if let Some(port) = port {
                    options = options.port(port);
                }
                Ok(Served::Embedded(Embedded::start_with(&options)?))
            }
            BackendArg::Local => {
                if args.ttl_sweep.is_some() {
                    return Err(CliError::Usage(
                        "--ttl-sweep is for the embedded DynamoDB: DynamoDB Local never deletes expired items"
                            .to_owned(),
                    ));
                }
                eprintln!(
                    "starting DynamoDB Local (installed on first use into {})",
                    default_cache_dir().display()
                );
                Ok(Served::Local(LocalDynamo::start().await?))
            }
        }
    }

    /// Its endpoint, `http://127.0.0.1:<port>`.
    pub fn endpoint(&self) -> &str {
        match self {
            Served::Embedded(embedded) => embedded.endpoint(),
            Served::Local(local) => local.endpoint(),
        }
    }

    /// What it is, for messages: "the embedded DynamoDB" or "DynamoDB Local".
    pub fn name(&self) -> &'static str {
        match self {
            Served::Embedded(_) => "the embedded DynamoDB",
            Served::Local(_) => "DynamoDB Local",
        }
    }

    /// Stops it, and says so on stderr.
    pub async fn stop(self) -> Result<(), CliError> {
        let name = self.name();
        tokio::task::spawn_blocking(move || match self {
            Served::Embedded(embedded) => drop(embedded),
            Served::Local(local) => local.stop(),
        })
        .await
        .map_err(|error| CliError::io("stopping the local DynamoDB", std::io::Error::other(error)))?;
        eprintln!("{name} stopped");
        Ok(())
    }
}
