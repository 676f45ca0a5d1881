//! Dynamic shard counts at run time: resolving them for writes and reads, raising them after
//! throttling, and setting them by hand.

use crate::db::Db;
use crate::error::{Error, Result};
use crate::metadata::table::{Change, MetadataTable, DEFINITION};
use crate::metadata::{now_ms, ShardMetadata, ShardState};
use crate::table::TableDefinition;
use rand::RngExt;
use std::time::{Duration, Instant};

impl Db {
    /// Creates the shard metadata table this `Db` was given unless it exists (on-demand
    /// capacity), and waits until it is active. ([`Db::create_table`] creates the one a table
    /// declares.)
    pub async fn create_shard_metadata_table(&self) -> Result<()> {
        let table = self.shard_metadata()?.table().to_owned();
        self.create_table_named(&table, &DEFINITION).await
    }
}

/// Creates the shard metadata table of `table`, if it has one, unless it exists.
pub(crate) async fn create_metadata_table_of(db: &Db, table: &TableDefinition) -> Result<()> {
    match db.shards.of(table) {
        Some(metadata) => db.create_table_named(metadata.table(), &DEFINITION).await,
        None => Ok(()),
    }
}

/// The dynamic shard counts kept in one shard metadata table, as a `Db` reads and changes them.
pub(crate) struct Counts<'a> {
    db: &'a Db,
    shards: &'a ShardMetadata,
}

impl<'a> Counts<'a> {
    /// The counts in `shards`, through `db`.
    pub fn new(db: &'a Db, shards: &'a ShardMetadata) -> Self {
        Counts { db, shards }
    }

    /// The state of `key`: cached if fresh, else read, and created with one shard if
    /// missing.
    pub async fn current(&self, key: &str, max: u32) -> Result<ShardState> {
        let metadata = MetadataTable { db: self.db.into(), table: self.shards.table() };
        if let Some(state) = self.shards.fresh(key) {
            return Ok(state);
        }
        let sent = Instant::now();
        let state = match metadata.read(key, max).await? {
            Some(state) => state,
            None => match metadata.create(key, &ShardState::first(now_ms())).await? {
                Change::Written(state) => state,
                Change::Lost => {
                    metadata.read(key, max).await?.ok_or_else(|| Error::ShardMetadataMalformed {
                        partition: key.to_owned(),
                        reason: "created by another writer, then gone".to_owned(),
                    })?
                }
            },
        };
        self.shards.remember(key, &state, sent);
        Ok(state)
    }

    /// After a throttled write to `key`'s shards: waits a random back-off, then raises the count
    /// unless it changed since it was read, changed within the cooldown (or within the cache
    /// time, if that is longer: until every writer has read the last change), or is at `max`. The
    /// throttling is sustained when it comes within two cooldowns of the last change (the
    /// raise before did not relieve it): then the count doubles, to `max` at most, so a burst
    /// reaches the count it needs in a few cooldowns (1, 2, 4, 8, ...), at most twice that. A
    /// throttle long after the last change (a shard of a settled count over its limit now and
    /// then) adds one shard.
    pub async fn grow_after_throttle(&self, key: &str, max: u32) -> Result<()> {
        let metadata = MetadataTable { db: self.db.into(), table: self.shards.table() };
        let observed = match self.shards.cached(key) {
            Some(state) => state,
            None => self.current(key, max).await?,
        };
        // A raise is judged on writers that all see the count it follows: no sooner than every
        // process's cached count has expired (writers still on the count before it load its
        // first shards, which would read as the raise not having helped).
        let cooldown = self.shards.raise_interval().as_millis() as u64;
        if observed.count >= max || !observed.cooled_down(now_ms(), cooldown) {
            return Ok(());
        }
        let backoff = self.shards.backoff.as_millis() as u64;
        if backoff > 0 {
            let wait = rand::rng().random_range(0..=backoff);
            tokio::time::sleep(Duration::from_millis(wait)).await;
        }
        let read_sent = Instant::now();
        let Some(current) = metadata.read(key, max).await? else { return Ok(()) };
        self.shards.remember(key, &current, read_sent);
        let now = now_ms();
        if current.last_changed != observed.last_changed || !current.cooled_down(now, cooldown) {
            return Ok(()); // another writer raised it, or it changed recently
        }
        if current.count >= max {
            tracing::warn!(target: "dynashard::shards", key, count = current.count, max, "shard count at its maximum");
            return Ok(());
        }
        let sustained = now.saturating_sub(current.last_changed) <= cooldown.saturating_mul(2);
        let next = grown(current.count, max, sustained);
        let change_sent = Instant::now();
        match metadata.change(key, next, now, Some(current.last_changed), max).await? {
            Change::Written(state) => {
                tracing::info!(target: "dynashard::shards", key, from = current.count, to = next, "raised shard count after throttling");
                self.shards.remember(key, &state, change_sent);
            }
            Change::Lost => {
                let sent = Instant::now();
                if let Some(state) = metadata.read(key, max).await? {
                    self.shards.remember(key, &state, sent);
                }
            }
        }
        Ok(())
    }

    /// Sets the count of `key` to `count` (checked by the caller), whatever it was.
    pub async fn set(&self, key: &str, count: u32, max: u32) -> Result<ShardState> {
        self.current(key, max).await?;
        let metadata = MetadataTable { db: self.db.into(), table: self.shards.table() };
        let sent = Instant::now();
        let state = match metadata.change(key, count, now_ms(), None, max).await? {
            Change::Written(state) => state,
            Change::Lost => unreachable_lost(key)?,
        };
        tracing::info!(target: "dynashard::shards", key, to = count, "set shard count");
        self.shards.remember(key, &state, sent);
        Ok(state)
    }

    /// The state of `key` for a read: cached if fresh, else read; a key never
    /// written has one shard (reads do not create metadata).
    pub async fn readable(&self, key: &str, max: u32) -> Result<ShardState> {
        if let Some(state) = self.shards.fresh(key) {
            return Ok(state);
        }
        let metadata = MetadataTable { db: self.db.into(), table: self.shards.table() };
        Ok(metadata.read(key, max).await?.unwrap_or_else(|| ShardState::first(0)))
    }
}

fn unreachable_lost(key: &str) -> Result<ShardState> {
    Err(Error::ShardMetadataMalformed {
        partition: key.to_owned(),
        reason: "an unconditional change reported a lost race".to_owned(),
    })
}

/// The count after `count` throttled: doubled when the throttling is `sustained`, else one more;
/// `max` at most.
fn grown(count: u32, max: u32, sustained: bool) -> u32 {
    let next = if sustained { count.saturating_mul(2) } else { count.saturating_add(1) };
    next.clamp(1, max.max(1))
}

#[cfg(test)]
mod tests {
    use super::grown;

    #[test]
    fn a_count_doubles_under_sustained_throttling_and_steps_otherwise_up_to_its_maximum() {
        let mut counts = vec![1];
        while let Some(&last) = counts.last().filter(|&&count| count < 48) {
            counts.push(grown(last, 48, true));
        }
        assert_eq!(counts, [1, 2, 4, 8, 16, 32, 48]);
        assert_eq!(grown(8, 48, false), 9, "a throttle long after the last change adds one");
        assert_eq!(grown(u32::MAX, u32::MAX, true), u32::MAX);
        assert_eq!(grown(u32::MAX, u32::MAX, false), u32::MAX);
        assert_eq!(grown(0, 64, true), 1, "never below one shard");
        assert_eq!(grown(5, 1, false), 1);
    }
}
