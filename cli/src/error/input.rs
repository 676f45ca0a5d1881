//! Why keys could not be read.

use std::path::PathBuf;

/// A problem with the input: unreadable, undecodable or not in the announced format.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// An input file could not be opened.
    #[error("cannot open {}: {source}", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// Reading failed part way.
    #[error("cannot read {name}: {source}")]
    Read {
        /// The input's name.
        name: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A key is not valid UTF-8.
    #[error("{name}:{line}: not valid UTF-8 (at byte {byte} of the line); fix the input or pass --lossy to replace invalid bytes with U+FFFD")]
    InvalidUtf8 {
        /// The input's name.
        name: String,
        /// The line number, from 1.
        line: u64,
        /// The offset of the first invalid byte in the line, from 0.
        byte: usize,
    },
    /// The CSV header has no column of that name.
    #[error("{name}: no column {column:?} in the CSV header (columns: {})", available.join(", "))]
    NoSuchColumn {
        /// The input's name.
        name: String,
        /// The column asked for.
        column: String,
        /// The header's columns.
        available: Vec<String>,
    },
    /// A line is not valid CSV or JSON.
    #[error("{name}:{line}: {message}")]
    Malformed {
        /// The input's name.
        name: String,
        /// The line number, from 1.
        line: u64,
        /// What is wrong.
        message: String,
    },
}

impl InputError {
    /// Whether the input itself is at fault (exit code 2) rather than the system (exit code 1).
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, InputError::Read { .. })
    }
}
