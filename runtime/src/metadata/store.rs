//! What the shard metadata table's I/O uses of a `Db`: its client and its retry policy, so
//! that this module needs nothing above it.

use crate::retry::RetryPolicy;
use aws_sdk_dynamodb::Client;

/// The connection metadata reads and writes go through.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Store<'a> {
    client: &'a Client,
    retry: RetryPolicy,
}

impl<'a> Store<'a> {
    /// Requests sent with `client`, throttling waited out under `retry`.
    pub fn new(client: &'a Client, retry: RetryPolicy) -> Self {
        Store { client, retry }
    }

    /// The client.
    pub fn client(&self) -> &'a Client {
        self.client
    }

    /// The retry policy throttled requests are sent again under.
    pub fn retry_policy(&self) -> RetryPolicy {
        self.retry
    }
}
