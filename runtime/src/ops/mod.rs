//! The operations on one item: put, get, update, delete, and table administration.

mod admin;
mod conditional;
mod delete;
mod get;
mod put;
pub(crate) mod request;
mod update;

pub use delete::Delete;
pub use get::Get;
pub(crate) use put::reshardable;
pub use put::Put;
pub use update::{Numeric, Update};
