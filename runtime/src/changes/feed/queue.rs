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
    /// The shards of `to_read`, tried from the `first`: the passes of several processes made at
    /// once start at different shards (each from one a hash of its name picks), rather than all
    /// but one losing the race for every shard in turn.
    pub fn new(to_read: Vec<Waiting>, first: usize) -> Self {
        let mut waiting = VecDeque::from(to_read);
        let first = first.min(waiting.len());
        waiting.rotate_left(first);
        Self { waiting }
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
    fn shards_are_tried_from_the_first_and_around() {
        let to_read = ["a", "b", "c", "d"].map(|id| (shard(id), None)).to_vec();
        let mut queue = Queue::new(to_read.clone(), 2);
        assert_eq!(queue.ids(), ["c", "d", "a", "b"]);
        assert_eq!(queue.next().map(|(shard, _)| shard.id), Some("c".to_owned()));
        assert_eq!(Queue::new(to_read, 9).ids(), ["a", "b", "c", "d"], "past the end: from the start");
        assert!(Queue::new(Vec::new(), 3).next().is_none());
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
        assert_eq!(queue.drop_changed(&fresh), ["acquired", "beaten", "made", "forgotten"]);
        assert_eq!(queue.ids(), ["same", "still none"]);
    }
}
