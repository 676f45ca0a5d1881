//! Connecting tests and examples to the backend the environment chooses, one of their own or one
//! shared by the whole process.

use crate::backend::Backend;
#[cfg(feature = "embedded")]
use crate::embedded::Embedded;
use crate::error::LocalError;
use crate::local_dynamo::{LocalDynamo, LocalOptions};
use aws_sdk_dynamodb::Client;
use dynashard::client::client_for_endpoint;
use std::sync::OnceLock;

/// What a connection keeps running: stopped when it is dropped.
#[derive(Debug)]
enum Running {
    /// Nothing: an endpoint someone else runs.
    Nothing,
    Local(LocalDynamo),
    #[cfg(feature = "embedded")]
    Embedded(Embedded),
}

impl Running {
    /// Starts what `backend` names, and its endpoint.
    fn start_blocking(backend: &Backend) -> Result<(String, Running), LocalError> {
        match backend {
            Backend::Endpoint(endpoint) => Ok((endpoint.clone(), Running::Nothing)),
            Backend::Local => {
                let local = LocalDynamo::start_blocking(&LocalOptions::default())?;
                Ok((local.endpoint().to_owned(), Running::Local(local)))
            }
            #[cfg(feature = "embedded")]
            Backend::Embedded => {
                let embedded = Embedded::start()?;
                Ok((embedded.endpoint().to_owned(), Running::Embedded(embedded)))
            }
            #[cfg(not(feature = "embedded"))]
            Backend::Embedded => Err(LocalError::EmbeddedDisabled),
        }
    }

    async fn start(backend: &Backend) -> Result<(String, Running), LocalError> {
        let backend = backend.clone();
        tokio::task::spawn_blocking(move || Running::start_blocking(&backend))
            .await
            .map_err(|e| LocalError::io("joining the start task", std::io::Error::other(e)))?
    }
}

/// A client of a backend and, when this connection started it, the backend itself, which lives
/// as long as the connection.
#[derive(Debug)]
pub struct Connection {
    backend: Backend,
    client: Client,
    url: String,
    running: Running,
}

impl Connection {
    /// The client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The endpoint in use, for building other clients of the same database.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The backend it connects to.
    pub fn backend(&self) -> &Backend {
        &self.backend
    }

    /// A `Db` on this connection, its streams read at the same endpoint.
    pub fn db(&self) -> dynashard::Db {
        dynashard::Db::new(self.client.clone())
            .with_streams_client(crate::stream_identity::streams_client(&self.url))
    }

    /// The embedded DynamoDB this connection started, if it did.
    #[cfg(feature = "embedded")]
    pub fn embedded(&self) -> Option<&Embedded> {
        match &self.running {
            Running::Embedded(embedded) => Some(embedded),
            _ => None,
        }
    }

    /// The DynamoDB Local this connection started, if it did.
    pub fn local(&self) -> Option<&LocalDynamo> {
        match &self.running {
            Running::Local(local) => Some(local),
            _ => None,
        }
    }

    /// Deletes the items whose time to live has passed now, with the stream records DynamoDB's
    /// TTL process writes ([`Embedded::sweep_ttl`](crate::Embedded::sweep_ttl)); the number
    /// deleted. Only the embedded backend can: DynamoDB Local never deletes expired items, and
    /// an endpoint's own process decides when it does
    /// ([`LocalError::Unsupported`] on those).
    pub fn sweep_ttl(&self) -> Result<usize, LocalError> {
        match &self.running {
            #[cfg(feature = "embedded")]
            Running::Embedded(embedded) => embedded.sweep_ttl(),
            _ => {
                Err(LocalError::Unsupported { backend: self.backend.name(), what: "sweeping expired items" })
            }
        }
    }
}

/// Connects to the backend the environment chooses ([`Backend::from_env`]: the embedded
/// DynamoDB unless `DYNASHARD_BACKEND` or `AWS_ENDPOINT_URL_DYNAMODB` says otherwise), starting
/// one of its own that lives as long as the returned [`Connection`].
pub async fn connect() -> Result<Connection, LocalError> {
    connect_to(Backend::from_env()?).await
}

/// Connects to `backend`, starting one of its own when it is not an endpoint.
pub async fn connect_to(backend: Backend) -> Result<Connection, LocalError> {
    let (url, running) = Running::start(&backend).await?;
    Ok(Connection { client: client_for_endpoint(&url), url, backend, running })
}

/// The endpoint of one backend shared by the whole process, the one the environment chooses
/// ([`Backend::from_env`]), started on first use and stopped when the process exits. Meant for
/// test suites: each test builds its own client of it.
pub async fn shared_endpoint() -> Result<String, LocalError> {
    let backend = Backend::from_env()?;
    if let Backend::Endpoint(endpoint) = backend {
        return Ok(endpoint);
    }
    static SHARED: OnceLock<Result<(String, Running), String>> = OnceLock::new();
    let shared = tokio::task::spawn_blocking(move || {
        SHARED
            .get_or_init(|| Running::start_blocking(&backend).map_err(|e| e.to_string()))
            .as_ref()
            .map(|(endpoint, _)| endpoint.clone())
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
        .with_streams_client(crate::stream_identity::streams_client(&endpoint)))
}
