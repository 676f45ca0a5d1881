//! The space-saving summary (Metwally, Agrawal and El Abbadi, 2005), weighted: the heaviest keys
//! of a stream in a fixed number of counters, each count an over-estimate by at most its error.
//!
//! Sans I/O: weights in, estimates out.

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;

/// One tracked key: its estimated weight, and by how much that may exceed the truth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Counter {
    /// The key's weight as counted: at least its true weight since it was first tracked.
    pub count: u64,
    /// What the key inherited when it took an evicted key's counter: its true weight is at least
    /// `count - error`.
    pub error: u64,
    /// Orders counters of one count, oldest first, so that the eviction order is fixed.
    sequence: u64,
}

/// A summary of at most `capacity` counters. Invariants (kept by [`SpaceSaving::add`]):
///
/// - every key whose weight is more than `total / capacity` is tracked;
/// - a tracked key's true weight lies in `count - error ..= count`;
/// - a key not tracked weighs at most [`SpaceSaving::floor`].
#[derive(Clone, Debug)]
pub(crate) struct SpaceSaving<K> {
    capacity: usize,
    counters: HashMap<K, Counter>,
    /// The counters by `(count, sequence)`, the least first.
    order: BTreeMap<(u64, u64), K>,
    total: u64,
    next_sequence: u64,
}

impl<K: Clone + Eq + Hash> SpaceSaving<K> {
    /// An empty summary of at most `capacity` counters (at least one).
    pub(crate) fn new(capacity: usize) -> Self {
        SpaceSaving {
            capacity: capacity.max(1),
            counters: HashMap::new(),
            order: BTreeMap::new(),
            total: 0,
            next_sequence: 0,
        }
    }

    /// Counts `weight` more for `key`. A key not tracked while every counter is taken takes the
    /// least counter, its count and, as its error, that count.
    pub(crate) fn add(&mut self, key: &K, weight: u64) {
        self.total = self.total.saturating_add(weight);
        let sequence = self.next_sequence;
        self.next_sequence += 1;
        if let Some(counter) = self.counters.get_mut(key) {
            self.order.remove(&(counter.count, counter.sequence));
            counter.count = counter.count.saturating_add(weight);
            counter.sequence = sequence;
            self.order.insert((counter.count, sequence), key.clone());
            return;
        }
        let inherited = if self.counters.len() < self.capacity {
            0
        } else {
            match self.order.pop_first() {
                Some(((count, _), evicted)) => {
                    self.counters.remove(&evicted);
                    count
                }
                None => 0,
            }
        };
        let counter = Counter { count: inherited.saturating_add(weight), error: inherited, sequence };
        self.order.insert((counter.count, sequence), key.clone());
        self.counters.insert(key.clone(), counter);
    }

    /// The counter of `key`, if tracked.
    pub(crate) fn get(&self, key: &K) -> Option<&Counter> {
        self.counters.get(key)
    }

    /// The most a key not tracked can weigh: the least count once every counter is taken, else 0.
    pub(crate) fn floor(&self) -> u64 {
        if self.counters.len() < self.capacity {
            return 0;
        }
        self.order.first_key_value().map_or(0, |((count, _), _)| *count)
    }

    /// All the weight counted.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// The tracked keys and their counters, in no order.
    pub(crate) fn counters(&self) -> impl Iterator<Item = (&K, &Counter)> {
        self.counters.iter()
    }

    /// Counters taken.
    pub(crate) fn len(&self) -> usize {
        self.counters.len()
    }

    /// About the bytes it holds, for keys owning `heap` bytes each besides themselves: a key is
    /// held twice (by key and by count), with its counter and the maps' slack.
    pub(crate) fn bytes(&self, heap: impl Fn(&K) -> usize) -> usize {
        /// A hash table's control bytes and spare room, a B-tree node's unused slots, per entry.
        const SLACK: usize = 64;
        let each = 2 * std::mem::size_of::<K>() + std::mem::size_of::<Counter>() + 16 + SLACK;
        self.counters.keys().map(|key| each + 2 * heap(key)).sum()
    }
}
