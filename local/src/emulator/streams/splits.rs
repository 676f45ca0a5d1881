//! The splits asked for, and the streams served split: what the emulator keeps of them.

use super::cache::Pulls;
use super::kept::Cache;
use super::shards::ServedStream;
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// The streams served split, and the splits asked for.
#[derive(Debug, Default)]
pub(crate) struct Splits {
    /// By stream ARN. A split holds it for writing, a page being read for reading.
    pub(super) served: tokio::sync::RwLock<HashMap<String, ServedStream>>,
    /// The endpoint's records read so far. Taken after `served`, never before it.
    pub(super) cache: Cache,
    /// Numbers the reads of the endpoint's records into `cache`.
    pub(super) pulls: Pulls,
    /// Children a split makes, by table name, in the order asked.
    asked: Mutex<HashMap<String, Vec<u32>>>,
}

impl Splits {
    /// Asks for a split of `table`'s stream into `children` a shard.
    pub(crate) fn ask(&self, table: &str, children: u32) {
        let mut asked = self.asked.lock().unwrap_or_else(PoisonError::into_inner);
        asked.entry(table.to_owned()).or_default().push(children.max(1));
    }

    /// Whether any split was asked for: until then, the endpoint's streams pass as they are.
    pub(super) fn any(&self) -> bool {
        !self.asked.lock().unwrap_or_else(PoisonError::into_inner).is_empty()
    }

    pub(super) fn take(&self, arn: &str) -> Vec<u32> {
        let mut asked = self.asked.lock().unwrap_or_else(PoisonError::into_inner);
        let table = asked.keys().find(|table| arn.contains(&format!(":table/{table}/stream/"))).cloned();
        table.and_then(|table| asked.get_mut(&table).map(std::mem::take)).unwrap_or_default()
    }
}
