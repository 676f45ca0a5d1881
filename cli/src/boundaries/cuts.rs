//! Choosing where range shards start: contiguous groups of runs (sorted distinct keys with their
//! counts), never cutting inside a run, as balanced as the data allows.
//!
//! 1. A run holding more than an ideal shard (`total / shards` keys) is *oversized*: it gets a
//!    shard of its own (range routing can send one value to one shard only; the library's
//!    overflow sub-shards spread it further). When there are too few shards to isolate every
//!    oversized run, none is isolated.
//! 2. The *capacity* is the smallest possible size of the largest other shard, found by binary
//!    search: a capacity is feasible when greedy packing (each shard takes runs while they fit)
//!    needs at most `shards` shards, and greedy packing is optimal for contiguous groups.
//! 3. Cuts are then placed one by one, each as close as possible to an even split of what is
//!    left, but only where the shard before it stays within the capacity and the keys after it
//!    still fit in the remaining shards at that capacity.
//!
//! So the largest shard (oversized runs aside) is as small as any cut could make it, which is at
//! most `ceil(total / shards) + largest run - 1`, and every shard holds at least one run.

use crate::error::CutError;

/// Where each shard starts, and the capacity every shard but the isolated ones respects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cuts {
    /// The first run of each shard: `starts[0] == 0`, strictly increasing, one per shard.
    pub starts: Vec<usize>,
    /// The largest number of keys a shard may hold unless it is one oversized run: the minimum
    /// over all possible cuts.
    pub capacity: u64,
    /// The oversized runs that got a shard of their own, in order.
    pub isolated: Vec<usize>,
}

/// Chooses the first run of each of `shards` shards. `cumulative[r]` is the number of keys
/// before run `r` and its last element the total (so `cumulative.len()` is the run count plus
/// one); every run holds at least one key.
pub fn choose_cuts(cumulative: &[u64], shards: usize) -> Result<Cuts, CutError> {
    let runs = cumulative.len().saturating_sub(1);
    if shards == 0 {
        return Err(CutError::NoShards);
    }
    if runs < shards {
        return Err(CutError::TooFewDistinctKeys { shards, distinct: runs });
    }
    let oversized = oversized_runs(cumulative, shards);
    let total = cumulative[runs];
    let isolating = Packing::new(cumulative, &oversized);
    let packing = if isolating.fits(total, shards) { isolating } else { Packing::new(cumulative, &[]) };
    let capacity = packing.smallest_capacity(shards);
    let starts = packing.place(capacity, shards);
    Ok(Cuts { starts, capacity, isolated: packing.isolated.to_vec() })
}

/// Runs holding more than `total / shards` keys.
pub fn oversized_runs(cumulative: &[u64], shards: usize) -> Vec<usize> {
    let total = u128::from(cumulative.last().copied().unwrap_or(0));
    (0..cumulative.len().saturating_sub(1))
        .filter(|&run| u128::from(cumulative[run + 1] - cumulative[run]) * shards as u128 > total)
        .collect()
}

/// Packing runs into contiguous shards where the `isolated` runs stand alone.
struct Packing<'a> {
    cumulative: &'a [u64],
    runs: usize,
    isolated: &'a [usize],
    /// `isolated_before[i]`: keys in the first `i` isolated runs.
    isolated_before: Vec<u64>,
}

impl<'a> Packing<'a> {
    fn new(cumulative: &'a [u64], isolated: &'a [usize]) -> Self {
        let mut isolated_before = vec![0];
        for &run in isolated {
            let count = cumulative[run + 1] - cumulative[run];
            isolated_before.push(isolated_before.last().copied().unwrap_or(0) + count);
        }
        Self { cumulative, runs: cumulative.len() - 1, isolated, isolated_before }
    }

    fn is_isolated(&self, run: usize) -> bool {
        self.isolated.binary_search(&run).is_ok()
    }

    /// How many isolated runs lie before run `position`.
    fn isolated_count_before(&self, position: usize) -> usize {
        self.isolated.partition_point(|&run| run < position)
    }

    /// The end (exclusive) of the largest shard starting at run `start` within `capacity`.
    fn reach(&self, start: usize, capacity: u64) -> usize {
        if self.is_isolated(start) {
            return start + 1;
        }
        let limit = self.cumulative[start].saturating_add(capacity);
        let by_capacity = self.cumulative.partition_point(|&keys| keys <= limit) - 1;
        let barrier = self.isolated.get(self.isolated_count_before(start)).copied().unwrap_or(self.runs);
        by_capacity.min(barrier)
    }

    /// The start of the largest shard ending (exclusive) at run `end` within `capacity`.
    fn reach_back(&self, end: usize, capacity: u64) -> usize {
        if self.is_isolated(end - 1) {
            return end - 1;
        }
        let floor = self.cumulative[end].saturating_sub(capacity);
        let by_capacity = self.cumulative.partition_point(|&keys| keys < floor);
        let before = self.isolated_count_before(end);
        let barrier = if before == 0 { 0 } else { self.isolated[before - 1] + 1 };
        by_capacity.max(barrier)
    }

    /// Whether the runs fit in `shards` shards of at most `capacity` keys (isolated runs aside).
    fn fits(&self, capacity: u64, shards: usize) -> bool {
        let mut position = 0;
        for _ in 0..shards {
            position = self.reach(position, capacity);
            if position == self.runs {
                return true;
            }
        }
        false
    }

    /// The smallest feasible capacity; the caller made sure that the total is feasible.
    fn smallest_capacity(&self, shards: usize) -> u64 {
        let total = self.cumulative[self.runs];
        let isolated_keys = self.isolated_before.last().copied().unwrap_or(0);
        let free_shards = (shards - self.isolated.len()).max(1) as u64;
        let largest_free_run = (0..self.runs)
            .filter(|&run| !self.is_isolated(run))
            .map(|run| self.cumulative[run + 1] - self.cumulative[run])
            .max()
            .unwrap_or(1);
        let mut low = largest_free_run.max((total - isolated_keys).div_ceil(free_shards));
        let mut high = total.max(low);
        while low < high {
            let middle = low + (high - low) / 2;
            if self.fits(middle, shards) {
                high = middle;
            } else {
                low = middle + 1;
            }
        }
        low
    }

    /// Keys before run `position`, counting each isolated run as one even share of the free
    /// keys, so that targets spread the free keys evenly over the free shards.
    fn weighted_position(&self, position: usize, isolated_weight: f64) -> f64 {
        let isolated = self.isolated_count_before(position);
        (self.cumulative[position] - self.isolated_before[isolated]) as f64
            + isolated as f64 * isolated_weight
    }

    /// Places the cuts (see the module documentation); `capacity` must be feasible.
    fn place(&self, capacity: u64, shards: usize) -> Vec<usize> {
        let free_keys = self.cumulative[self.runs] - self.isolated_before.last().copied().unwrap_or(0);
        let free_shards = (shards - self.isolated.len()).max(1);
        let weight = free_keys as f64 / free_shards as f64;
        // earliest[j]: the earliest run from which the rest fits in `j` shards.
        let mut earliest = vec![self.runs; shards + 1];
        for j in 1..=shards {
            let previous = earliest[j - 1];
            earliest[j] = if previous == 0 { 0 } else { self.reach_back(previous, capacity) };
        }
        let end = self.weighted_position(self.runs, weight);
        let mut starts = Vec::with_capacity(shards);
        starts.push(0);
        let mut current = 0;
        for shard in 1..shards {
            let remaining = shards - shard;
            let low = earliest[remaining].max(current + 1);
            let high = self.reach(current, capacity).min(self.runs - remaining);
            let here = self.weighted_position(current, weight);
            let target = here + (end - here) / (remaining + 1) as f64;
            current = self.nearest(low, high.max(low), target, weight);
            starts.push(current);
        }
        starts
    }

    /// The run in `low..=high` whose weighted position is closest to `target` (the earlier one
    /// on a tie).
    fn nearest(&self, low: usize, high: usize, target: f64, weight: f64) -> usize {
        // The first position in `low..=high` at or past the target (weighted positions grow).
        let (mut first, mut last) = (low, high);
        while first < last {
            let middle = first + (last - first) / 2;
            if self.weighted_position(middle, weight) < target {
                first = middle + 1;
            } else {
                last = middle;
            }
        }
        let above = first;
        if above == low {
            return low;
        }
        let below = above - 1;
        let distance = |position: usize| (self.weighted_position(position, weight) - target).abs();
        if distance(below) <= distance(above) {
            below
        } else {
            above
        }
    }
}

#[cfg(test)]
#[path = "cuts_tests.rs"]
mod tests;
