//! The `dynashard` command line: cut range boundaries, route keys, plan shard counts, inspect
//! shard balance, follow reshardings, draw heat maps and run a local DynamoDB. The logic lives in plain functions (boundary cutting,
//! capacity arithmetic, balance statistics); commands are thin I/O around them.

#![warn(missing_docs)]

pub mod args;
pub mod boundaries;
pub mod dynamo;
pub mod error;
pub mod format;
pub mod heat;
pub mod input;
pub mod inspect;
pub mod limits;
pub mod local;
pub mod plan;
pub mod progress;
pub mod reshard;
pub mod route;
pub mod validate;

use args::{Cli, Command};
use clap::Parser;
use error::{CliError, EXIT_OK};
use std::process::ExitCode;

/// Parses the process arguments, runs the command and returns its exit code, reporting any
/// error on stderr.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(()) => ExitCode::from(EXIT_OK),
        Err(error) if error.is_broken_pipe() => ExitCode::from(EXIT_OK),
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(error.exit_code())
        }
    }
}

/// A multi-threaded async runtime for the commands that talk to DynamoDB.
pub fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|error| CliError::io("starting the async runtime", error))
}

/// Runs one command.
pub fn run(command: Command) -> Result<(), CliError> {
    match command {
        Command::Boundaries(args) => boundaries::run(args),
        Command::Route(args) => route::run(args),
        Command::Plan(args) => plan::run(args),
        Command::Local(args) => local::run(args),
        Command::Inspect(args) => inspect::run(args),
        Command::Reshard(args) => reshard::run(args),
        Command::Heat(args) => heat::run(args),
    }
}
