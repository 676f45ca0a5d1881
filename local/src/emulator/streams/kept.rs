//! What the emulator keeps of the endpoint's shards: each one's records, read once and shared by
//! every served shard cut from it, and where each served shard's records are among them.

use super::cache::ReadRecords;
use super::page::Held;
use std::collections::HashMap;
use std::sync::{Arc, PoisonError};

/// What is kept of one endpoint shard: its records, read by every page served from them and
/// written only by a pull appending what it read, and the pull under way. A pull asks the
/// endpoint holding neither the records (pages are served meanwhile) nor any other shard's.
#[derive(Debug, Default)]
pub(crate) struct Kept {
    pub records: tokio::sync::RwLock<ReadRecords>,
    /// Held by the one pull of the shard at a time, from its start to its records appended.
    pub pulling: tokio::sync::Mutex<()>,
    /// Where each served shard's records are among them, by served shard id. Taken while
    /// `records` is held for reading, and not held across an await.
    pub held: std::sync::Mutex<HashMap<String, Held>>,
}

/// What is kept of every endpoint shard, by stream ARN and shard id.
#[derive(Debug, Default)]
pub(crate) struct Cache(std::sync::Mutex<HashMap<(String, String), Arc<Kept>>>);

impl Cache {
    /// What is kept of shard `backend` of stream `arn` (nothing yet, the first time).
    pub fn of(&self, arn: &str, backend: &str) -> Arc<Kept> {
        let mut shards = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(shards.entry((arn.to_owned(), backend.to_owned())).or_default())
    }
}
