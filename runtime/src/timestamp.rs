//! `#[created_at]` and `#[updated_at]`: the values dynashard writes into them.

use time::OffsetDateTime;

/// A type a `#[created_at]` or `#[updated_at]` field can have: dynashard writes the time of the
/// write into it (one instant for both fields of a write).
///
/// Implemented for `time::OffsetDateTime` (in UTC) and for an `Option` of a timestamp. Implement
/// it for a newtype to keep times in another crate's type or as a number.
///
/// ```
/// use dynashard::Timestamp;
/// use serde::{Deserialize, Serialize};
///
/// /// Milliseconds since the Unix epoch.
/// #[derive(Serialize, Deserialize)]
/// struct Millis(i64);
///
/// impl Timestamp for Millis {
///     fn from_time(time: time::OffsetDateTime) -> Self {
///         Millis((time.unix_timestamp_nanos() / 1_000_000) as i64)
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold a `#[created_at]` or `#[updated_at]` time",
    label = "dynashard writes the current time into this field",
    note = "use `time::OffsetDateTime` (or an `Option` of it), or implement `dynashard::Timestamp`"
)]
pub trait Timestamp: Sized {
    /// The value for the instant `time` (in UTC).
    fn from_time(time: OffsetDateTime) -> Self;
}

impl Timestamp for OffsetDateTime {
    fn from_time(time: OffsetDateTime) -> Self {
        time
    }
}

impl<T: Timestamp> Timestamp for Option<T> {
    fn from_time(time: OffsetDateTime) -> Self {
        Some(T::from_time(time))
    }
}

/// The attributes of a generated timestamp record (one field, as the entity's field stores it).
pub fn stamp_attributes<S: serde::Serialize>(stamp: &S) -> crate::error::Result<crate::error::Item> {
    Ok(serde_dynamo::to_item(stamp)?)
}

/// A generated timestamp record read from `attribute` of `item`, if the item has it.
pub fn read_stamp<S: serde::de::DeserializeOwned>(
    item: &crate::error::Item,
    attribute: &str,
) -> crate::error::Result<Option<S>> {
    let Some(value) = item.get(attribute) else { return Ok(None) };
    let one = crate::error::Item::from([(attribute.to_owned(), value.clone())]);
    Ok(Some(serde_dynamo::from_item(one)?))
}
