//! Which random shard of a time bucket a process writes to, when the bucket's index keeps a
//! directory: one shard per bucket while the process writes it slowly, every shard once it
//! writes it fast.
//!
//! Readers of a `directory` index read only the shards a bucket's directory entry lists, so a
//! bucket whose items all went to one shard costs one request to read, where one whose few
//! items were spread over four costs four. Spreading is what a hot bucket needs (a partition
//! takes about 1,000 write units a second), not a quiet one: a process first writes a bucket to
//! one shard it picks at random (so that many processes still spread over the shards), and to
//! any shard at random from the moment it has written the bucket [`STICKY_WRITES_PER_SECOND`]
//! times within a second. Ten processes that all picked one shard for a bucket then stay within
//! that partition's write units for items up to 1 KB.
//!
//! Correctness does not depend on any of this: every write records its partition in the
//! directory before it is sent, whichever shard it picked (see `write::directory`). The clock
//! only decides how a bucket's items spread; it is passed in, so the rule is tested without
//! waiting.

use super::random_shard;
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Writes of one bucket within a second past which a process spreads the bucket over every
/// shard: a tenth of what a partition takes of items up to 1 KB.
pub const STICKY_WRITES_PER_SECOND: u32 = 100;

/// The most buckets a `Db` remembers its shard of; past it, it forgets them all (a bucket still
/// written then picks a shard again, and its directory lists one more).
const REMEMBERED: usize = 10_000;

/// What a process chose for one bucket.
#[derive(Debug, Clone, Copy)]
struct Choice {
    /// The shard its writes go to while the bucket is written slowly.
    shard: u32,
    /// Since when `writes` counts.
    since: Instant,
    writes: u32,
    /// Whether the bucket was written fast: every shard from then on.
    spread: bool,
}

/// The shard each directory-listed bucket is written to by one `Db` and its clones.
#[derive(Debug, Default)]
pub(crate) struct BucketAffinity {
    chosen: Mutex<HashMap<String, Choice>>,
}

impl BucketAffinity {
    /// The shard, of `shards`, of a write at `now` to the bucket `bucket` (the index, logical
    /// partition and bucket, in one key).
    pub(crate) fn shard(&self, bucket: &str, shards: u32, now: Instant) -> u32 {
        self.shard_with(bucket, shards, now, random_shard)
    }

    /// [`BucketAffinity::shard`], with `random` picking a shard in `0..shards`.
    fn shard_with(&self, bucket: &str, shards: u32, now: Instant, mut random: impl FnMut(u32) -> u32) -> u32 {
        if shards <= 1 {
            return 0;
        }
        let mut chosen = self.chosen.lock().unwrap_or_else(PoisonError::into_inner);
        // The bucket's key is copied once, when it is first written, not on every write.
        if !chosen.contains_key(bucket) {
            if chosen.len() >= REMEMBERED {
                chosen.clear();
            }
            let first = Choice { shard: random(shards), since: now, writes: 0, spread: false };
            chosen.insert(bucket.to_owned(), first);
        }
        let Some(choice) = chosen.get_mut(bucket) else { return random(shards) };
        if choice.spread {
            return random(shards);
        }
        if now.saturating_duration_since(choice.since) >= Duration::from_secs(1) {
            choice.since = now;
            choice.writes = 0;
        }
        choice.writes = choice.writes.saturating_add(1);
        if choice.writes > STICKY_WRITES_PER_SECOND {
            choice.spread = true;
            return random(shards);
        }
        // A count changed since the choice (a resharding) keeps it in range.
        choice.shard % shards
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn a_bucket_written_slowly_keeps_one_shard() {
        let affinity = BucketAffinity::default();
        let start = Instant::now();
        // A write every 20 ms for ten seconds: 50 a second.
        let shards: BTreeSet<u32> = (0..500)
            .map(|write| {
                affinity.shard("Feed#plant#2023-10-27T00:00", 4, start + Duration::from_millis(20 * write))
            })
            .collect();
        assert_eq!(shards.len(), 1, "{shards:?}");
        // Other buckets pick their own shard: over 64 of them, several.
        let others: BTreeSet<u32> =
            (0..64).map(|bucket| affinity.shard(&format!("Feed#plant#{bucket}"), 4, start)).collect();
        assert!(others.len() > 1, "{others:?}");
    }

    #[test]
    fn a_bucket_written_fast_spreads_over_every_shard() {
        let affinity = BucketAffinity::default();
        let now = Instant::now();
        let first: Vec<u32> = (0..STICKY_WRITES_PER_SECOND).map(|_| affinity.shard("hot", 4, now)).collect();
        assert!(first.windows(2).all(|pair| pair[0] == pair[1]), "{first:?}");
        // The 101st write within the second, and every one after it, even much later.
        let mut spread = [0usize; 4];
        let mut cycle = 0u32;
        for write in 0..400u64 {
            let later = now + Duration::from_secs(write);
            let shard = affinity.shard_with("hot", 4, later, |shards| {
                cycle += 1;
                cycle % shards
            });
            spread[shard as usize] += 1;
        }
        assert_eq!(spread, [100; 4]);
    }

    #[test]
    fn one_shard_is_shard_zero_and_a_smaller_count_stays_in_range() {
        let affinity = BucketAffinity::default();
        let now = Instant::now();
        assert_eq!(affinity.shard("one", 1, now), 0);
        assert_eq!(affinity.shard("one", 0, now), 0);
        let shard = affinity.shard_with("fewer", 8, now, |_| 7);
        assert_eq!(shard, 7);
        assert_eq!(affinity.shard_with("fewer", 3, now, |_| 0), 1);
    }

    #[test]
    fn past_the_bound_buckets_are_forgotten() {
        let affinity = BucketAffinity::default();
        let now = Instant::now();
        for bucket in 0..REMEMBERED {
            affinity.shard(&bucket.to_string(), 4, now);
        }
        assert_eq!(affinity.chosen.lock().map(|chosen| chosen.len()).unwrap_or(0), REMEMBERED);
        affinity.shard("one more", 4, now);
        assert_eq!(affinity.chosen.lock().map(|chosen| chosen.len()).unwrap_or(0), 1);
    }
}
