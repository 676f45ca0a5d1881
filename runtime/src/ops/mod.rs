//! The operations on items: put, get, update, delete, batch writes, and table administration.

mod admin;
mod batch_get;
mod batch_write;
mod delete;
mod get;
mod put;
mod unprocessed;
mod update;
mod verify;

pub use batch_get::{BatchGet, PerKey};
pub use batch_write::{BatchVersions, BatchWrite, EntityTypes, TableBatch};
pub use delete::Delete;
pub use get::Get;
pub use put::Put;
pub(crate) use put::{read_back_timestamps, PutParts, PutRequest};
pub use update::{Numeric, Update};
pub use verify::TableDifference;
