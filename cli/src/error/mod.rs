//! The command's errors and their exit codes: 2 for bad usage or bad input, 1 for failures of
//! the system (I/O, network, DynamoDB Local).

mod causes;
mod input;

pub use causes::{CutError, KeySetError, PlanError};
use dynashard::shard::BoundariesError;
use dynashard_local::LocalError;
pub use input::InputError;
use std::path::PathBuf;

/// Exit code of a successful run.
pub const EXIT_OK: u8 = 0;
/// Exit code of a runtime failure.
pub const EXIT_FAILURE: u8 = 1;
/// Exit code of bad usage or bad input (clap uses it for its own usage errors too).
pub const EXIT_USAGE: u8 = 2;

/// Everything that can stop a command.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The input could not be read or is malformed.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The arguments or the input do not make sense together.
    #[error("{0}")]
    Usage(String),
    /// No shard layout exists for the input.
    #[error(transparent)]
    Cut(#[from] CutError),
    /// The input is too large to hold.
    #[error(transparent)]
    TooLarge(#[from] KeySetError),
    /// The workload's numbers are too large to plan.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// A boundaries file is malformed or unsorted.
    #[error("{}: {}", path.display(), boundaries_reason(source))]
    Boundaries {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        source: BoundariesError,
    },
    /// A boundaries file has more boundaries than an index may have shards.
    #[error(
        "{}: {} boundaries; at most {} range shards",
        path.display(),
        crate::format::count(*boundaries as u64),
        crate::format::count(crate::limits::MAX_SHARDS)
    )]
    TooManyBoundaries {
        /// The file.
        path: PathBuf,
        /// The boundaries it holds.
        boundaries: usize,
    },
    /// The table does not exist.
    #[error("table {table:?} does not exist at {endpoint}")]
    TableNotFound {
        /// The table asked for.
        table: String,
        /// Where it was looked for.
        endpoint: String,
    },
    /// The table has no index of that name.
    #[error("table {table:?} has no index {index:?} (its indexes: {})", list_or_none(available))]
    IndexNotFound {
        /// The table.
        table: String,
        /// The index asked for.
        index: String,
        /// The indexes it has.
        available: Vec<String>,
    },
    /// A DynamoDB request failed.
    #[error("{context}: {message}")]
    Dynamo {
        /// What was being done.
        context: String,
        /// The SDK's error, with its causes.
        message: String,
    },
    /// DynamoDB Local could not be installed or started.
    #[error(transparent)]
    Local(#[from] LocalError),
    /// Some other I/O failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

impl CliError {
    /// An I/O failure while doing `context`.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        CliError::Io { context: context.into(), source }
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Input(error) if !error.is_bad_input() => EXIT_FAILURE,
            CliError::Input(_)
            | CliError::Usage(_)
            | CliError::Cut(_)
            | CliError::Plan(_)
            | CliError::Boundaries { .. }
            | CliError::TooManyBoundaries { .. }
            | CliError::TableNotFound { .. }
            | CliError::IndexNotFound { .. } => EXIT_USAGE,
            CliError::TooLarge(_) | CliError::Dynamo { .. } | CliError::Local(_) | CliError::Io { .. } => {
                EXIT_FAILURE
            }
        }
    }

    /// Whether this is a closed stdout (as with `| head`), which ends the command quietly.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, CliError::Io { source, .. } if source.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

/// What is wrong with a boundaries file, with the boundaries it names cut short
/// ([`crate::format::key`]).
fn boundaries_reason(error: &BoundariesError) -> String {
    use crate::format::key;
    match error {
        BoundariesError::FirstNotEmpty(first) => {
            format!("the first boundary must be \"\", found {}", key(first))
        }
        BoundariesError::NotIncreasing { index, value, previous } => format!(
            "boundary {index} ({}) is not greater than the one before it ({})",
            key(value),
            key(previous)
        ),
        other => other.to_string(),
    }
}

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}
