//! Index key attributes: how entities fill global secondary indexes, on put and on update.
//!
//! An entity maps an index with key templates (`#[gsi(GSI1(pk = "album", sk = "{title}"))]`),
//! and dynashard writes the index's key attributes on every put. A sparse index
//! (`#[sparse_gsi(...)]`) gets its key attributes only when every optional field its templates
//! use is present (or its `when` predicate holds); otherwise they are absent and the item is not
//! in the index. Updates that change a field used by an index template recompute the index key
//! attributes, or remove them when the item leaves a sparse index.

mod added;
mod sink;

use crate::error::{Error, Item, Result};
pub use added::AddedMapping;
use aws_sdk_dynamodb::types::AttributeValue;
use serde::de::DeserializeOwned;
pub use sink::IndexKeys;
use std::collections::HashMap;

/// A change to one index key attribute, produced by an update.
#[derive(Debug, Clone, PartialEq)]
pub enum IndexKeyUpdate {
    /// Set the attribute to the value.
    Set(&'static str, AttributeValue),
    /// Remove the attribute (the item leaves a sparse index).
    Remove(&'static str),
}

/// The new values of the fields an update touches, by attribute name (`None`: removed).
#[derive(Debug, Default)]
pub struct FieldChanges {
    values: HashMap<&'static str, Option<AttributeValue>>,
    added: Vec<&'static str>,
    /// An upsert: the item may be created, so the indexes keyed on key fields alone are
    /// written too.
    creates: bool,
}

impl FieldChanges {
    /// Records that `attribute` is set to `value`.
    pub fn set(&mut self, attribute: &'static str, value: AttributeValue) {
        self.values.insert(attribute, Some(value));
    }

    /// Records that `attribute` is removed.
    pub fn remove(&mut self, attribute: &'static str) {
        self.values.insert(attribute, None);
    }

    /// Records that `attribute` changes in a way only DynamoDB knows the result of (a number
    /// added, a list extended, a nested value set).
    pub fn add(&mut self, attribute: &'static str) {
        self.added.push(attribute);
    }

    /// Records that the update may create the item (an upsert).
    pub fn create(&mut self) {
        self.creates = true;
    }

    /// Whether the update may create the item (an upsert).
    pub fn creates(&self) -> bool {
        self.creates
    }

    /// Whether the update touches any of `attributes`.
    pub fn touches(&self, attributes: &[&str]) -> bool {
        attributes.iter().any(|a| self.values.contains_key(a) || self.added.contains(a))
    }

    /// The new value of a field the update sets or removes, read as `T`; `None` when the update
    /// leaves the field alone.
    ///
    /// Fails when the field is changed in place (`add`, `subtract`, `append`, a nested value: its
    /// new value is only known to DynamoDB)
    /// or when the value does not deserialize.
    pub fn value<T: DeserializeOwned>(
        &self,
        index: &'static str,
        attribute: &'static str,
    ) -> Option<Result<T>> {
        if self.added.contains(&attribute) {
            return Some(Err(Error::IndexKeyIncomplete {
                index,
                field: attribute,
                reason: "it is part of the index key, so set it whole instead of changing it in place",
            }));
        }
        let value = self.values.get(attribute)?;
        let value = value.clone().unwrap_or(AttributeValue::Null(true));
        Some(serde_dynamo::from_attribute_value(value).map_err(Error::from))
    }

    /// The error for an index whose key needs a field the update does not set.
    pub fn missing(index: &'static str, attribute: &'static str) -> Error {
        Error::IndexKeyIncomplete {
            index,
            field: attribute,
            reason: "the update changes this index's key, so it must also set this field",
        }
    }
}

/// Inserts a composed index key attribute into an item.
pub(crate) fn insert_key(item: &mut Item, attribute: &'static str, value: String) -> Result<()> {
    match item.insert(attribute.to_owned(), AttributeValue::S(value)) {
        None => Ok(()),
        Some(_) => Err(Error::ReservedAttribute { attribute: attribute.to_owned() }),
    }
}

/// Finds an index by name in a table's definition, at compile time.
///
/// Generated code calls this in a constant, so a mapping to an index the table does not declare
/// fails to compile.
pub const fn find_index(
    indexes: &'static [crate::table::IndexDefinition],
    name: &str,
) -> Option<&'static crate::table::IndexDefinition> {
    let mut position = 0;
    while position < indexes.len() {
        if const_str_eq(indexes[position].name, name) {
            return Some(&indexes[position]);
        }
        position += 1;
    }
    None
}

/// String equality usable in constants.
pub const fn const_str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut position = 0;
    while position < a.len() {
        if a[position] != b[position] {
            return false;
        }
        position += 1;
    }
    true
}

/// The name of the key attribute at `position`, or `""` when there is none (a shape mismatch
/// that a separate compile-time check reports).
pub const fn attribute_name(
    attributes: &'static [crate::table::KeyAttribute],
    position: usize,
) -> &'static str {
    if position < attributes.len() {
        attributes[position].name
    } else {
        ""
    }
}

/// The base-table key values of a complete item (partition key, then sort key or `""`), for the
/// tiebreak of range-sharded sort keys.
pub fn base_key_of(item: &Item, table: &crate::table::TableDefinition) -> (String, String) {
    let text = |name: Option<&str>| {
        name.and_then(|name| item.get(name)).and_then(|value| value.as_s().ok()).cloned().unwrap_or_default()
    };
    (text(Some(table.partition_key)), text(table.sort_key))
}
