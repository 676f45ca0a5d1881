//! Building the DynamoDB client for a command.

use aws_sdk_dynamodb::Client;

/// A client for `endpoint`, or for AWS through the standard configuration chain when there is
/// none, with the library's default timeouts. A loopback endpoint (DynamoDB Local) gets a fixed
/// region and dummy credentials, so it works with no AWS configuration at all.
pub async fn client(endpoint: Option<&str>) -> Client {
    if let Some(endpoint) = endpoint.filter(|endpoint| is_loopback(endpoint)) {
        return dynashard::client_for_endpoint(endpoint);
    }
    let mut loader = aws_config::defaults(aws_config::BehaviorVersion::latest())
        .timeout_config(dynashard::Timeouts::default().to_config());
    if let Some(endpoint) = endpoint {
        loader = loader.endpoint_url(endpoint);
    }
    Client::new(&loader.load().await)
}

/// Where requests go, for messages.
pub fn describe_endpoint(endpoint: Option<&str>) -> String {
    endpoint.map_or_else(|| "AWS (from the standard configuration)".to_owned(), str::to_owned)
}

/// Whether an endpoint URL names this machine: `localhost`, `127.x.x.x` or `[::1]`.
pub use dynashard::client::is_loopback_endpoint as is_loopback;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_endpoints() {
        for local in ["http://127.0.0.1:8000", "http://localhost:8000/", "http://[::1]:8000", "127.0.0.2:1"] {
            assert!(is_loopback(local), "{local}");
        }
        for remote in
            ["https://dynamodb.eu-west-1.amazonaws.com", "http://10.0.0.5:8000", "http://localhost.example"]
        {
            assert!(!is_loopback(remote), "{remote}");
        }
    }
}
