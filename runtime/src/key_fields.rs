//! Reading an entity's key fields back from its primary key, for upserts: a new item needs the
//! attributes of its key fields, which only the key carries.

use crate::entity::PrimaryKey;
use crate::error::{Error, Item, Result};
use crate::key::{DecodeKeyPart, KeyTemplate};
use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;
use std::any::Any;

/// Where one key field is in the primary key: its attribute, the template that holds it and its
/// placeholder position there.
#[derive(Debug, Clone, Copy)]
pub struct KeyField {
    /// The field's attribute.
    pub attribute: &'static str,
    /// The template (partition or sort key) holding it.
    pub template: &'static KeyTemplate,
    /// Its placeholder position in the template.
    pub position: usize,
    /// Whether the template is the partition key of a base table sharded by `#[shard(...)]`:
    /// its shard suffix is dropped before decoding.
    pub sharded_partition: bool,
    /// How a value read back is stored, for a field stored through a serde module (`None`: as
    /// its type serializes).
    pub store: Option<StoreKeyField>,
}

/// Stores a key field's value (boxed, of the field's type) as the entity stores the field.
pub type StoreKeyField = fn(Box<dyn Any>) -> Result<AttributeValue>;

/// Stores `value`, a `T`, through `record`, the generated one-field record carrying the field's
/// serde attributes (generated code).
pub fn store_key_field<T: 'static, S: Serialize>(
    value: Box<dyn Any>,
    record: fn(T) -> S,
) -> Result<AttributeValue> {
    let mismatch = || {
        Error::Conversion(<serde_dynamo::Error as serde::ser::Error>::custom("a key field of another type"))
    };
    let value = value.downcast::<T>().map_err(|_| mismatch())?;
    let item: Item = serde_dynamo::to_item(record(*value))?;
    item.into_values().next().ok_or_else(mismatch)
}

/// The types of an entity's key fields, as a tuple in `Entity::KEY_FIELDS` order, when each can be
/// read back from its encoded form: what [`crate::Db::upsert`] needs.
#[diagnostic::on_unimplemented(
    message = "the key fields of this entity cannot all be read back from a key, which an upsert needs",
    label = "an upsert creates the item with its key fields, read back from the key",
    note = "implement `dynashard::key::DecodeKeyPart` for each custom key field type"
)]
pub trait DecodeKeyFields {
    /// The attributes of the key fields of `key`, as a put would store them.
    fn decode(fields: &[KeyField], key: &PrimaryKey) -> Result<Item>;
}

/// Reads the key field `field` of `key` as a `T`, then as the attribute a put would store.
fn decode_one<T: DecodeKeyPart + Serialize + 'static>(
    field: &KeyField,
    key: &PrimaryKey,
    item: &mut Item,
) -> Result<()> {
    let encoded = match field.template.role {
        crate::key::KeyRole::Partition if field.sharded_partition => crate::shard::logical_partition(&key.pk),
        crate::key::KeyRole::Partition => key.pk.as_str(),
        crate::key::KeyRole::Sort => key.sk.as_deref().unwrap_or_default(),
    };
    let value: T = field.template.decode_field(encoded, field.position)?;
    let stored = match field.store {
        Some(store) => store(Box::new(value))?,
        None => serde_dynamo::to_attribute_value(&value).map_err(Error::from)?,
    };
    item.insert(field.attribute.to_owned(), stored);
    Ok(())
}

macro_rules! key_field_tuples {
    ($(($($name:ident),*)),* $(,)?) => {$(
        impl<$($name: DecodeKeyPart + Serialize + 'static),*> DecodeKeyFields for ($($name,)*) {
            #[allow(unused_variables, unused_mut, non_snake_case)]
            fn decode(fields: &[KeyField], key: &PrimaryKey) -> Result<Item> {
                let mut item = Item::new();
                let mut fields = fields.iter();
                $(
                    if let Some(field) = fields.next() {
                        decode_one::<$name>(field, key, &mut item)?;
                    }
                )*
                Ok(item)
            }
        }
    )*};
}

key_field_tuples!(
    (),
    (A),
    (A, B),
    (A, B, C),
    (A, B, C, D),
    (A, B, C, D, F),
    (A, B, C, D, F, G),
    (A, B, C, D, F, G, H),
    (A, B, C, D, F, G, H, J)
);
