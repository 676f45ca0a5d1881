//! Serving DynamoDB Local on a port of the user's choice: the managed instance always picks a
//! free port of its own, so connections to the chosen port are relayed to it byte for byte.

use std::net::SocketAddr;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};

/// Relays every connection accepted on `listener` to `upstream`, until the future is dropped.
pub async fn relay(listener: TcpListener, upstream: SocketAddr) {
    loop {
        match listener.accept().await {
            Ok((mut client, _)) => {
                tokio::spawn(async move {
                    if let Ok(mut server) = TcpStream::connect(upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
            }
            // Out of file descriptors and the like: wait a little instead of spinning.
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// The loopback address of an endpoint URL such as `http://127.0.0.1:41234`.
pub fn loopback_address(endpoint: &str) -> Option<SocketAddr> {
    let authority = endpoint.split_once("://").map_or(endpoint, |(_, rest)| rest);
    let authority = authority.split('/').next().unwrap_or(authority);
    authority.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_endpoints() {
        assert_eq!(
            loopback_address("http://127.0.0.1:41234"),
            Some(SocketAddr::from(([127, 0, 0, 1], 41234)))
        );
        assert_eq!(
            loopback_address("http://127.0.0.1:8000/"),
            Some(SocketAddr::from(([127, 0, 0, 1], 8000)))
        );
        assert_eq!(loopback_address("http://localhost"), None);
    }
}
