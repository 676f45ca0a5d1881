//! The shards one pass means to read, taken in turn by its reading slots. Sans I/O.
//!
//! A pass plans from the leases as it read them; an acquisition of a shard whose lease another
//! process changed since is refused. When one is refused, the other processes are reading the
//! stream too: the pass reads the leases of the shards still waiting, in one request, and drops
//! those whose leases changed, as their acquisitions would have been refused, rather than be
//! refused once a shard.

use super::lineage::ListedShard;
use crate::metadata::lease::LeaseRecord;
use std::collections::{HashMap, VecDeque};

/// A shard to read and its lease as the pass last read it (`None`: no lease item).
pub(super) type Waiting = (ListedShard, Option<LeaseRecord>);

/// The shards of a pass not taken yet, in the order to try them.
#[derive(Debug, Default)]
pub(super) struct Queue {
    waiting: VecDeque<Waiting>,
}

impl Queue {
    /// The shards of `to_read`, in an order drawn from `seed`: the passes of several processes
    /// made at once (each with a seed of its own) try different shards first, and a slot
    /// refused one tries next a shard as likely free as any, not the one after it, which the
    /// process that started there is taking.
    pub fn new(mut to_read: Vec<Waiting>, seed: u64) -> Self {
        let mut state = seed;
        // Fisher and Yates's shuffle, by SplitMix64.
        for at in (1..to_read.len()).rev() {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut mixed = state;
            mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            mixed ^= mixed >> 31;
            to_read.swap(at, (mixed % (at as u64 + 1)) as usize);
        }
        Self { waiting: VecDeque::from(to_read) }
    }

    /// The next shard to try.
    pub fn next(&mut self) -> Option<Waiting> {
        self.waiting.pop_front()
    }

    /// The shards still waiting.
    pub fn ids(&self) -> Vec<String> {
        self.waiting.iter().map(|(shard, _)| shard.id.clone()).collect()
    }

    /// Drops the waiting shards whose lease, as `fresh` has it by shard id, is not the one the
    /// pass read (another process acquired it since, or it was forgotten); returns their ids.
    pub fn drop_changed(&mut self, fresh: &HashMap<String, LeaseRecord>) -> Vec<String> {
        let mut dropped = Vec::new();
        self.waiting.retain(|(shard, seen)| {
            let now = fresh.get(&shard.id);
            let same = match (seen, now) {
                (Some(seen), Some(now)) => seen.fence == now.fence && seen.beat == now.beat,
                (None, None) => true,
                _ => false,
            };
            if !same {
                dropped.push(shard.id.clone());
            }
            same
        });
        dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shard(id: &str) -> ListedShard {
        ListedShard { id: id.to_owned(), parent: None, ending: None }
    }

    fn lease(fence: u64, beat: u64) -> LeaseRecord {
        LeaseRecord { fence, beat, ..LeaseRecord::default() }
    }

    #[test]
    fn each_seed_tries_every_shard_once_in_an_order_of_its_own() {
        let to_read: Vec<Waiting> = (0..64).map(|n| (shard(&format!("shard {n}")), None)).collect();
        let orders: Vec<Vec<String>> = (0..16).map(|seed| Queue::new(to_read.clone(), seed).ids()).collect();
        for order in &orders {
            let mut sorted = order.clone();
            sorted.sort();
            let mut all = to_read.iter().map(|(shard, _)| shard.id.clone()).collect::<Vec<_>>();
            all.sort();
            assert_eq!(sorted, all, "every shard once");
        }
        let firsts: std::collections::HashSet<&String> = orders.iter().map(|order| &order[0]).collect();
        assert!(firsts.len() >= 10, "16 seeds start at {} shards of 64", firsts.len());
        assert_eq!(Queue::new(to_read.clone(), 7).ids(), orders[7], "one order a seed");
        let mut empty = Queue::new(Vec::new(), 3);
        assert!(empty.next().is_none());
    }

    #[test]
    fn shards_whose_leases_changed_since_they_were_read_are_dropped() {
        let to_read = vec![
            (shard("same"), Some(lease(3, 7))),
            (shard("acquired"), Some(lease(3, 7))),
            (shard("beaten"), Some(lease(3, 7))),
            (shard("made"), None),
            (shard("forgotten"), Some(lease(1, 1))),
            (shard("still none"), None),
        ];
        let mut queue = Queue::new(to_read, 0);
        let fresh = HashMap::from([
            ("same".to_owned(), lease(3, 7)),
            ("acquired".to_owned(), lease(4, 8)),
            ("beaten".to_owned(), lease(3, 9)),
            ("made".to_owned(), lease(0, 0)),
        ]);
        let sorted = |mut ids: Vec<String>| {
            ids.sort();
            ids
        };
        assert_eq!(sorted(queue.drop_changed(&fresh)), ["acquired", "beaten", "forgotten", "made"]);
        assert_eq!(sorted(queue.ids()), ["same", "still none"]);
    }
}
