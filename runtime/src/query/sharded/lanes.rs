//! Which partition each lane of a read is, and how the lanes group: one partition (unsharded),
//! range shards one after another, shards merged, or time buckets one after another with their
//! shards merged. Lanes are numbered in the order they are read; a cursor names a lane by its
//! *natural* number (shard, or bucket times shards plus shard), the same in both directions.

use super::heap::Groups;
use crate::query::{QueryPlan, ShardMode};
use crate::shard::BucketWindow;

/// The lanes of one read.
#[derive(Clone, Debug)]
pub(crate) struct Lanes {
    kind: Kind,
    descending: bool,
    groups: Groups,
}

#[derive(Clone, Debug)]
enum Kind {
    /// The plan's own partition, or its named partitions (merged, or one after another).
    Named,
    /// The buckets of a time window, named as they are reached.
    Window(BucketWindow),
}

impl Lanes {
    /// The lanes of `plan`, opening at most `concurrency` partitions' worth of groups at once.
    pub(crate) fn of(plan: &QueryPlan) -> Self {
        let descending = plan.descending;
        let concurrency = plan.concurrency.max(1) as u64;
        let Some(shards) = &plan.shards else {
            return Lanes { kind: Kind::Named, descending, groups: groups(1, 1, 1) };
        };
        let named = shards.partitions.len().max(1);
        match (shards.mode, &shards.window) {
            (ShardMode::Buckets, Some(window)) => {
                let width = window.shards.end.saturating_sub(window.shards.start).max(1) as usize;
                let at_once = (concurrency / width as u64).max(1);
                Lanes {
                    kind: Kind::Window(window.clone()),
                    descending,
                    groups: Groups { even: true, ..groups(window.buckets(), width, at_once) },
                }
            }
            (ShardMode::InOrder | ShardMode::Buckets, _) => {
                Lanes { kind: Kind::Named, descending, groups: groups(named as u64, 1, concurrency) }
            }
            (ShardMode::Merge, _) => Lanes { kind: Kind::Named, descending, groups: groups(1, named, 1) },
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
            Kind::Window(window) => window.partition(u128::from(natural)).unwrap_or_default(),
            Kind::Named => plan.partition(usize::try_from(natural).unwrap_or(usize::MAX)).to_owned(),
        }
    }

    /// The shard lane `lane` counts under in [`QueryStats`](crate::query::QueryStats): its
    /// partition, or its shard within the bucket for a time window.
    pub(crate) fn shard(&self, lane: usize) -> usize {
        match &self.kind {
            Kind::Window(_) => lane % self.groups.width,
            Kind::Named => usize::try_from(self.natural(lane)).unwrap_or(usize::MAX),
        }
    }
}

fn groups(count: u64, width: usize, open_at_once: u64) -> Groups {
    Groups { count, width, open_at_once, even: false }
}
