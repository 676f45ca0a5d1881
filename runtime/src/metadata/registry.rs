//! Which shard metadata a `Db` keeps for each table it writes: the one it was given, or the one
//! each table declares, shared by its clones.

use super::ShardMetadata;
use crate::error::{Error, Result};
use crate::table::TableDefinition;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// The shard metadata of a `Db`'s tables.
#[derive(Debug, Clone, Default)]
pub(crate) struct Registry {
    /// The shard metadata it was given, for every table it writes.
    given: Option<Arc<ShardMetadata>>,
    /// The shard metadata tables declared by the tables it wrote, by name.
    declared: Arc<Mutex<HashMap<&'static str, Arc<ShardMetadata>>>>,
}

impl Registry {
    /// Uses `metadata` for every table.
    pub fn give(&mut self, metadata: ShardMetadata) {
        self.given = Some(Arc::new(metadata));
    }

    /// The shard metadata it was given, if any.
    pub fn given(&self) -> Option<&ShardMetadata> {
        self.given.as_deref()
    }

    /// The shard metadata of `table`: the one given, else the one the table declares (with
    /// default settings), else none.
    pub fn of(&self, table: &TableDefinition) -> Option<Arc<ShardMetadata>> {
        if let Some(metadata) = &self.given {
            return Some(Arc::clone(metadata));
        }
        let name = table.shard_metadata?;
        let mut declared = self.declared.lock().unwrap_or_else(PoisonError::into_inner);
        Some(Arc::clone(declared.entry(name).or_insert_with(|| Arc::new(ShardMetadata::new(name)))))
    }

    /// [`Registry::of`], or [`Error::ShardMetadataNotConfigured`].
    pub fn require(&self, table: &TableDefinition) -> Result<Arc<ShardMetadata>> {
        self.of(table).ok_or(Error::ShardMetadataNotConfigured)
    }
}
