//! `dynashard local`: DynamoDB Local in the foreground, installed and managed the same way the
//! library does it for tests and examples, until Ctrl-C (or SIGTERM); with `--partition-limits`,
//! behind the partition-limit emulator.

mod forward;
mod limits;

use crate::args::LocalArgs;
use crate::error::CliError;
use dynashard_local::{default_cache_dir, LocalDynamo};
use std::net::Ipv4Addr;
use tokio::net::TcpListener;

/// Runs `dynashard local`.
pub fn run(args: LocalArgs) -> Result<(), CliError> {
    crate::runtime()?.block_on(serve(args))
}

async fn serve(args: LocalArgs) -> Result<(), CliError> {
    if args.partition_limits {
        return limits::serve(args).await;
    }
    // Take the port first, so a busy port fails at once rather than after Java has started.
    let listener = match args.port {
        Some(port) => Some(
            TcpListener::bind((Ipv4Addr::LOCALHOST, port))
                .await
                .map_err(|error| CliError::io(format!("cannot listen on 127.0.0.1:{port}"), error))?,
        ),
        None => None,
    };
    eprintln!("starting DynamoDB Local (installed on first use into {})", default_cache_dir().display());
    let local = LocalDynamo::start().await?;
    let upstream = forward::loopback_address(local.endpoint()).ok_or_else(|| CliError::Dynamo {
        context: "starting DynamoDB Local".to_owned(),
        message: format!("unexpected endpoint {}", local.endpoint()),
    })?;
    let endpoint = match &listener {
        Some(listener) => {
            let port = listener
                .local_addr()
                .map_err(|error| CliError::io("reading the listening port", error))?
                .port();
            eprintln!("forwarding to DynamoDB Local at {}", local.endpoint());
            format!("http://127.0.0.1:{port}")
        }
        None => local.endpoint().to_owned(),
    };
    println!("{endpoint}");
    eprintln!(
        "DynamoDB Local is running in memory: export AWS_ENDPOINT_URL_DYNAMODB={endpoint}; press Ctrl-C to stop"
    );
    let outcome = match listener {
        Some(listener) => tokio::select! {
            signal = shutdown_signal() => signal,
            () = forward::relay(listener, upstream) => Ok(()),
        },
        None => shutdown_signal().await,
    };
    tokio::task::spawn_blocking(move || local.stop())
        .await
        .map_err(|error| CliError::io("stopping DynamoDB Local", std::io::Error::other(error)))?;
    eprintln!("DynamoDB Local stopped");
    outcome
}

/// Waits for Ctrl-C, or SIGTERM on Unix.
pub(super) async fn shutdown_signal() -> Result<(), CliError> {
    let interrupted = |error| CliError::io("waiting for Ctrl-C", error);
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut terminate = signal(SignalKind::terminate()).map_err(interrupted)?;
        tokio::select! {
            result = tokio::signal::ctrl_c() => result.map_err(interrupted),
            _ = terminate.recv() => Ok(()),
        }
    }
    #[cfg(not(unix))]
    {
        tokio::signal::ctrl_c().await.map_err(interrupted)
    }
}
