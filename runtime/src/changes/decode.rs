//! Reading a record as an entity or a collection: which kind of item it is, and its images.

use super::{invalid, ChangeKind, ChangeRecord};
use crate::collection::Collection;
use crate::entity::{Entity, PrimaryKey};
use crate::error::{Item, Result};
use crate::query::FromItem;
use crate::table::{Table, TableDefinition};
use aws_sdk_dynamodb::types::AttributeValue;
use time::OffsetDateTime;

/// What one stream record is, read as `T`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Change<T> {
    /// A change of an item of `T`.
    Item(ItemChange<T>),
    /// A change of an item of an entity type `T` does not read (`type_name`), or of an item
    /// without an entity type (`None`).
    Unknown {
        /// What happened to the item.
        kind: ChangeKind,
        /// Its key.
        key: PrimaryKey,
        /// Its entity type, from whichever image the record holds.
        type_name: Option<String>,
    },
    /// A change recorded by a stream that holds keys only: the item's type is not known.
    KeysOnly {
        /// What happened to the item.
        kind: ChangeKind,
        /// Its key.
        key: PrimaryKey,
    },
    /// A change of a shard metadata item (a dynamic shard count or a resharding record), which
    /// has none of the table's key attributes.
    ShardMetadata {
        /// What happened to the item.
        kind: ChangeKind,
        /// Its key attributes.
        keys: Item,
    },
}

/// A change of one item of `T`: its images, decoded.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ItemChange<T> {
    /// What happened to the item.
    pub kind: ChangeKind,
    /// Its key.
    pub key: PrimaryKey,
    /// The item before the change, when the stream holds old images and it was of `T`.
    pub old: Option<T>,
    /// The item after the change, when the stream holds new images and it is of `T`.
    pub new: Option<T>,
    /// Whether time to live deleted it.
    pub by_time_to_live: bool,
    /// The record's position in its shard of the stream.
    pub sequence_number: Option<String>,
    /// About when the change was made.
    pub approximate_time: Option<OffsetDateTime>,
}

impl ChangeRecord {
    /// Reads the record as a change of an `E`.
    ///
    /// Fails only when an image of `E`'s type does not decode as `E`, or when the record's key
    /// attributes are not strings.
    pub fn decode<E: Entity + FromItem>(&self) -> Result<Change<E>> {
        self.decode_in::<E>(<E::Table as Table>::DEFINITION_REF)
    }

    /// Reads the record as a change of a member of collection `C`.
    pub fn decode_member<C: Collection>(&self) -> Result<Change<C>> {
        self.decode_in::<C>(<C::Table as Table>::DEFINITION_REF)
    }

    fn decode_in<T: FromItem>(&self, table: &TableDefinition) -> Result<Change<T>> {
        let kind = self.kind;
        if !self.keys.contains_key(table.partition_key) {
            if self.keys.contains_key(crate::metadata::table::PARTITION) {
                return Ok(Change::ShardMetadata { kind, keys: self.keys.clone() });
            }
            return Err(invalid(format!(
                "its keys lack the table's partition key `{}`",
                table.partition_key
            )));
        }
        let key = primary_key(&self.keys, table)?;
        let images = [&self.old_image, &self.new_image];
        if images.iter().all(|image| image.is_none()) {
            return Ok(Change::KeysOnly { kind, key });
        }
        let decode = |image: &Option<Item>| match image {
            Some(image) => T::from_item(image.clone(), true),
            None => Ok(None),
        };
        let (old, new) = (decode(&self.old_image)?, decode(&self.new_image)?);
        if old.is_none() && new.is_none() {
            let type_name = images
                .iter()
                .filter_map(|image| image.as_ref()?.get(table.type_attribute))
                .find_map(|value| value.as_s().ok().cloned());
            return Ok(Change::Unknown { kind, key, type_name });
        }
        Ok(Change::Item(ItemChange {
            kind,
            key,
            old,
            new,
            by_time_to_live: self.by_time_to_live,
            sequence_number: self.sequence_number.clone(),
            approximate_time: self.approximate_time,
        }))
    }
}

/// The table's key from a record's key attributes.
fn primary_key(keys: &Item, table: &TableDefinition) -> Result<PrimaryKey> {
    let text = |name: &str| match keys.get(name) {
        Some(AttributeValue::S(value)) => Ok(Some(value.clone())),
        Some(_) => Err(invalid(format!("key attribute `{name}` is not a string"))),
        None => Ok(None),
    };
    let pk = text(table.partition_key)?.unwrap_or_default();
    let sk = match table.sort_key {
        Some(name) => {
            Some(text(name)?.ok_or_else(|| invalid(format!("its keys lack the sort key `{name}`")))?)
        }
        None => None,
    };
    Ok(PrimaryKey { pk, sk })
}
