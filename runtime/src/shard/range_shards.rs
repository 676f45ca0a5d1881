//! The boundaries a range-sharded index routes by, replaceable at run time.
//!
//! `#[shard(INDEX(range = "file.json", by = field))]` compiles the file's boundaries into the
//! crate; they are the index's boundaries until the program supplies others, for example ones
//! computed by `dynashard boundaries` and loaded from configuration. Writes route by the
//! boundaries current when the item is built; a query reads with the boundaries current when it
//! is built, so its shard ids and its pruning always agree, and its cursors record their
//! fingerprint (a cursor from other boundaries is rejected with
//! [`CursorError::LayoutChanged`](crate::query::CursorError::LayoutChanged)).
//!
//! Boundaries are process-wide, one set per entity and index, not one per [`Db`](crate::Db):
//! they decide where an item is stored, so every writer of a table must use the same ones, and
//! a key, an item or a query is built without a `Db` (`Album::query_by_title()`,
//! [`crate::item::to_item`]). Two `Db`s of one process routing one index differently would
//! each write where the other does not read. Replacing them does not move stored items: items
//! written under the old boundaries stay in the shards those chose. Supply the boundaries before
//! the first write, or move the items (resharding) when changing them.

use super::boundaries::Boundaries;
use arc_swap::{ArcSwap, Guard};
use std::sync::Arc;

/// The current boundaries of one range-sharded index mapping, and the ones compiled in.
#[derive(Debug)]
pub struct RangeShards {
    compiled: Arc<Boundaries>,
    current: ArcSwap<Boundaries>,
}

impl RangeShards {
    /// Starts from the compiled boundaries. Generated code calls this.
    #[doc(hidden)]
    pub fn new(compiled: Boundaries) -> Self {
        let compiled = Arc::new(compiled);
        Self { current: ArcSwap::new(compiled.clone()), compiled }
    }

    /// The boundaries in use now.
    pub fn current(&self) -> Arc<Boundaries> {
        self.current.load_full()
    }

    /// The boundaries in use now, without touching the reference count (for routing one write).
    #[doc(hidden)]
    pub fn load(&self) -> Guard<Arc<Boundaries>> {
        self.current.load()
    }

    /// The boundaries compiled into the crate.
    pub fn compiled(&self) -> Arc<Boundaries> {
        self.compiled.clone()
    }

    /// Replaces the boundaries in use; returns the ones they replace.
    pub fn replace(&self, boundaries: Boundaries) -> Arc<Boundaries> {
        self.current.swap(Arc::new(boundaries))
    }

    /// Goes back to the compiled boundaries; returns the ones they replace.
    pub fn reset(&self) -> Arc<Boundaries> {
        self.current.swap(self.compiled.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boundaries(values: &[&str]) -> Boundaries {
        Boundaries::from_checked(values)
    }

    #[test]
    fn replace_and_reset() {
        let shards = RangeShards::new(boundaries(&["", "m"]));
        assert_eq!(shards.current().shards(), 2);
        let previous = shards.replace(boundaries(&["", "g", "p"]));
        assert_eq!(previous.values(), ["", "m"]);
        assert_eq!(shards.current().shards(), 3);
        assert_eq!(shards.load().shard_of_normalized("h"), 1);
        assert_eq!(shards.compiled().shards(), 2);
        assert_eq!(shards.reset().shards(), 3);
        assert_eq!(shards.current().values(), ["", "m"]);
    }
}
