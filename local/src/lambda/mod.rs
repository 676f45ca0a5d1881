//! AWS Lambda's DynamoDB Streams event source, played in process: a stream handler written for
//! Lambda is tried here against a real stream, with the event shapes, batches, retries, partial
//! failures and bisection Lambda documents ([`EventSourceMapping`]).
//!
//! ```no_run
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! use dynashard::changes::StreamBatch;
//! use dynashard_local::lambda::EventSourceMapping;
//!
//! let endpoint = dynashard_local::shared_endpoint().await?;
//! let mut mapping = EventSourceMapping::at(&endpoint, "Shop").batch_size(10);
//! let delivery = mapping
//!     .deliver(|event: serde_json::Value| async move {
//!         let outcome = StreamBatch::from_json(&event.to_string())?
//!             .handle(|record| async move {
//!                 println!("{:?} {:?}", record.kind, record.keys);
//!                 Ok::<(), dynashard::Error>(())
//!             })
//!             .await;
//!         let failures: Vec<serde_json::Value> = outcome
//!             .into_failures()?
//!             .into_iter()
//!             .map(|sequence_number| serde_json::json!({ "itemIdentifier": sequence_number }))
//!             .collect();
//!         Ok::<_, Box<dyn std::error::Error + Send + Sync>>(serde_json::json!({ "batchItemFailures": failures }))
//!     })
//!     .await?;
//! println!("{} invocations", delivery.invocations);
//! # Ok(()) }
//! ```

mod answer;
mod event;
mod mapping;

pub use mapping::{Delivery, EventSourceMapping, MappingError};
