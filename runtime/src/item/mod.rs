//! Converting entities to DynamoDB items and back.
//!
//! An entity's item is its serde body (through `serde_dynamo`), plus the key attributes of the
//! table, plus the entity-type attribute that tells items of different types apart on read.
//! Fields that serialize to NULL (`None`) are left out of the item, so "absent" has one meaning:
//! `attribute_not_exists` holds for them and sparse indexes skip them. Reading is unaffected,
//! because serde reads a missing `Option` field as `None`.

mod path;

use crate::entity::{Entity, PrimaryKey};
use crate::error::{Error, Item, Result, Undecodable};
use crate::index_keys::IndexKeys;
pub use crate::item_size::{item_size, value_size, MAX_ITEM_BYTES};
use crate::table::{Table, TableDefinition};
use aws_sdk_dynamodb::types::AttributeValue;

/// The definition of the table an entity lives in.
pub(crate) fn table_of<E: Entity>() -> &'static TableDefinition {
    &<E::Table as Table>::DEFINITION
}

/// Serializes an entity into a complete item: body, key attributes, entity type.
///
/// Fails before any request is sent on an invalid key (of the table or, after shard suffixes and
/// time buckets, of an index), a body that uses a reserved attribute name, or an item over
/// 400 KB.
///
/// An entity with a dynamic-sharded index fails with [`Error::DynamicShardsUnresolved`] here:
/// its shard needs the count that [`crate::Db::put`] reads.
pub fn to_item<E: Entity>(entity: &E) -> Result<Item> {
    to_item_with(entity, &crate::shard::NoDynamicShards)
}

/// [`to_item`], with `chooser` picking the shards of dynamic-sharded indexes.
pub fn to_item_with<E: Entity>(entity: &E, chooser: &dyn crate::shard::ShardChooser) -> Result<Item> {
    let mut item = body(entity)?;
    entity.write_index_keys(&mut IndexKeys::of_item(&mut item, table_of::<E>(), chooser))?;
    check_complete::<E>(&item)?;
    Ok(item)
}

/// The part of an entity's item that no shard layout changes: its serde body, the table's key
/// attributes and the entity-type attribute. Index keys come next
/// ([`Entity::write_index_keys`]), then [`check_complete`].
pub(crate) fn body<E: Entity>(entity: &E) -> Result<Item> {
    let key = entity.primary_key()?;
    let mut item: Item = serde_dynamo::to_item(entity)?;
    item.retain(|_, value| !value.is_null());
    crate::numbers::check_item(&item)?;
    crate::sets::store_sets(&mut item, E::SETS)?;
    check_ttl::<E>(&item)?;
    let table = table_of::<E>();
    insert_reserved(&mut item, table.type_attribute, AttributeValue::S(E::TYPE_NAME.to_owned()))?;
    insert_key(&mut item, table, key)?;
    Ok(item)
}

/// Fails unless the `#[ttl]` field, when present, holds epoch seconds from 1970 to the year
/// 9999 (see [`crate::ttl`]).
fn check_ttl<E: Entity>(item: &Item) -> Result<()> {
    match E::TTL.and_then(|attribute| Some((attribute, item.get(attribute)?))) {
        Some((attribute, value)) => crate::ttl::check(attribute, value),
        None => Ok(()),
    }
}

/// Fails when a complete item of `E` has an index key DynamoDB refuses or is over 400 KB.
pub(crate) fn check_complete<E: Entity>(item: &Item) -> Result<()> {
    crate::index_key_limits::check_item(table_of::<E>(), item)?;
    check_size(item)
}

/// Deserializes an item of entity type `E`, checking its entity-type attribute.
pub fn from_item<E: Entity>(item: Item) -> Result<E> {
    check_type::<E>(&item)?;
    decode_as::<E, E>(item, E::TYPE_NAME)
}

/// Deserializes an item of entity type `E`; an item of another type is skipped (`Ok(None)`)
/// when `skip_other_types`, and an error otherwise.
pub fn from_item_checked<E: Entity>(item: Item, skip_other_types: bool) -> Result<Option<E>> {
    match check_type::<E>(&item) {
        Ok(()) => decode_as::<E, E>(item, E::TYPE_NAME).map(Some),
        Err(_) if skip_other_types => Ok(None),
        Err(error) => Err(error),
    }
}

/// Deserializes an item of entity `E` (its type checked by the caller) as `T`, named `expected`
/// in errors: the entity itself or a view of it. A set missing from the item (empty, or left
/// out by a projection) reads as empty. An item that does not decode is
/// [`Error::Undecodable`], naming its key: the one place every read turns items into values.
pub(crate) fn decode_as<E: Entity, T: serde::de::DeserializeOwned>(
    mut item: Item,
    expected: &'static str,
) -> Result<T> {
    crate::sets::read_sets(&mut item, E::SETS);
    let key = stored_key(&item, table_of::<E>());
    let item: serde_dynamo::Item = item.into();
    let value = serde_dynamo::AttributeValue::M(item.into());
    // The path of the value that did not decode, for the reason: `serde_dynamo` names none.
    path::deserialize(serde_dynamo::Deserializer::from_attribute_value(value)).map_err(|(error, path)| {
        let reason = match path.as_str() {
            "." => error.to_string(),
            path => format!("`{path}`: {error}"),
        };
        Error::Undecodable(Box::new(Undecodable { expected, key, reason }))
    })
}

/// The primary key of a stored item, as its string values (a number key attribute, written by
/// another program, as its digits; any other type described).
pub(crate) fn stored_key(item: &Item, table: &TableDefinition) -> PrimaryKey {
    let text = |name: &str| match item.get(name) {
        Some(AttributeValue::S(value) | AttributeValue::N(value)) => value.clone(),
        Some(AttributeValue::B(bytes)) => format!("<{} bytes>", bytes.as_ref().len()),
        Some(_) => "<not a string>".to_owned(),
        None => String::new(),
    };
    PrimaryKey { pk: text(table.partition_key), sk: table.sort_key.map(text) }
}

/// Fails unless `item` carries the entity-type attribute of `E`.
pub fn check_type<E: Entity>(item: &Item) -> Result<()> {
    let found = item.get(table_of::<E>().type_attribute);
    match found {
        Some(AttributeValue::S(name)) if name == E::TYPE_NAME => Ok(()),
        other => Err(Error::WrongEntityType {
            expected: E::TYPE_NAME,
            found: other.map(|value| match value {
                AttributeValue::S(name) => name.clone(),
                value => format!("{value:?}"),
            }),
        }),
    }
}

/// The primary key attributes of a stored item.
pub(crate) fn key_of(item: &Item, table: &TableDefinition) -> Item {
    [Some(table.partition_key), table.sort_key]
        .into_iter()
        .flatten()
        .filter_map(|name| item.get(name).map(|value| (name.to_owned(), value.clone())))
        .collect()
}

/// The key attributes of a primary key, as the `Key` parameter of a request.
pub fn key_item(table: &TableDefinition, key: &PrimaryKey) -> Item {
    let mut item = Item::with_capacity(2);
    item.insert(table.partition_key.to_owned(), AttributeValue::S(key.pk.clone()));
    if let (Some(name), Some(value)) = (table.sort_key, &key.sk) {
        item.insert(name.to_owned(), AttributeValue::S(value.clone()));
    }
    item
}

fn insert_key(item: &mut Item, table: &TableDefinition, key: PrimaryKey) -> Result<()> {
    insert_reserved(item, table.partition_key, AttributeValue::S(key.pk))?;
    if let (Some(name), Some(value)) = (table.sort_key, key.sk) {
        insert_reserved(item, name, AttributeValue::S(value))?;
    }
    Ok(())
}

fn insert_reserved(item: &mut Item, name: &str, value: AttributeValue) -> Result<()> {
    match item.insert(name.to_owned(), value) {
        None => Ok(()),
        Some(_) => Err(Error::ReservedAttribute { attribute: name.to_owned() }),
    }
}

/// Fails when an item is over DynamoDB's 400 KB limit.
pub fn check_size(item: &Item) -> Result<()> {
    let bytes = item_size(item);
    if bytes > MAX_ITEM_BYTES {
        return Err(Error::ItemTooLarge { bytes, max: MAX_ITEM_BYTES });
    }
    Ok(())
}

/// Reads a numeric attribute as `u64` (used for versions).
pub(crate) fn number_attribute(item: &Item, name: &str) -> Option<u64> {
    match item.get(name) {
        Some(AttributeValue::N(number)) => number.parse().ok(),
        _ => None,
    }
}
