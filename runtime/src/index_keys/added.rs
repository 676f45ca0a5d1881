//! A mapping added to an entity whose items exist (`#[gsi(Index(..., added))]`), as the derive
//! describes it: the migration that gives every existing item its keys reads this.

/// An index mapping declared `added`, as the derive describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddedMapping {
    /// The index it maps.
    pub index: &'static str,
    /// The stored attributes its keys are composed from (its templates' fields and the fields
    /// its shard is picked by), key fields aside: an item's keys change only with these.
    pub reads: &'static [&'static str],
    /// Whether a `when` predicate decides the item's membership: it may read any field.
    pub whole: bool,
}
