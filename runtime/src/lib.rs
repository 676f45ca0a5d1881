//! # dynashard
//!
//! DynamoDB single-table design for Rust, with write sharding declared on the struct.
//!
//! DynamoDB serves one partition at about 1,000 write and 3,000 read capacity units per second,
//! so a single hot partition key caps a whole table. dynashard composes safe single-table keys
//! from templates, maps entities to items, and (as it grows) shards hot keys declaratively.
//!
//! ```no_run
//! use dynashard::{Db, Entity, Table};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Table)]
//! #[table(name = "Music", pk = "pk", sk = "sk")]
//! struct Music;
//!
//! #[derive(Entity, Serialize, Deserialize, Debug)]
//! #[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
//! struct Album {
//!     artist: String,
//!     title: String,
//!     year: u16,
//! }
//!
//! # async fn example(client: aws_sdk_dynamodb::Client) -> dynashard::Result<()> {
//! let db = Db::new(client);
//! db.create_table::<Music>().await?;
//! db.put(&Album { artist: "Solar Fields".into(), title: "Leaving Home".into(), year: 2007 }).await?;
//! let album = db.get(Album::key("Solar Fields", "Leaving Home")?).await?;
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

mod batch;
mod client;
mod collection;
mod db;
#[cfg(feature = "local")]
pub mod emulator;
mod entity;
mod error;
mod expression;
#[cfg(feature = "fault-injection")]
pub mod faults;
mod field_value;
mod fingerprint;
mod index;
pub(crate) mod index_key_limits;
pub mod index_keys;
pub mod item;
mod item_size;
pub mod key;
#[cfg(feature = "local")]
pub mod local;
mod ops;
mod primary_key;
pub mod query;
mod scan;
pub mod shard;
mod table;
pub mod throttling;
mod transaction;

pub use batch::{BatchGet, BatchWrite, RetryPolicy, Unprocessed};
pub use client::{
    client_for_endpoint, client_for_endpoint_with, client_from_env, client_from_env_with,
    is_loopback_endpoint, Timeouts, ENDPOINT_VARIABLE,
};
pub use collection::Collection;
pub use db::Db;
pub use dynashard_macros::{Collection, Entity, Table};
pub use entity::{Entity, Field, Key, PrimaryKey};
pub use error::{Error, Item, KeyError, Result};
pub use expression::{Condition, Placeholders, RawExpression};
pub use field_value::FieldValue;
pub use index::Index;
pub use item_size::{item_size, MAX_ITEM_BYTES};
pub use key::KeyPart;
pub use ops::{Delete, Get, Numeric, Put, Update};
pub use query::{Page, Query, QueryStream};
pub use scan::Scan;
pub use table::{
    Billing, IndexDefinition, KeyAttribute, ScalarKind, Table, TableDefinition, DEFAULT_TYPE_ATTRIBUTE,
};
pub use throttling::ThrottlingReason;

/// A DynamoDB attribute value, for raw expressions ([`RawExpression::value`]) and raw items
/// ([`Item`]): the AWS SDK's own type, re-exported so that no direct dependency on
/// `aws-sdk-dynamodb` is needed.
///
/// ```
/// use dynashard::{AttributeValue, Condition, RawExpression};
/// let longer = Condition::raw(
///     RawExpression::new("#s > :v").name("#s", "seconds").value(":v", AttributeValue::N("300".into())),
/// );
/// # drop(longer);
/// ```
pub use aws_sdk_dynamodb::types::AttributeValue;
pub use transaction::{
    CancellationReason, IntoDelete, IntoPut, ReasonCode, Transaction, MAX_TRANSACTION_ACTIONS,
    MAX_TRANSACTION_BYTES,
};

/// Re-exports for generated code; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::index_key_limits::check_range_value;
    pub use crate::index_keys::{
        attribute_name, base_key_of, const_str_eq, find_index, insert_key, FieldChanges, IndexKeyUpdate,
    };
    pub use crate::key::{DecodeKeyPart, KeyPart, KeyRole, KeyTemplate, KeyWriter, Segment};
    pub use crate::query::{same_kind, Done, End, FromItem, Native, NativeKeyPart, Next, Query, QueryTarget};
    pub use aws_sdk_dynamodb::types::AttributeValue;
    pub use serde;
    pub use std::option::Option::{self, None, Some};
    pub use std::result::Result::{Err, Ok};
    pub use std::string::String;
    pub use std::vec::Vec;
}
