//! The shard state of one logical partition key, as the metadata table holds it: the current
//! count, when it last changed, and the history of counts.

use std::time::{SystemTime, UNIX_EPOCH};

/// One change of a shard count: when (unix milliseconds) and to what.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HistoryEntry {
    /// When the count changed, in unix milliseconds.
    pub at: u64,
    /// The count from then on.
    pub count: u32,
}

impl HistoryEntry {
    /// The entry's form in the `history` string set: `"<unix ms>:<count>"`.
    pub fn encode(&self) -> String {
        format!("{}:{}", self.at, self.count)
    }

    /// Reads `"<unix ms>:<count>"`.
    pub fn decode(text: &str) -> Option<Self> {
        let (at, count) = text.split_once(':')?;
        Some(Self { at: at.parse().ok()?, count: count.parse().ok()? })
    }
}

/// The shard state of one logical partition key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardState {
    /// The number of shards writes spread over now (`0..count`).
    pub count: u32,
    /// When the count last changed, in unix milliseconds (the optimistic lock of a raise).
    pub last_changed: u64,
    /// Every change of the count, oldest first.
    pub history: Vec<HistoryEntry>,
}

impl ShardState {
    /// The state of a key that has never been written: one shard.
    pub fn first(now: u64) -> Self {
        Self { count: 1, last_changed: now, history: vec![HistoryEntry { at: now, count: 1 }] }
    }

    /// The shards that may hold items: `0..readable()`. After the count is lowered, shards
    /// above it may still hold items written before, so readers read up to the largest count
    /// the history records.
    pub fn readable(&self) -> u32 {
        self.history.iter().map(|entry| entry.count).chain([self.count]).max().unwrap_or(1).max(1)
    }

    /// Whether the cooldown since the last change has passed at `now`.
    pub fn cooled_down(&self, now: u64, cooldown_ms: u64) -> bool {
        now.saturating_sub(self.last_changed) >= cooldown_ms
    }
}

/// The current time in unix milliseconds.
pub fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_entries_round_trip() {
        let entry = HistoryEntry { at: 1_562_858_912_000, count: 2 };
        assert_eq!(entry.encode(), "1562858912000:2");
        assert_eq!(HistoryEntry::decode(&entry.encode()), Some(entry));
        assert_eq!(HistoryEntry::decode("12"), None);
        assert_eq!(HistoryEntry::decode("a:2"), None);
    }

    #[test]
    fn readers_keep_reading_retired_shards() {
        let mut state = ShardState::first(0);
        state.history.push(HistoryEntry { at: 10, count: 8 });
        state.history.push(HistoryEntry { at: 20, count: 3 });
        state.count = 3;
        state.last_changed = 20;
        assert_eq!(state.readable(), 8);
        assert!(state.cooled_down(30, 10));
        assert!(!state.cooled_down(25, 10));
    }
}
