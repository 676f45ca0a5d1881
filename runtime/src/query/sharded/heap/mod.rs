//! The k-way merge of a sharded read, as plain data: no I/O, no clock.
//!
//! Each partition read is a *lane* buffering what its requests returned, plus what to read after
//! it. Lanes come in *groups* read one after another (time buckets, range shards; a plain merge
//! is one group), opened as the output reaches them, at most `open_at_once` at a time: a window
//! of 100,000 partitions never holds 100,000 lanes. The head of every non-empty lane sits in a
//! binary heap ordered by [`Place`]; within a lane, items keep the order DynamoDB returned.
//!
//! A lane whose buffer is empty but that has more to read is *blocked*: its next items are
//! unknown, so no item they could precede may be emitted. They cannot precede the lane's *floor*
//! (the sort key where DynamoDB stopped, or of the last item it returned), so a head placed before
//! the floor of every blocked lane is safe to emit. A lane never read has no floor and blocks its
//! whole group; a group not opened yet blocks every later group.
//!
//! Which lanes to read, and how much to ask of them, is decided here too ([`Merger::requests`]):
//! with a limit, a lane is read only while the items known to come before it (buffered, or
//! expected from requests in flight) fall short of what is still wanted, and is asked for its
//! share of the shortfall; without one, every lane is kept one page ahead.

mod horizon;
mod listing;
mod requests;

pub(crate) use horizon::Told;
pub(crate) use requests::Demand;

use super::bands::Bound;
use super::place::Place;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, VecDeque};

/// What a lane reads after its buffer.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Continuation<C> {
    /// Not read yet: from the start of the partition, or after a resume key.
    Start(Option<C>),
    /// After the key where DynamoDB stopped.
    After(C),
    /// Nothing more.
    Done,
}

/// How the lanes of a read are grouped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Groups {
    /// Groups to read, in order.
    pub count: u64,
    /// Lanes per group: lane `g * width + i` is the `i`-th of group `g`.
    pub width: usize,
    /// Groups open at once (at least one).
    pub open_at_once: u64,
    /// Whether the groups hold about as many items each (the buckets of a time window), so that
    /// a request in flight is expected to bring no more than finished groups held: the next
    /// groups are opened meanwhile. Range shards, whose sizes follow the data, are not: a request
    /// is expected to bring what it asked for, and the next shard is read when it did not.
    pub even: bool,
}

/// What the merge can do next.
#[derive(Debug, PartialEq)]
pub(crate) enum Step<T> {
    /// The next item of the output, and its lane.
    Item(usize, T),
    /// A blocked lane (or an unopened group) must be read first.
    Blocked,
    /// Every lane is drained.
    Done,
}

struct Lane<T, C> {
    group: u64,
    buffer: VecDeque<(Vec<u8>, T)>,
    next: Continuation<C>,
    floor: Option<Vec<u8>>,
    pending: Option<usize>,
    /// Entries of the last page: a lane buffering more is not read ahead.
    last_fill: usize,
    /// Entries filled in all.
    supplied: usize,
    /// Whether it was read from the beginning of its partition (not resumed).
    fresh: bool,
    /// Whether its pending request asked for all that is still wanted: the lane is believed to
    /// hold the rest of the output, and lanes after its floor wait for it.
    covers: bool,
    /// Where it is parked by a page end's bands, while it was not asked anything since: it
    /// holds nothing before its floor, so it does not share in what is wanted there.
    parked: Option<Bound>,
    /// The items a page end knows it holds of the page, until it is asked (see
    /// `resume::Horizon::held`).
    held: Option<usize>,
    /// The key of the first entry of its last answer that brought any (its last is the floor).
    answer_start: Option<Vec<u8>>,
}

impl<T, C> Lane<T, C> {
    fn has_more(&self) -> bool {
        !matches!(self.next, Continuation::Done)
    }
}

/// A k-way merge over lanes of sort-keyed items `T`, continued with keys `C`.
pub(crate) struct Merger<T, C> {
    descending: bool,
    groups: Groups,
    /// The first group not opened yet.
    next_group: u64,
    /// Live lanes per open group.
    open: BTreeMap<u64, usize>,
    lanes: BTreeMap<usize, Lane<T, C>>,
    /// Starts of the first group's lanes (by position in the group), taken when it opens.
    first_starts: Vec<Continuation<C>>,
    /// What a page end tells the first group's lanes (by position in the group; see
    /// [`horizon`]).
    first_told: Vec<Told>,
    heads: BinaryHeap<Reverse<Place>>,
    /// Lanes with an empty buffer and more to read, and the next group while unopened.
    blocked: BTreeSet<Place>,
    /// Lanes with more to read and no request pending.
    frontier: BTreeSet<Place>,
    /// Lanes read from beginning to end, and the items they held: what a lane in flight of a
    /// later group may bring.
    finished: usize,
    finished_items: usize,
    /// Items emitted so far, per open group.
    emitted: BTreeMap<u64, usize>,
    /// Which lanes of which groups can hold items, when a directory says (see [`listing`]).
    listing: Option<listing::Listing>,
}

impl<T, C: Clone> Merger<T, C> {
    /// A merge of `groups`, starting at group `first` whose lanes start at `starts` (one per
    /// lane of the group, in order; missing ones start at the beginning).
    pub(crate) fn new(descending: bool, groups: Groups, first: u64, starts: Vec<Continuation<C>>) -> Self {
        let groups =
            Groups { width: groups.width.max(1), open_at_once: groups.open_at_once.max(1), ..groups };
        let mut merger = Merger {
            descending,
            groups,
            next_group: first,
            open: BTreeMap::new(),
            lanes: BTreeMap::new(),
            first_starts: starts,
            first_told: Vec::new(),
            heads: BinaryHeap::new(),
            blocked: BTreeSet::new(),
            frontier: BTreeSet::new(),
            finished: 0,
            finished_items: 0,
            emitted: BTreeMap::new(),
            listing: None,
        };
        if first < groups.count {
            merger.blocked.insert(merger.unopened(first));
        }
        merger
    }

    fn unopened(&self, group: u64) -> Place {
        Place { group, key: None, lane: usize::MAX, descending: self.descending }
    }

    fn place(&self, lane: usize) -> Option<Place> {
        let state = self.lanes.get(&lane)?;
        Some(Place { group: state.group, key: state.floor.clone(), lane, descending: self.descending })
    }

    /// Removes lane `lane` from the blocked and frontier sets (before its state changes).
    fn unindex(&mut self, lane: usize) {
        if let Some(place) = self.place(lane) {
            self.blocked.remove(&place);
            self.frontier.remove(&place);
        }
    }

    /// Files lane `lane` under blocked and frontier as its state says, or retires it when drained.
    fn index(&mut self, lane: usize) {
        let Some(place) = self.place(lane) else { return };
        let Some(state) = self.lanes.get(&lane) else { return };
        if state.has_more() && state.buffer.is_empty() {
            self.blocked.insert(place.clone());
        }
        if state.has_more() && state.pending.is_none() {
            self.frontier.insert(place);
        }
        if !state.has_more() && state.buffer.is_empty() && state.pending.is_none() {
            let group = state.group;
            self.lanes.remove(&lane);
            if let Some(live) = self.open.get_mut(&group) {
                *live -= 1;
                if *live == 0 {
                    self.open.remove(&group);
                    self.emitted.remove(&group);
                }
            }
        }
    }

    fn push_head(&mut self, lane: usize) {
        let Some(state) = self.lanes.get(&lane) else { return };
        if let Some((key, _)) = state.buffer.front() {
            let place =
                Place { group: state.group, key: Some(key.clone()), lane, descending: self.descending };
            self.heads.push(Reverse(place));
        }
    }

    /// Opens the next group, if the cap on open groups allows: its lanes join the frontier.
    fn open_next(&mut self) -> bool {
        let group = self.next_group;
        if group >= self.groups.count || self.open.len() as u64 >= self.groups.open_at_once {
            return false;
        }
        if !self.may_open(group) {
            return false;
        }
        self.blocked.remove(&self.unopened(group));
        self.next_group = group + 1;
        if self.next_group < self.groups.count {
            self.blocked.insert(self.unopened(self.next_group));
        }
        let mut starts = std::mem::take(&mut self.first_starts);
        self.listed_starts(group, &mut starts);
        let mut starts = starts.into_iter();
        let mut told = std::mem::take(&mut self.first_told).into_iter();
        let width = self.groups.width;
        let Some(base) = usize::try_from(group).ok().and_then(|group| group.checked_mul(width)) else {
            return true;
        };
        let mut live = 0;
        for offset in 0..width {
            let next = starts.next().unwrap_or(Continuation::Start(None));
            let Told { parked, held } = told.next().unwrap_or_default();
            let floor = parked.as_ref().and_then(|bound| bound.floor(self.descending));
            let parked = parked.filter(|_| floor.is_some());
            let fresh = matches!(next, Continuation::Start(None));
            let Some(lane) = base.checked_add(offset).filter(|_| !matches!(next, Continuation::Done)) else {
                continue;
            };
            let state = Lane {
                group,
                buffer: VecDeque::new(),
                next,
                floor,
                pending: None,
                last_fill: 0,
                supplied: 0,
                fresh,
                covers: false,
                parked,
                held,
                answer_start: None,
            };
            self.lanes.insert(lane, state);
            self.index(lane);
            live += 1;
        }
        if live > 0 {
            self.open.insert(group, live);
        }
        self.pass_unlisted();
        true
    }

    /// Hands lane `lane` the page its pending request returned: `entries` in DynamoDB's order,
    /// where to continue (`None`: the partition is exhausted, or with `bounded`, the request's
    /// bound reached with no entry to continue after), and the sort key where DynamoDB stopped,
    /// if known (else the last entry's key is the floor). `bounded`: the request read up to a
    /// bound ([`Request::until`](requests::Request)), which is not the end of the partition.
    pub(crate) fn fill(
        &mut self,
        lane: usize,
        entries: Vec<(Vec<u8>, T)>,
        more: Option<C>,
        floor: Option<Vec<u8>>,
        bounded: bool,
    ) {
        let Some(state) = self.lanes.get(&lane) else { return };
        let was_empty = state.buffer.is_empty();
        self.unindex(lane);
        let Some(state) = self.lanes.get_mut(&lane) else { return };
        state.pending = None;
        state.last_fill = entries.len();
        state.supplied += entries.len();
        let whole = (more.is_none() && !bounded && state.fresh).then_some(state.supplied);
        let floor = floor.or_else(|| entries.last().map(|(key, _)| key.clone()));
        state.floor = floor.or(state.floor.take());
        if let Some((first, _)) = entries.first() {
            state.answer_start = Some(first.clone());
        }
        state.buffer.extend(entries);
        match more {
            Some(key) => state.next = Continuation::After(key),
            // Nothing up to the bound: the lane goes on from where it was, past its new floor.
            None if bounded => {}
            None => state.next = Continuation::Done,
        }
        if let Some(items) = whole {
            self.finished += 1;
            self.finished_items += items;
        }
        if was_empty {
            self.push_head(lane);
        }
        self.index(lane);
    }

    /// Emits the next item of the output, if no blocked lane or unopened group could precede it.
    pub(crate) fn pop(&mut self) -> Step<T> {
        let Some(Reverse(head)) = self.heads.peek() else {
            return if self.blocked.is_empty() { Step::Done } else { Step::Blocked };
        };
        if self.blocked.first().is_some_and(|blocker| blocker < head) {
            return Step::Blocked;
        }
        let Some(Reverse(head)) = self.heads.pop() else { return Step::Blocked };
        let lane = head.lane;
        if let Some(group) = self.lanes.get(&lane).map(|state| state.group) {
            *self.emitted.entry(group).or_default() += 1;
        }
        self.unindex(lane);
        let item = self.lanes.get_mut(&lane).and_then(|state| state.buffer.pop_front());
        self.push_head(lane);
        self.index(lane);
        match item {
            Some((_, item)) => Step::Item(lane, item),
            None => Step::Blocked,
        }
    }

    /// Whether some lane holds an item not emitted yet.
    pub(crate) fn buffers_any(&self) -> bool {
        !self.heads.is_empty()
    }

    /// Whether nothing is buffered, pending or left to read.
    pub(crate) fn is_exhausted(&self) -> bool {
        self.heads.is_empty()
            && self.blocked.is_empty()
            && self.lanes.values().all(|lane| lane.pending.is_none())
    }

    /// Lanes with a request pending.
    #[cfg(test)]
    pub(crate) fn pending(&self) -> usize {
        self.lanes.values().filter(|lane| lane.pending.is_some()).count()
    }

    /// Lanes held (open, not drained).
    #[cfg(test)]
    pub(crate) fn lanes(&self) -> usize {
        self.lanes.len()
    }
}

#[cfg(test)]
mod tests;
