//! The client of the DynamoDB Streams API a `Db` makes when it was given none.

use aws_config::BehaviorVersion;

/// The endpoint the environment names for the Streams API, if any.
fn endpoint() -> Option<String> {
    ["AWS_ENDPOINT_URL_DYNAMODB_STREAMS", super::ENDPOINT_VARIABLE]
        .iter()
        .find_map(|name| std::env::var(name).ok().filter(|value| !value.trim().is_empty()))
}

/// A Streams client for the database `client` talks to: a loopback endpoint of the environment
/// (DynamoDB Local) as [`crate::client::streams_client_for_endpoint`] makes it, else the standard
/// aws-config chain in `client`'s region, with its timeouts.
pub(crate) async fn streams_client_like(
    client: &aws_sdk_dynamodb::Client,
) -> aws_sdk_dynamodbstreams::Client {
    match endpoint() {
        Some(endpoint) if super::is_loopback_endpoint(&endpoint) => {
            super::streams_client_for_endpoint(&endpoint)
        }
        _ => {
            let config = client.config();
            let mut loader = aws_config::defaults(BehaviorVersion::latest());
            if let Some(region) = config.region() {
                loader = loader.region(region.clone());
            }
            if let Some(timeouts) = config.timeout_config() {
                loader = loader.timeout_config(timeouts.clone());
            }
            aws_sdk_dynamodbstreams::Client::new(&loader.load().await)
        }
    }
}
