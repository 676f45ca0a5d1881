//! The k-way merge of a merged sharded read, as plain data: no I/O, no clock.
//!
//! Each shard is a lane holding at most one page, plus what to read after it. The head of every
//! non-empty lane sits in a binary heap ordered by sort-key bytes (DynamoDB's order), ties broken
//! by shard index; a descending read reverses the whole order. Within a lane, items keep the order
//! DynamoDB returned them in.
//!
//! A lane whose buffer is empty but that has more to read is *blocked*: its next items are
//! unknown, so no item they could precede may be emitted. They cannot precede the lane's *floor*
//! (the sort key where DynamoDB stopped, or of the last item it returned), so a head placed before
//! the floor of every blocked lane is safe to emit. A lane never read has no floor and blocks
//! everything.

use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeSet, BinaryHeap, VecDeque};

/// A place in the merged order: a sort key (`None`: before every key) and a shard.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Place {
    key: Option<Vec<u8>>,
    shard: usize,
    descending: bool,
}

impl Ord for Place {
    /// `Less` means earlier in the merged output.
    fn cmp(&self, other: &Self) -> Ordering {
        match (&self.key, &other.key) {
            (None, None) => self.shard.cmp(&other.shard),
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (Some(a), Some(b)) => {
                let natural = a.cmp(b).then(self.shard.cmp(&other.shard));
                if self.descending {
                    natural.reverse()
                } else {
                    natural
                }
            }
        }
    }
}

impl PartialOrd for Place {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// What a lane reads after its buffer.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Continuation<C> {
    /// Not read yet: from the start of the shard, or after a resume key.
    Start(Option<C>),
    /// After the key where DynamoDB stopped.
    After(C),
    /// Nothing more.
    Done,
}

struct Lane<T, C> {
    /// Sort keys and items; the front's key moves into the heap while it is the lane's head.
    buffer: VecDeque<(Vec<u8>, T)>,
    next: Continuation<C>,
    floor: Option<Vec<u8>>,
    pending: bool,
}

/// What the merge can do next.
#[derive(Debug, PartialEq)]
pub(crate) enum Step<T> {
    /// The next item of the merged output, and its shard.
    Item(usize, T),
    /// A blocked lane must be read first.
    Blocked,
    /// Every lane is drained.
    Done,
}

/// A k-way merge over lanes of sort-keyed items `T`, continued with keys `C`.
pub(crate) struct Merger<T, C> {
    descending: bool,
    lanes: Vec<Lane<T, C>>,
    heads: BinaryHeap<Reverse<Place>>,
    blocked: BTreeSet<Place>,
    pending: usize,
}

impl<T, C: Clone> Merger<T, C> {
    /// A merge of one lane per entry of `starts`, in shard order.
    pub(crate) fn new(descending: bool, starts: Vec<Continuation<C>>) -> Self {
        let mut blocked = BTreeSet::new();
        let lanes = starts
            .into_iter()
            .enumerate()
            .map(|(shard, next)| {
                if !matches!(next, Continuation::Done) {
                    blocked.insert(Place { key: None, shard, descending });
                }
                Lane { buffer: VecDeque::new(), next, floor: None, pending: false }
            })
            .collect();
        Merger { descending, lanes, heads: BinaryHeap::new(), blocked, pending: 0 }
    }

    /// How many lanes have a request pending.
    #[cfg(test)]
    pub(crate) fn pending(&self) -> usize {
        self.pending
    }

    /// Picks the next lane to read and marks it pending: the blocked lane earliest in the merged
    /// order that has no request pending, with the key to start after. When `lazy`, only a lane
    /// that keeps the current head from being emitted (any, when nothing is buffered).
    pub(crate) fn next_request(&mut self, lazy: bool) -> Option<(usize, Option<C>)> {
        let head = self.heads.peek().map(|Reverse(head)| head);
        let place = self.blocked.iter().find(|place| !self.lanes[place.shard].pending)?;
        if lazy && head.is_some_and(|head| head < place) {
            return None;
        }
        let lane = self.lanes.get_mut(place.shard)?;
        let start = match &lane.next {
            Continuation::Start(start) => start.clone(),
            Continuation::After(key) => Some(key.clone()),
            Continuation::Done => return None,
        };
        lane.pending = true;
        self.pending += 1;
        Some((place.shard, start))
    }

    /// Hands lane `shard` the page its pending request returned: `entries` in DynamoDB's order,
    /// where to continue (`None`: the shard is exhausted), and the sort key where DynamoDB stopped,
    /// if known (else the last entry's key is the floor).
    pub(crate) fn fill(
        &mut self,
        shard: usize,
        entries: Vec<(Vec<u8>, T)>,
        more: Option<C>,
        floor: Option<Vec<u8>>,
    ) {
        let descending = self.descending;
        let Some(lane) = self.lanes.get_mut(shard) else { return };
        if std::mem::take(&mut lane.pending) {
            self.pending -= 1;
        }
        let was_empty = lane.buffer.is_empty();
        if was_empty {
            self.blocked.remove(&Place { key: lane.floor.clone(), shard, descending });
        }
        let floor = floor.or_else(|| entries.last().map(|(key, _)| key.clone()));
        lane.floor = floor.or(lane.floor.take());
        lane.buffer.extend(entries);
        lane.next = match more {
            Some(key) => Continuation::After(key),
            None => Continuation::Done,
        };
        if !was_empty {
            return;
        }
        match lane.buffer.front_mut() {
            Some((key, _)) => {
                self.heads.push(Reverse(Place { key: Some(std::mem::take(key)), shard, descending }))
            }
            None if !matches!(lane.next, Continuation::Done) => {
                self.blocked.insert(Place { key: lane.floor.clone(), shard, descending });
            }
            None => {}
        }
    }

    /// Emits the next item of the merged output, if no blocked lane could precede it.
    pub(crate) fn pop(&mut self) -> Step<T> {
        let Some(Reverse(head)) = self.heads.peek() else {
            return if self.blocked.is_empty() { Step::Done } else { Step::Blocked };
        };
        if self.blocked.first().is_some_and(|blocker| blocker < head) {
            return Step::Blocked;
        }
        let Some(Reverse(head)) = self.heads.pop() else { return Step::Blocked };
        let (shard, descending) = (head.shard, self.descending);
        let Some(lane) = self.lanes.get_mut(shard) else { return Step::Blocked };
        let Some((_, item)) = lane.buffer.pop_front() else { return Step::Blocked };
        match lane.buffer.front_mut() {
            Some((key, _)) => {
                self.heads.push(Reverse(Place { key: Some(std::mem::take(key)), shard, descending }))
            }
            None if !matches!(lane.next, Continuation::Done) => {
                self.blocked.insert(Place { key: lane.floor.clone(), shard, descending });
            }
            None => {}
        }
        Step::Item(shard, item)
    }

    /// Where lane `shard` continues, when that is not simply after its last emitted item: the
    /// lane's continuation once its buffer is empty and nothing is pending (`Start` excluded).
    pub(crate) fn settled(&self, shard: usize) -> Option<&Continuation<C>> {
        let lane = self.lanes.get(shard)?;
        let idle = lane.buffer.is_empty() && !lane.pending;
        (idle && !matches!(lane.next, Continuation::Start(_))).then_some(&lane.next)
    }
}

#[cfg(test)]
#[path = "heap_tests.rs"]
mod tests;
