//! A composed primary key, as plain data.

/// A composed primary key: partition key value and, for tables with one, sort key value.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct PrimaryKey {
    /// The partition key value.
    pub pk: String,
    /// The sort key value.
    pub sk: Option<String>,
}
