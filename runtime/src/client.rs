//! Building DynamoDB clients.

use aws_config::BehaviorVersion;
use aws_sdk_dynamodb::config::{Credentials, Region};
use aws_sdk_dynamodb::Client;

/// A client from the standard aws-config chain (environment, profile, SSO, instance role, ...).
/// When `DYNAMODB_ENDPOINT` is set, requests go to that endpoint instead of AWS.
pub async fn client_from_env() -> Client {
    let mut loader = aws_config::defaults(BehaviorVersion::latest());
    if let Ok(endpoint) = std::env::var("DYNAMODB_ENDPOINT") {
        loader = loader.endpoint_url(endpoint);
    }
    Client::new(&loader.load().await)
}

/// A client for a local endpoint such as DynamoDB Local: fixed region and dummy credentials.
pub fn client_for_endpoint(endpoint: &str) -> Client {
    Client::from_conf(endpoint_config(endpoint).build())
}

/// The configuration [`client_for_endpoint`] uses, still open for additions.
pub(crate) fn endpoint_config(endpoint: &str) -> aws_sdk_dynamodb::config::Builder {
    aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("local", "local", None, None, "dynashard"))
        .endpoint_url(endpoint)
}
