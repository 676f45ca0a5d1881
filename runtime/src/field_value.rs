//! What a field of type `T` can be compared with or set to, so that literals need no suffix or
//! conversion: `year.gt(2000)` on a `u16`, `title.eq("x")` on a `String`, `set(rating, 5)` on an
//! `Option<u8>`.

use crate::error::Result;
use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;

/// A value for a field of type `T`: a `T` or a `&T`, a `&str` for a `String` (or
/// `Option<String>`) field, and a `T` for an `Option<T>` field.
///
/// ```
/// # use dynashard::{Entity, Table};
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Table)] #[table(name = "Music", pk = "pk", sk = "sk")] struct Music;
/// #[derive(Entity, Serialize, Deserialize)]
/// #[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
/// struct Album { artist: String, title: String, year: u16, label: Option<String>, plays: u64 }
///
/// let fields = Album::fields();
/// let recent = fields.year.ge(2000).and(fields.label.eq("Ultimae Records"));
/// let unplayed = fields.plays.eq(0);
/// # drop((recent, unplayed));
/// ```
pub trait FieldValue<T: ?Sized> {
    /// The value as DynamoDB stores it (as the field would be stored by a put).
    fn to_attribute(&self) -> Result<AttributeValue>;
}

fn serialize(value: &impl Serialize) -> Result<AttributeValue> {
    Ok(serde_dynamo::to_attribute_value(value)?)
}

impl<T: Serialize> FieldValue<T> for T {
    fn to_attribute(&self) -> Result<AttributeValue> {
        serialize(self)
    }
}

impl<T: Serialize> FieldValue<T> for &T {
    fn to_attribute(&self) -> Result<AttributeValue> {
        serialize(*self)
    }
}

impl<T: Serialize> FieldValue<Option<T>> for T {
    fn to_attribute(&self) -> Result<AttributeValue> {
        serialize(self)
    }
}

impl FieldValue<String> for &str {
    fn to_attribute(&self) -> Result<AttributeValue> {
        Ok(AttributeValue::S((*self).to_owned()))
    }
}

impl FieldValue<Option<String>> for &str {
    fn to_attribute(&self) -> Result<AttributeValue> {
        Ok(AttributeValue::S((*self).to_owned()))
    }
}
