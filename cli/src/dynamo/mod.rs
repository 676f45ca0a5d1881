//! DynamoDB at the edges: the client, the table or index a command reads, and parallel scans.

pub mod client;
pub mod scan;
pub mod target;

pub use client::{client, describe_endpoint};
pub use scan::{scan_attribute, Page};
pub use target::{describe, Shape, Target};
