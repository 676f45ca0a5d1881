//! Which partition each lane of a read is, and how the lanes group: one partition (unsharded),
//! range shards one after another, shards merged, or time buckets one after another with their
//! shards merged. Lanes are numbered in the order they are read; a cursor names a lane by its
//! *natural* number (shard, or bucket times shards plus shard), the same in both directions.

use super::heap::Groups;
use crate::query::{QueryPlan, ShardMode};
use crate::shard::{directory_partition, directory_sort_key, BucketWindow};

/// The lanes of one read.
#[derive(Clone, Debug)]
pub(crate) struct Lanes {
    kind: Kind,
    descending: bool,
    groups: Groups,
    /// For a window merged as one whose index keeps a bucket directory: the window, and the
    /// directory's partition key.
    merged_window: Option<(BucketWindow, String)>,
}

#[derive(Clone, Debug)]
enum Kind {
    /// The plan's own partition, or its named partitions (merged, or one after another).
    Named,
    /// The buckets of a time window, named as they are reached; with the partition key of the
    /// index's bucket directory when it keeps one.
    Window(BucketWindow, Option<String>),
}

impl Lanes {
    /// The lanes of `plan`, opening at most `concurrency` partitions' worth of groups at once.
    pub(crate) fn of(plan: &QueryPlan) -> Self {
        let descending = plan.descending;
        let concurrency = plan.concurrency.max(1) as u64;
        let Some(shards) = &plan.shards else {
            return Lanes { kind: Kind::Named, descending, groups: groups(1, 1, 1), merged_window: None };
        };
        let named = shards.partitions.len().max(1);
        match (shards.mode, &shards.window) {
            (ShardMode::Buckets, Some(window)) => {
                let width = window.shards.end.saturating_sub(window.shards.start).max(1) as usize;
                let at_once = (concurrency / width as u64).max(1);
                let directory = directory_of(plan, window);
                // Buckets a directory lists are those that hold items, as many as the data put in
                // each: like range shards, not taken to hold about as many as each other.
                let even = directory.is_none();
                Lanes {
                    kind: Kind::Window(window.clone(), directory),
                    descending,
                    groups: Groups { even, ..groups(window.buckets(), width, at_once) },
                    merged_window: None,
                }
            }
            (ShardMode::InOrder | ShardMode::Buckets, _) => {
                let groups = groups(named as u64, 1, concurrency);
                Lanes { kind: Kind::Named, descending, groups, merged_window: None }
            }
            (ShardMode::Merge, window) => {
                let merged_window = window
                    .as_ref()
                    .and_then(|window| Some((window.clone(), directory_of(plan, window)?)))
                    .filter(|(window, _)| window.partitions() == named as u128);
                Lanes { kind: Kind::Named, descending, groups: groups(1, named, 1), merged_window }
            }
        }
    }

    /// Whether the read is descending.
    pub(crate) fn descending(&self) -> bool {
        self.descending
    }

    /// How the lanes group.
    pub(crate) fn groups(&self) -> Groups {
        self.groups
    }

    /// The natural number of lane `lane` (as a cursor names it).
    pub(crate) fn natural(&self, lane: usize) -> u64 {
        let width = self.groups.width as u64;
        let (group, offset) = (lane as u64 / width, lane as u64 % width);
        let group =
            if self.descending { self.groups.count.saturating_sub(1).saturating_sub(group) } else { group };
        group.saturating_mul(width).saturating_add(offset)
    }

    /// The lane of natural number `natural`, if the read has it.
    pub(crate) fn lane(&self, natural: u64) -> Option<usize> {
        let width = self.groups.width as u64;
        let (group, offset) = (natural / width, natural % width);
        if group >= self.groups.count {
            return None;
        }
        let group = if self.descending { self.groups.count - 1 - group } else { group };
        usize::try_from(group.checked_mul(width)?.checked_add(offset)?).ok()
    }

    /// The group of lane `lane`, and its place within the group.
    pub(crate) fn split(&self, lane: usize) -> (u64, usize) {
        ((lane / self.groups.width) as u64, lane % self.groups.width)
    }

    /// The partition key value lane `lane` reads.
    pub(crate) fn partition(&self, plan: &QueryPlan, lane: usize) -> String {
        let natural = self.natural(lane);
        match &self.kind {
            Kind::Window(window, _) => window.partition(u128::from(natural)).unwrap_or_default(),
            Kind::Named => plan.partition(usize::try_from(natural).unwrap_or(usize::MAX)).to_owned(),
        }
    }

    /// The shard lane `lane` counts under in [`QueryStats`](crate::query::QueryStats): its
    /// partition, or its shard within the bucket for a time window.
    pub(crate) fn shard(&self, lane: usize) -> usize {
        match &self.kind {
            Kind::Window(..) => lane % self.groups.width,
            Kind::Named => usize::try_from(self.natural(lane)).unwrap_or(usize::MAX),
        }
    }
}

/// A bucket directory's part to read: its partition key, the sort keys of the first and last
/// buckets wanted (in time order), and whether it is read in time order or backwards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DirectorySpan {
    pub partition: String,
    pub low: String,
    pub high: String,
    pub forward: bool,
}

impl Lanes {
    /// The part of the bucket directory that lists group `from` and every group after it, when
    /// the read's groups are listed by one.
    pub(crate) fn directory_span(&self, from: u64) -> Option<DirectorySpan> {
        let Kind::Window(window, Some(partition)) = &self.kind else { return None };
        let last = self.groups.count.checked_sub(1)?;
        let bucket = |group: u64| if self.descending { last.saturating_sub(group) } else { group };
        let (low, high) = if self.descending { (0, bucket(from)) } else { (bucket(from), last) };
        let start = |n: u64| bucket_start(window, n).map(directory_sort_key);
        let forward = !self.descending;
        Some(DirectorySpan { partition: partition.clone(), low: start(low)?, high: start(high)?, forward })
    }

    /// For a window merged as one whose index keeps a bucket directory: the whole directory of
    /// the window, in time order (its lanes are listed at once, as one group).
    pub(crate) fn window_span(&self) -> Option<DirectorySpan> {
        let (window, partition) = self.merged_window.as_ref()?;
        let last = window.buckets().checked_sub(1)?;
        let start = |n: u64| bucket_start(window, n).map(directory_sort_key);
        Some(DirectorySpan {
            partition: partition.clone(),
            low: start(0)?,
            high: start(last)?,
            forward: true,
        })
    }

    /// The lanes of a window merged as one (bucket after bucket, shard after shard, as its
    /// partitions are named) that directory entries list.
    pub(crate) fn window_lanes(&self, entries: &[(i64, Vec<u32>)]) -> Vec<usize> {
        let Some((window, _)) = &self.merged_window else { return Vec::new() };
        let width = u64::from(window.shards.end.saturating_sub(window.shards.start));
        entries
            .iter()
            .filter_map(|(start, shards)| Some((bucket_of(window, *start)?, shards)))
            .flat_map(|(bucket, shards)| {
                shard_offsets(window, shards).filter_map(move |offset| {
                    usize::try_from(bucket.checked_mul(width)?.checked_add(offset as u64)?).ok()
                })
            })
            .collect()
    }

    /// The groups, and their lanes (positions in the group), of directory entries: bucket
    /// starts and the shards written in each. Entries outside the window are left out.
    pub(crate) fn listed_groups(&self, entries: Vec<(i64, Vec<u32>)>) -> Vec<(u64, Vec<usize>)> {
        let Kind::Window(window, _) = &self.kind else { return Vec::new() };
        let last = self.groups.count.saturating_sub(1);
        entries
            .into_iter()
            .filter_map(|(start, shards)| {
                let bucket = bucket_of(window, start).filter(|&bucket| bucket <= last)?;
                let group = if self.descending { last.checked_sub(bucket)? } else { bucket };
                Some((group, shard_offsets(window, &shards).collect()))
            })
            .collect()
    }

    /// The group after the one of the bucket starting at `start`: how far a part of the
    /// directory that ends there reaches.
    pub(crate) fn group_after(&self, start: i64) -> u64 {
        self.listed_groups(vec![(start, Vec::new())])
            .first()
            .map_or(self.groups.count, |(group, _)| group + 1)
    }
}

/// The partition key of the bucket directory of `plan`'s window, when its index keeps one.
fn directory_of(plan: &QueryPlan, window: &BucketWindow) -> Option<String> {
    plan.shards.as_ref().filter(|shards| shards.directory)?;
    plan.index.map(|index| directory_partition(index.name, &window.partition))
}

/// The number within `window` of the bucket starting at `start`; `None` outside it.
fn bucket_of(window: &BucketWindow, start: i64) -> Option<u64> {
    let width = i128::from(window.bucket.seconds());
    let bucket = i128::from(start).div_euclid(width) - i128::from(window.from).div_euclid(width);
    u64::try_from(bucket).ok().filter(|&bucket| bucket < window.buckets())
}

/// The places within a bucket of the `shards` of `window` among them.
fn shard_offsets<'a>(window: &'a BucketWindow, shards: &'a [u32]) -> impl Iterator<Item = usize> + 'a {
    shards
        .iter()
        .filter(|shard| window.shards.contains(shard))
        .map(|shard| (shard - window.shards.start) as usize)
}

/// The start of bucket `n` of `window` (the first may start before `i64::MIN`: `i64::MIN`, as
/// the directory records it).
fn bucket_start(window: &BucketWindow, n: u64) -> Option<i64> {
    let width = i128::from(window.bucket.seconds());
    let start = (i128::from(window.from).div_euclid(width) + i128::from(n)) * width;
    i64::try_from(start.max(i128::from(i64::MIN))).ok()
}

fn groups(count: u64, width: usize, open_at_once: u64) -> Groups {
    Groups { count, width, open_at_once, even: false }
}
