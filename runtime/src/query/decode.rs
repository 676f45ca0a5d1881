//! Decoding query results: one entity type, or a collection of several.

use crate::error::{Item, Result};

/// A type a query can yield: an entity (`#[derive(Entity)]`) or a collection of entities sharing
/// a partition (`#[derive(Collection)]`).
#[diagnostic::on_unimplemented(
    message = "a query cannot yield `{Self}`",
    label = "not an entity, a collection or a view",
    note = "a query on an index that does not hold every attribute of its entity yields `Projected<Entity, _>`: \
            read the full items with `.hydrate()`, or a view whose attributes the index holds with `.view::<V>()`"
)]
pub trait FromItem: Sized + Send + 'static {
    /// The entity types it decodes (the values of the entity-type attribute).
    const TYPE_NAMES: &'static [&'static str];

    /// Decodes one item. `Ok(None)` skips it: an item of another entity type when the query
    /// asked to [skip other types](super::Query::skip_other_types).
    fn from_item(item: Item, skip_other_types: bool) -> Result<Option<Self>>;
}
