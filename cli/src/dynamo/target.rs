//! The table or index a command reads, checked against DynamoDB before any scan.

use crate::error::CliError;
use aws_sdk_dynamodb::error::DisplayErrorContext;
use aws_sdk_dynamodb::types::{KeySchemaElement, KeyType};
use aws_sdk_dynamodb::Client;

/// A table, or one of its indexes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The table name.
    pub table: String,
    /// The index name, if an index is read.
    pub index: Option<String>,
}

impl std::fmt::Display for Target {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.index {
            Some(index) => write!(formatter, "{} (index {index})", self.table),
            None => write!(formatter, "{}", self.table),
        }
    }
}

/// What DynamoDB says about a target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    /// The partition key attribute of the table or index.
    pub partition_key: String,
    /// DynamoDB's item count estimate (refreshed about every six hours on AWS).
    pub item_count: Option<u64>,
}

/// Checks that the table (and index) exist and returns their partition key and item count.
/// A missing table or index is [`CliError::TableNotFound`] / [`CliError::IndexNotFound`].
pub async fn describe(client: &Client, target: &Target, endpoint: &str) -> Result<Shape, CliError> {
    let output = client.describe_table().table_name(&target.table).send().await.map_err(|error| {
        if error.as_service_error().is_some_and(|service| service.is_resource_not_found_exception()) {
            CliError::TableNotFound { table: target.table.clone(), endpoint: endpoint.to_owned() }
        } else {
            CliError::Dynamo {
                context: format!("describing table {} at {endpoint}", target.table),
                message: DisplayErrorContext(&error).to_string(),
            }
        }
    })?;
    let table = output.table().ok_or_else(|| CliError::TableNotFound {
        table: target.table.clone(),
        endpoint: endpoint.to_owned(),
    })?;
    let table_key = partition_key(table.key_schema());
    let item_count = |count: Option<i64>| count.and_then(|count| u64::try_from(count).ok());
    let Some(index) = &target.index else {
        return Ok(Shape { partition_key: table_key, item_count: item_count(table.item_count()) });
    };
    if let Some(global) =
        table.global_secondary_indexes().iter().find(|g| g.index_name() == Some(index.as_str()))
    {
        return Ok(Shape {
            partition_key: partition_key(global.key_schema()),
            item_count: item_count(global.item_count()),
        });
    }
    if let Some(local) =
        table.local_secondary_indexes().iter().find(|l| l.index_name() == Some(index.as_str()))
    {
        return Ok(Shape { partition_key: table_key, item_count: item_count(local.item_count()) });
    }
    let available = table
        .global_secondary_indexes()
        .iter()
        .filter_map(|g| g.index_name())
        .chain(table.local_secondary_indexes().iter().filter_map(|l| l.index_name()))
        .map(str::to_owned)
        .collect();
    Err(CliError::IndexNotFound { table: target.table.clone(), index: index.clone(), available })
}

fn partition_key(schema: &[KeySchemaElement]) -> String {
    schema
        .iter()
        .find(|element| element.key_type() == &KeyType::Hash)
        .map(|element| element.attribute_name().to_owned())
        .unwrap_or_default()
}
