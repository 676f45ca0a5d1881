//! Decoding query results: one entity type, or a collection of several.

use crate::error::{Item, Result};

/// A type a query can yield: an entity (`#[derive(Entity)]`) or a collection of entities sharing
/// a partition (`#[derive(Collection)]`).
pub trait FromItem: Sized + Send + 'static {
    /// The entity types it decodes (the values of the entity-type attribute).
    const TYPE_NAMES: &'static [&'static str];

    /// Decodes one item. `Ok(None)` skips it: an item of another entity type when the query
    /// asked to [skip other types](super::Query::skip_other_types).
    fn from_item(item: Item, skip_other_types: bool) -> Result<Option<Self>>;
}
