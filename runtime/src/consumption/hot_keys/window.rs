//! Space-saving summaries of consecutive periods, of which the last few make a sliding window.
//!
//! Sans I/O: a period is a number the caller derives from its clock. Summaries of several
//! periods combine as mergeable summaries do (Agarwal et al., 2012): a key's estimate adds its
//! count in each summary, or that summary's floor where it is not tracked, so the estimate still
//! bounds the truth from above, and the counts less their errors bound it from below.

use super::sketch::SpaceSaving;
use std::collections::{BTreeSet, VecDeque};
use std::hash::Hash;

/// A key's weight over a window: the truth lies in `count - error ..= count`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Estimate<K> {
    pub key: K,
    pub count: u64,
    pub error: u64,
}

/// The heaviest keys of a window, and what the rest may weigh.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Top<K> {
    /// The heaviest keys by estimate, the heaviest first (equal estimates by key).
    pub keys: Vec<Estimate<K>>,
    /// All the weight counted in the window.
    pub total: u64,
    /// The most a key not tracked in any period of the window can weigh.
    pub unlisted_at_most: u64,
}

/// The summaries of the last `periods` periods, each of `capacity` counters.
#[derive(Clone, Debug)]
pub(crate) struct Window<K> {
    capacity: usize,
    periods: u64,
    summaries: VecDeque<(u64, SpaceSaving<K>)>,
}

impl<K: Clone + Eq + Hash + Ord> Window<K> {
    /// A window of `periods` periods (at least one), each summarised in `capacity` counters.
    pub(crate) fn new(capacity: usize, periods: u64) -> Self {
        Window { capacity, periods: periods.max(1), summaries: VecDeque::new() }
    }

    /// Counts `weight` for `key` in period `period`. A period before the newest one counted (a
    /// caller's clock is not always monotonic across threads) counts in the newest.
    pub(crate) fn add(&mut self, period: u64, key: &K, weight: u64) {
        self.expire(period);
        let newest = self.summaries.back().map(|(newest, _)| *newest);
        if newest.is_none_or(|newest| newest < period) {
            self.summaries.push_back((period, SpaceSaving::new(self.capacity)));
        }
        if let Some((_, summary)) = self.summaries.back_mut() {
            summary.add(key, weight);
        }
    }

    /// Drops the summaries of periods that left the window ending at `now`.
    fn expire(&mut self, now: u64) {
        while self.summaries.front().is_some_and(|(period, _)| period.saturating_add(self.periods) <= now) {
            self.summaries.pop_front();
        }
    }

    /// The `n` heaviest keys of the window ending at period `now`.
    pub(crate) fn top(&self, now: u64, n: usize) -> Top<K> {
        let live: Vec<&SpaceSaving<K>> = self
            .summaries
            .iter()
            .filter(|(period, _)| period.saturating_add(self.periods) > now)
            .map(|(_, summary)| summary)
            .collect();
        let candidates: BTreeSet<&K> =
            live.iter().flat_map(|summary| summary.counters().map(|(key, _)| key)).collect();
        let mut keys: Vec<Estimate<K>> = candidates
            .into_iter()
            .map(|key| {
                let (mut count, mut least) = (0u64, 0u64);
                for summary in &live {
                    match summary.get(key) {
                        Some(counter) => {
                            count = count.saturating_add(counter.count);
                            least = least.saturating_add(counter.count - counter.error);
                        }
                        None => count = count.saturating_add(summary.floor()),
                    }
                }
                Estimate { key: key.clone(), count, error: count - least }
            })
            .collect();
        keys.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.key.cmp(&b.key)));
        keys.truncate(n);
        let total = live.iter().map(|summary| summary.total()).sum();
        let unlisted_at_most = live.iter().map(|summary| summary.floor()).sum();
        Top { keys, total, unlisted_at_most }
    }

    /// The count of each of `keys` in each period of the window ending at `now`, the oldest
    /// first (0 where a period's summary does not hold a key).
    pub(crate) fn by_period(&self, now: u64, keys: &[K]) -> Vec<(u64, Vec<u64>)> {
        self.summaries
            .iter()
            .filter(|(period, _)| period.saturating_add(self.periods) > now)
            .map(|(period, summary)| {
                let counts =
                    keys.iter().map(|key| summary.get(key).map_or(0, |counter| counter.count)).collect();
                (*period, counts)
            })
            .collect()
    }

    /// Counters taken across the window's summaries.
    pub(crate) fn counters(&self) -> usize {
        self.summaries.iter().map(|(_, summary)| summary.len()).sum()
    }

    /// About the bytes its summaries hold (see [`SpaceSaving::bytes`]).
    pub(crate) fn bytes(&self, heap: impl Fn(&K) -> usize + Copy) -> usize {
        self.summaries.iter().map(|(_, summary)| summary.bytes(heap)).sum()
    }
}
