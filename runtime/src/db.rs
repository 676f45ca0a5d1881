//! The `Db` handle: a DynamoDB client plus the table names it addresses.

use crate::entity::Entity;
use crate::table::Table;
use aws_sdk_dynamodb::Client;
use std::collections::HashMap;
use std::sync::Arc;

/// The entry point for reads and writes: wraps an `aws_sdk_dynamodb::Client`.
///
/// Cheap to clone. Table names default to the declared ones; override them per deployment with
/// [`Db::with_table_name`].
#[derive(Clone, Debug)]
pub struct Db {
    client: Client,
    table_names: Arc<HashMap<&'static str, String>>,
}

impl Db {
    /// A handle on `client` using the declared table names.
    pub fn new(client: Client) -> Self {
        Self { client, table_names: Arc::default() }
    }

    /// Uses `name` as the real name of table `T` (e.g. `Music-prod`).
    pub fn with_table_name<T: Table>(mut self, name: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.table_names).insert(T::DEFINITION.name, name.into());
        self
    }

    /// The underlying SDK client, for anything dynashard does not cover.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The real name of table `T`.
    pub fn table_name<T: Table>(&self) -> &str {
        self.name_of(T::DEFINITION.name)
    }

    pub(crate) fn name_of(&self, declared: &'static str) -> &str {
        self.table_names.get(declared).map(String::as_str).unwrap_or(declared)
    }

    pub(crate) fn table_of<E: Entity>(&self) -> &str {
        self.table_name::<E::Table>()
    }
}
