//! A migration as declared in code: what it changes, and the index its steps name.

use super::MigrationKind;
use crate::index::Index;
use crate::shard::Layout;
use std::fmt;

/// A change of an entity's declaration that moves its stored items while writers and readers go
/// on, started by [`Db::start_migration`](crate::Db::start_migration) and taken step by step
/// (backfill, verification, cut-over, finish) by the index [`Migration::index`] names.
pub struct Migration<T> {
    kind: MigrationKind,
    source: Index<T>,
    target: Index<T>,
    layout: Layout,
}

impl<T> Migration<T> {
    /// Gives every existing item of the entity its keys in `index`, a mapping the entity
    /// declares `added` (`#[gsi(ByEmail(pk = "...", sk = "...", added))]`). Until the cut-over,
    /// queries of the mapping fail with [`Error::MappingIncomplete`](crate::Error::MappingIncomplete)
    /// unless they accept a partial answer ([`Query::accept_partial`](crate::Query::accept_partial)).
    pub fn add_mapping(index: Index<T>) -> Self {
        Self { kind: MigrationKind::AddMapping, source: index, target: index, layout: Layout::Unsharded }
    }

    /// Moves the hash- or range-sharded mapping of `source` to `layout`, held by the spare index
    /// `target` (see [`Db::start_resharding`](crate::Db::start_resharding)).
    pub fn reshard(source: Index<T>, target: Index<T>, layout: Layout) -> Self {
        Self { kind: MigrationKind::Reshard, source, target, layout }
    }

    /// What it changes.
    pub fn kind(&self) -> MigrationKind {
        self.kind
    }

    /// The index its steps name: the resharded index, or the added one.
    pub fn index(&self) -> Index<T> {
        self.source
    }

    /// The index that holds the items' new places.
    pub fn target(&self) -> Index<T> {
        self.target
    }

    /// The layout of the items' new places (`Layout::Unsharded` when the entity declares it).
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
}

impl<T> Clone for Migration<T> {
    fn clone(&self) -> Self {
        Self { kind: self.kind, source: self.source, target: self.target, layout: self.layout.clone() }
    }
}

impl<T> fmt::Debug for Migration<T> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("Migration")
            .field("kind", &self.kind)
            .field("index", &self.source.name())
            .field("target", &self.target.name())
            .field("layout", &self.layout.describe())
            .finish()
    }
}
