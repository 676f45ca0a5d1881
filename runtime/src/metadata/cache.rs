//! What a process keeps of the metadata it read: each entry as old as the request that read it.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Entries by metadata key, each with when the request that read it was sent. An answer to a
/// request sent before the cached one's does not replace it: a late answer never undoes a
/// change read meanwhile. And an entry counts as read when its request was sent, not when the
/// answer came, so a process that waits one cache time after a change knows that no process
/// still acts on what was there before it.
#[derive(Debug)]
pub(crate) struct Cache<T> {
    entries: Mutex<HashMap<String, (T, Instant)>>,
}

impl<T> Default for Cache<T> {
    fn default() -> Self {
        Cache { entries: Mutex::default() }
    }
}

impl<T: Clone> Cache<T> {
    /// Keeps `value` for `key`, as read by a request sent at `sent`, unless what is kept was
    /// read by a later one.
    pub fn remember(&self, key: &str, value: T, sent: Instant) {
        let mut entries = self.lock();
        if entries.get(key).is_some_and(|(_, read_at)| *read_at > sent) {
            return;
        }
        entries.insert(key.to_owned(), (value, sent));
    }

    /// What is kept for `key` if it was read within `within`.
    pub fn fresh(&self, key: &str, within: Duration) -> Option<T> {
        let entries = self.lock();
        let (value, read_at) = entries.get(key)?;
        (read_at.elapsed() < within).then(|| value.clone())
    }

    /// What is kept for `key`, however old.
    pub fn any(&self, key: &str) -> Option<T> {
        self.lock().get(key).map(|(value, _)| value.clone())
    }

    /// Drops what is kept for `key`.
    pub fn forget(&self, key: &str) {
        self.lock().remove(key);
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, (T, Instant)>> {
        // A panic while holding the lock leaves a usable map: entries are replaced whole.
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
