//! The operations on one item: put, get, update, delete, and table administration.

mod admin;
mod delete;
mod get;
mod put;
mod update;

pub use delete::Delete;
pub use get::Get;
pub use put::Put;
pub use update::{Numeric, Update};
