//! Which DynamoDB the tooling connects to: the embedded one, a DynamoDB Local it manages, or an
//! endpoint already running; chosen by one setting.

use crate::error::LocalError;
use dynashard::client::endpoint_from_env;

/// The environment variable that chooses the backend of [`connect`](crate::connect) and
/// [`shared_endpoint`](crate::shared_endpoint): `embedded` (the default) or `local` (DynamoDB
/// Local, which needs Java 17 and, once, npm). `AWS_ENDPOINT_URL_DYNAMODB`, when set, wins over it.
pub const BACKEND_VARIABLE: &str = "DYNASHARD_BACKEND";

/// A DynamoDB to run tests and examples against.
///
/// ```
/// use dynashard_local::Backend;
///
/// assert!(matches!(Backend::parse("local"), Ok(Backend::Local)));
/// assert!(matches!(Backend::parse(" Embedded "), Ok(Backend::Embedded)));
/// assert!(Backend::parse("dynamo").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Backend {
    /// The embedded DynamoDB ([`Embedded`](crate::Embedded), feature `embedded`): in memory, in
    /// this process, nothing to install. The default when the feature is on.
    Embedded,
    /// DynamoDB Local ([`LocalDynamo`](crate::LocalDynamo)), installed on first use and started
    /// in a process of its own: Java 17 and npm. The default when `embedded` is off.
    Local,
    /// An endpoint already running, such as `http://127.0.0.1:8000`: nothing is started.
    Endpoint(String),
}

impl Default for Backend {
    /// [`Backend::Embedded`] with the feature `embedded`, [`Backend::Local`] without it.
    fn default() -> Self {
        if cfg!(feature = "embedded") {
            Backend::Embedded
        } else {
            Backend::Local
        }
    }
}

impl Backend {
    /// The backend the environment chooses: `AWS_ENDPOINT_URL_DYNAMODB` when set, else
    /// `DYNASHARD_BACKEND` when set, else the [default](Backend::default).
    pub fn from_env() -> Result<Self, LocalError> {
        Self::from_env_or(Backend::default())
    }

    /// As [`from_env`](Self::from_env), with another default when neither variable is set (a
    /// benchmark measured against DynamoDB Local, say).
    pub fn from_env_or(default: Backend) -> Result<Self, LocalError> {
        if let Some(endpoint) = endpoint_from_env() {
            return Ok(Backend::Endpoint(endpoint));
        }
        match std::env::var(BACKEND_VARIABLE) {
            Ok(value) if !value.trim().is_empty() => Self::parse(&value),
            _ => Ok(default),
        }
    }

    /// Reads a backend's name, as `DYNASHARD_BACKEND` holds it: `embedded` or `local` (any case).
    pub fn parse(name: &str) -> Result<Self, LocalError> {
        match name.trim().to_ascii_lowercase().as_str() {
            "embedded" => Ok(Backend::Embedded),
            "local" => Ok(Backend::Local),
            _ => Err(LocalError::UnknownBackend { name: name.to_owned() }),
        }
    }

    /// Its name: `embedded`, `local` or `endpoint`.
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Embedded => "embedded",
            Backend::Local => "local",
            Backend::Endpoint(_) => "endpoint",
        }
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Backend::Embedded => f.write_str("the embedded DynamoDB"),
            Backend::Local => f.write_str("DynamoDB Local"),
            Backend::Endpoint(endpoint) => write!(f, "the endpoint {endpoint}"),
        }
    }
}
