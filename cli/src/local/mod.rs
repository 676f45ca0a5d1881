//! `dynashard local`: a DynamoDB in the foreground, the embedded one or DynamoDB Local (managed
//! the same way the library does it for tests and examples), until Ctrl-C (or SIGTERM); with
//! `--partition-limits`, behind the partition-limit emulator.

mod forward;
mod limits;
mod served;

use crate::args::{BackendArg, LocalArgs};
use crate::error::CliError;
use served::Served;
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
    if args.backend == BackendArg::Embedded {
        if let Some(port) = args.port {
            // Say which port is taken, in the words DynamoDB Local's relay uses.
            std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, port))
                .map_err(|error| CliError::io(format!("cannot listen on 127.0.0.1:{port}"), error))?;
        }
        let served = Served::start(&args, args.port).await?;
        return announce_and_wait(served, None).await;
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
    let served = Served::start(&args, None).await?;
    announce_and_wait(served, listener).await
}

/// Prints the endpoint (relayed from `listener` when given), serves until Ctrl-C, and stops.
async fn announce_and_wait(served: Served, listener: Option<TcpListener>) -> Result<(), CliError> {
    let upstream = forward::loopback_address(served.endpoint()).ok_or_else(|| CliError::Dynamo {
        context: format!("starting {}", served.name()),
        message: format!("unexpected endpoint {}", served.endpoint()),
    })?;
    let endpoint = match &listener {
        Some(listener) => {
            let port = listener
                .local_addr()
                .map_err(|error| CliError::io("reading the listening port", error))?
                .port();
            eprintln!("forwarding to {} at {}", served.name(), served.endpoint());
            format!("http://127.0.0.1:{port}")
        }
        None => served.endpoint().to_owned(),
    };
    println!("{endpoint}");
    eprintln!(
        "{} is running in memory: export AWS_ENDPOINT_URL_DYNAMODB={endpoint}; press Ctrl-C to stop",
        capitalized(served.name())
    );
    let outcome = match listener {
        Some(listener) => tokio::select! {
            signal = shutdown_signal() => signal,
            () = forward::relay(listener, upstream) => Ok(()),
        },
        None => shutdown_signal().await,
    };
    served.stop().await?;
    outcome
}

/// `name` with its first letter upper case, to start a sentence.
pub(super) fn capitalized(name: &str) -> String {
    let mut chars = name.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
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
