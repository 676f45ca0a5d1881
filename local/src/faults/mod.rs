//! Fault injection for tests.
//!
//! DynamoDB Local never throttles and never leaves batch entries unprocessed, so code that must
//! cope with both is hard to test against it. A [`FaultInjector`] is an SDK interceptor that makes
//! a client see what DynamoDB does under load, at configurable rates:
//!
//! - **throttling**: the attempt fails with HTTP 400 `ProvisionedThroughputExceededException`
//!   (so [`dynashard::Error::is_throttled`] holds and the SDK's retry classifier treats it as
//!   throttling), and the request does not take effect;
//! - **server errors**: the attempt fails with HTTP 500 `InternalServerError`, and the request
//!   does not take effect;
//! - **unprocessed entries**: a random part of a `BatchWriteItem` (write requests) or
//!   `BatchGetItem` (keys) is taken out of the request before it is sent and returned in
//!   `UnprocessedItems` / `UnprocessedKeys`, exactly as DynamoDB would.
//!
//! Requests are rewritten before they are signed: a throttled or failed request goes out as a
//! `ListTables` call with an empty body, and its response is replaced. Responses that gain
//! unprocessed entries are rewritten as the SDK reads them, without their `x-amz-crc32` and
//! `Content-Length` headers.
//!
//! ```no_run
//! # async fn example(endpoint: &str) {
//! use dynashard_local::faults::FaultInjector;
//!
//! let faults = FaultInjector::new(7).throttling(0.3).without_sdk_retries();
//! let client = faults.client_for_endpoint(endpoint); // e.g. DynamoDB Local's
//! let result = client.list_tables().send().await; // fails about every third time
//! println!("{result:?} {:?}", faults.stats().operation("ListTables"));
//! # }
//! ```

mod batch;
pub(crate) mod body;
mod error;
mod injector;
mod interceptor;
mod plan;
mod shared;
mod stats;

pub use error::FaultError;
pub use injector::FaultInjector;
pub use interceptor::FaultInterceptor;
pub use stats::{FaultStats, OperationStats};
