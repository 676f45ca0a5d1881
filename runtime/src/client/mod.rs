//! Building DynamoDB clients: the standard configuration chain or a local endpoint, always with
//! timeouts.

mod listing;
mod streams;

pub(crate) use listing::{ListedShard, Listing, StreamListings};

use aws_config::BehaviorVersion;
use aws_sdk_dynamodb::config::timeout::TimeoutConfig;
use aws_sdk_dynamodb::config::{Credentials, Region};
use aws_sdk_dynamodb::Client;
use std::time::Duration;
pub(crate) use streams::streams_client_like;

/// The environment variable that points every client dynashard builds at an endpoint of your
/// choice (DynamoDB Local, for example) instead of AWS: the AWS SDKs' standard variable for
/// DynamoDB's endpoint, which the AWS CLI and every other SDK honour too.
pub const ENDPOINT_VARIABLE: &str = "AWS_ENDPOINT_URL_DYNAMODB";

/// How long a client waits for DynamoDB before it gives up with
/// [`Error::Timeout`](crate::Error::Timeout).
///
/// Every client dynashard builds ([`client_from_env`], [`client_for_endpoint`], the clients of
/// `dynashard_local` and of the fault injector) has them. Without them, a request to an endpoint
/// that accepts connections but never answers (a frozen process, a black-holed network path)
/// waits forever.
///
/// - `connect`: opening a connection (default 3 s);
/// - `attempt`: one attempt of a request, from sending it to reading the whole answer (default
///   10 s). The SDK retries a timed-out attempt like any transient failure;
/// - `operation`: a whole request, the SDK's retries and their back-off included (default 30 s).
///
/// A query stream, a get or a write fails with `Error::Timeout` once `operation` has passed. A
/// batch call stops sending when one of its requests times out and hands back everything not yet
/// written or read in [`Error::BatchIncomplete`](crate::Error::BatchIncomplete).
///
/// ```
/// use dynashard::Timeouts;
/// use std::time::Duration;
///
/// let patient = Timeouts::default().attempt(Duration::from_secs(30)).operation(Duration::from_secs(90));
/// assert_eq!(patient.connect, Duration::from_secs(3));
/// let client = dynashard::client::client_for_endpoint_with("http://127.0.0.1:8000", patient);
/// # drop(client);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Timeouts {
    /// The longest wait for a connection to open.
    pub connect: Duration,
    /// The longest wait for one attempt of a request.
    pub attempt: Duration,
    /// The longest wait for a request, all its attempts included.
    pub operation: Duration,
}

impl Timeouts {
    /// The defaults: 3 s to connect, 10 s an attempt, 30 s a request.
    pub const DEFAULT: Timeouts = Timeouts {
        connect: Duration::from_secs(3),
        attempt: Duration::from_secs(10),
        operation: Duration::from_secs(30),
    };

    /// With another connect timeout.
    pub const fn connect(mut self, timeout: Duration) -> Self {
        self.connect = timeout;
        self
    }

    /// With another timeout for one attempt of a request.
    pub const fn attempt(mut self, timeout: Duration) -> Self {
        self.attempt = timeout;
        self
    }

    /// With another timeout for a whole request, retries included.
    pub const fn operation(mut self, timeout: Duration) -> Self {
        self.operation = timeout;
        self
    }

    /// The SDK's configuration of these timeouts, for clients you configure yourself.
    ///
    /// ```
    /// let config = aws_sdk_dynamodb::Config::builder()
    ///     .timeout_config(dynashard::Timeouts::default().to_config());
    /// # drop(config);
    /// ```
    pub fn to_config(&self) -> TimeoutConfig {
        TimeoutConfig::builder()
            .connect_timeout(self.connect)
            .operation_attempt_timeout(self.attempt)
            .operation_timeout(self.operation)
            .build()
    }
}

impl Default for Timeouts {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// A client from the standard aws-config chain (environment, profile, SSO, instance role, ...),
/// with the default [`Timeouts`].
///
/// When `AWS_ENDPOINT_URL_DYNAMODB` is set, requests go to that endpoint instead of AWS. A loopback
/// endpoint (`localhost`, `127.x.x.x`, `[::1]`: DynamoDB Local) gets the same fixed region and
/// dummy credentials as [`client_for_endpoint`], so it works without any AWS configuration and
/// sees the tables that dynashard's other local clients create.
pub async fn client_from_env() -> Client {
    client_from_env_with(Timeouts::default()).await
}

/// [`client_from_env`] with other timeouts.
pub async fn client_from_env_with(timeouts: Timeouts) -> Client {
    match endpoint_from_env() {
        Some(endpoint) if is_loopback_endpoint(&endpoint) => client_for_endpoint_with(&endpoint, timeouts),
        endpoint => {
            let mut loader =
                aws_config::defaults(BehaviorVersion::latest()).timeout_config(timeouts.to_config());
            if let Some(endpoint) = endpoint {
                loader = loader.endpoint_url(endpoint);
            }
            Client::new(&loader.load().await)
        }
    }
}

/// A client for a local endpoint such as DynamoDB Local: a fixed region, dummy credentials and
/// the default [`Timeouts`].
pub fn client_for_endpoint(endpoint: &str) -> Client {
    client_for_endpoint_with(endpoint, Timeouts::default())
}

/// [`client_for_endpoint`] with other timeouts.
pub fn client_for_endpoint_with(endpoint: &str, timeouts: Timeouts) -> Client {
    Client::from_conf(config_for_endpoint(endpoint, timeouts).build())
}

/// A client of the DynamoDB Streams API for a local endpoint, configured as
/// [`client_for_endpoint`] configures one of DynamoDB (DynamoDB Local serves both on one port):
/// give it to [`Db::with_streams_client`](crate::Db::with_streams_client).
pub fn streams_client_for_endpoint(endpoint: &str) -> aws_sdk_dynamodbstreams::Client {
    let config = aws_sdk_dynamodbstreams::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("local", "local", None, None, "dynashard"))
        .endpoint_url(endpoint)
        .timeout_config(Timeouts::default().to_config());
    aws_sdk_dynamodbstreams::Client::from_conf(config.build())
}

/// The configuration [`client_for_endpoint_with`] builds its client from (fixed region, dummy
/// credentials, `timeouts`), still open for additions such as interceptors.
pub fn config_for_endpoint(endpoint: &str, timeouts: Timeouts) -> aws_sdk_dynamodb::config::Builder {
    aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("local", "local", None, None, "dynashard"))
        .endpoint_url(endpoint)
        .timeout_config(timeouts.to_config())
}

/// The endpoint of [`ENDPOINT_VARIABLE`], when it is set and not blank.
pub fn endpoint_from_env() -> Option<String> {
    std::env::var(ENDPOINT_VARIABLE).ok().filter(|value| !value.trim().is_empty())
}

/// Whether an endpoint URL names this machine: `localhost`, `127.x.x.x` or `[::1]`.
///
/// ```
/// assert!(dynashard::client::is_loopback_endpoint("http://127.0.0.1:8000"));
/// assert!(dynashard::client::is_loopback_endpoint("http://localhost:8000/"));
/// assert!(!dynashard::client::is_loopback_endpoint("https://dynamodb.eu-west-1.amazonaws.com"));
/// ```
pub fn is_loopback_endpoint(endpoint: &str) -> bool {
    let authority = endpoint.split_once("://").map_or(endpoint, |(_, rest)| rest);
    let authority = authority.split(['/', '?', '#']).next().unwrap_or(authority);
    let authority = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    let host = match authority.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or(bracketed),
        None => authority.rsplit_once(':').map_or(authority, |(host, _)| host),
    };
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<std::net::IpAddr>().is_ok_and(|address| address.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_endpoints() {
        for local in [
            "http://127.0.0.1:8000",
            "http://localhost:8000/",
            "http://[::1]:8000",
            "127.0.0.2:1",
            "http://u@localhost",
        ] {
            assert!(is_loopback_endpoint(local), "{local}");
        }
        for remote in [
            "https://dynamodb.eu-west-1.amazonaws.com",
            "http://10.0.0.5:8000",
            "http://localhost.example",
            "http://127.0.0.1.example.com",
        ] {
            assert!(!is_loopback_endpoint(remote), "{remote}");
        }
    }

    #[test]
    fn timeouts_reach_the_sdk() {
        let config = Timeouts::default().attempt(Duration::from_millis(250)).to_config();
        assert_eq!(config.connect_timeout(), Some(Duration::from_secs(3)));
        assert_eq!(config.operation_attempt_timeout(), Some(Duration::from_millis(250)));
        assert_eq!(config.operation_timeout(), Some(Duration::from_secs(30)));
        let client = client_for_endpoint("http://127.0.0.1:9");
        let configured = client.config().timeout_config().cloned();
        assert_eq!(configured.and_then(|config| config.operation_timeout()), Some(Duration::from_secs(30)));
    }
}
