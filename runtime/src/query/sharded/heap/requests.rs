//! Which lanes a merge reads next, and what it knows when it asks: the items known to come
//! before a lane, and the demand a request is sized for.

use super::{Continuation, Lane, Merger, Place};
use std::ops::Bound::{Excluded, Unbounded};

/// What the merge knows when it asks a lane for items, for sizing the request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Demand {
    /// Items still wanted beyond those known to come before the lane (0 without a limit).
    pub need: usize,
    /// Lanes of the group that may still hold some of them, this one included (at least 1).
    pub competing: usize,
    /// What the lane supplied so far, and how many items of the output come before its floor:
    /// its share of the output, once it was read.
    pub supplied: Option<(usize, usize)>,
    /// The items a page end knows the lane holds of the page, when it says (see
    /// `resume::Horizon::held`).
    pub held: Option<usize>,
    /// Whether the lane's last answer came with no item of another lane between its first and
    /// last keys, and every other lane had read past them: the output is the lane's alone there,
    /// and likely goes on so (a run of one title, a burst of one account).
    pub dense: bool,
}

/// A request the merge wants sent: a lane, the key to start after, its `Limit`, and the sort key
/// it need not read past (see [`Merger::output_bound`]).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Request<C> {
    pub lane: usize,
    pub start: Option<C>,
    pub limit: Option<usize>,
    pub until: Option<Vec<u8>>,
}

/// What is known to come before a place: items buffered or expected in all, and buffered in
/// the place's own group.
struct Known {
    items: usize,
    in_group: usize,
}

impl<T, C: Clone> Merger<T, C> {
    /// Items known to come before `place` (or at it): buffered, plus what requests in flight
    /// for lanes of earlier groups are expected to bring, and what a request for a lane of the
    /// same group that asked for all that was still wanted, from before `place`, asked for.
    fn known_before(&self, place: &Place) -> Known {
        // A request in flight brings what it asked for, or what whole lanes held, if less.
        let expected = |asked: usize| match self.finished {
            finished if finished > 0 && self.groups.even => asked.min(self.finished_items.div_ceil(finished)),
            _ => asked,
        };
        let descending = self.descending;
        let mut known = Known { items: 0, in_group: 0 };
        for (&lane, state) in &self.lanes {
            if state.group > place.group {
                continue;
            }
            let before = |key: &Vec<u8>| {
                Place { group: state.group, key: Some(key.clone()), lane, descending } <= *place
            };
            let buffered = state.buffer.partition_point(|(key, _)| before(key));
            // A lane read before whose next items start before `place` may bring all it asked.
            let floor = Place { group: state.group, key: state.floor.clone(), lane, descending };
            let in_flight = match state.pending {
                Some(asked) if state.group < place.group => expected(asked),
                Some(asked) if state.covers && floor < *place => asked,
                Some(asked) if state.floor.is_some() && floor < *place => {
                    self.expected_between(state.supplied, &floor, place).min(asked)
                }
                _ => 0,
            };
            known.items = known.items.saturating_add(buffered).saturating_add(in_flight);
            if state.group == place.group {
                known.in_group += buffered;
            }
        }
        known
    }

    /// What a lane read before, asked again from `floor`, will likely bring at least before
    /// `place` (both in one group): its share of the output so far (`supplied` of the items up to
    /// its floor) of the items buffered between the two, less one standard deviation. Low on
    /// purpose: the items of other lanes still unread there are not counted, and a lane not asked
    /// because of a guess too high waits a round trip for it.
    fn expected_between(&self, supplied: usize, floor: &Place, place: &Place) -> usize {
        let (mut up_to_floor, mut between) = (0usize, 0usize);
        for (&lane, state) in self.lanes.iter().filter(|(_, state)| state.group == place.group) {
            let descending = self.descending;
            let at = |key: &Vec<u8>| Place { group: state.group, key: Some(key.clone()), lane, descending };
            let before_place = state.buffer.partition_point(|(key, _)| at(key) <= *place);
            let before_floor = state.buffer.partition_point(|(key, _)| at(key) <= *floor);
            up_to_floor += before_floor;
            between += before_place.saturating_sub(before_floor);
        }
        let rank = self.emitted.get(&place.group).copied().unwrap_or(0) + up_to_floor;
        if rank == 0 {
            return 0;
        }
        let expected = between as f64 * supplied as f64 / rank as f64;
        (expected - expected.sqrt()).max(0.0) as usize
    }

    /// The sort key of the `wanted`-th item buffered, in output order, in a merge of one group:
    /// an item of any lane with a key after it is preceded by `wanted` items known already, so
    /// it cannot be in the output, and no request needs to read past that key. The key itself is
    /// included: an item there may still come before some of them (ties go by lane).
    ///
    /// Without the bound, a lane asked for its share of what is still wanted reads on past the
    /// page when its items run out early (a run of equal keys ending): each item read there is
    /// paid for and dropped.
    pub(crate) fn output_bound(&self, wanted: usize) -> Option<Vec<u8>> {
        if self.groups.count != 1 || wanted == 0 {
            return None;
        }
        let mut keys: Vec<&[u8]> =
            self.lanes.values().flat_map(|lane| lane.buffer.iter().map(|(key, _)| key.as_slice())).collect();
        if keys.len() < wanted {
            return None;
        }
        let (_, key, _) = if self.descending {
            keys.select_nth_unstable_by(wanted - 1, |a, b| b.cmp(a))
        } else {
            keys.select_nth_unstable(wanted - 1)
        };
        Some(key.to_vec())
    }

    /// Whether lane `lane`'s last answer is the output's alone: no other lane of its group holds
    /// an item strictly between that answer's first and last keys, and every other lane with
    /// more to read has read past its last key (a lane in flight from before it has not).
    fn dense(&self, lane: usize) -> bool {
        let Some(state) = self.lanes.get(&lane) else { return false };
        let (Some(first), Some(last)) = (&state.answer_start, &state.floor) else { return false };
        let descending = self.descending;
        let before = |a: &[u8], b: &[u8]| if descending { a > b } else { a < b };
        let alone = |(&number, other): (&usize, &Lane<T, C>)| {
            if number == lane || other.group != state.group {
                return true;
            }
            let inside = other.buffer.iter().any(|(key, _)| before(first, key) && before(key, last));
            let behind = other.has_more() && other.floor.as_deref().is_none_or(|floor| before(floor, last));
            !inside && !behind
        };
        first != last && self.lanes.iter().all(alone)
    }

    /// Whether the lane at `place`, read before, waits on a first request to another lane of its
    /// group: until that answers, nothing says where the other lane's items fall, so whether this
    /// lane is needed at all is unknown. A lane never read waits on nothing (the first requests to
    /// a group go out together), and later requests go out together too.
    fn waits_on_earlier(&self, place: &Place) -> bool {
        place.key.is_some()
            && self
                .lanes
                .values()
                .any(|state| state.group == place.group && state.pending.is_some() && state.floor.is_none())
    }

    /// Picks up to `slots` requests to send and marks their lanes pending. With `wanted` (items
    /// still wanted), a lane is read only while fewer are known to come before it; without, every
    /// blocked lane is read, and every other one read ahead by a page, earliest first. `size`
    /// turns a lane and its [`Demand`] into a request's `Limit`.
    pub(crate) fn requests(
        &mut self,
        wanted: Option<usize>,
        slots: usize,
        size: impl Fn(usize, &Demand) -> Option<usize>,
    ) -> Vec<Request<C>> {
        let mut requests = Vec::new();
        let mut after: Option<Place> = None;
        // Buffers do not change while requests are picked: one bound serves them all.
        let bound = wanted.and_then(|wanted| self.output_bound(wanted));
        while requests.len() < slots {
            let candidate = match &after {
                None => self.frontier.first().cloned(),
                Some(after) => self.frontier.range((Excluded(after), Unbounded)).next().cloned(),
            };
            let unopened = (self.next_group < self.groups.count).then(|| self.unopened(self.next_group));
            // The next group, when it comes before every lane left to read.
            if let Some(group) = unopened.filter(|group| candidate.as_ref().is_none_or(|lane| group < lane)) {
                if wanted.is_some_and(|wanted| self.known_before(&group).items >= wanted) || !self.open_next()
                {
                    break;
                }
                continue;
            }
            let Some(place) = candidate else { break };
            let Some(state) = self.lanes.get(&place.lane) else { break };
            let demand = match wanted {
                Some(wanted) => {
                    let known = self.known_before(&place);
                    let before = known.items;
                    if before >= wanted || self.waits_on_earlier(&place) {
                        break;
                    }
                    let group = state.group;
                    // Lanes parked past the place hold none of it; those parked at or before it
                    // may (the place's own lane among them).
                    let descending = self.descending;
                    let reached = |lane: &Lane<T, C>| match (&lane.floor, &place.key) {
                        (Some(floor), Some(at)) => (floor <= at) != descending || floor == at,
                        _ => false,
                    };
                    let sharing = |lane: &&Lane<T, C>| {
                        lane.group == group && lane.has_more() && (lane.parked.is_none() || reached(lane))
                    };
                    let competing = self.lanes.values().filter(sharing).count();
                    // Its share of its own group's output: earlier groups are not its business.
                    let rank = self.emitted.get(&state.group).copied().unwrap_or(0) + known.in_group;
                    let supplied = (state.floor.is_some() && rank > 0).then_some((state.supplied, rank));
                    Demand {
                        need: wanted - before,
                        competing: competing.max(1),
                        supplied,
                        held: state.held,
                        dense: self.dense(place.lane),
                    }
                }
                None if !state.buffer.is_empty() && state.buffer.len() > state.last_fill => {
                    after = Some(place);
                    continue;
                }
                None => Demand { need: 0, competing: 1, supplied: None, held: None, dense: false },
            };
            let start = match &state.next {
                Continuation::Start(start) => start.clone(),
                Continuation::After(key) => Some(key.clone()),
                Continuation::Done => break,
            };
            let limit = size(place.lane, &demand);
            // A lane whose floor lies past the bound holds nothing of the output (and is not
            // asked); one before it reads up to it. One at it reads on unbounded: a bounded
            // read there could bring nothing, and leave the lane where it was.
            let until = bound.clone().filter(|bound| {
                let descending = self.descending;
                state
                    .floor
                    .as_ref()
                    .is_none_or(|floor| if descending { floor > bound } else { floor < bound })
            });
            self.unindex(place.lane);
            if let Some(state) = self.lanes.get_mut(&place.lane) {
                state.pending = Some(limit.unwrap_or(usize::MAX));
                state.parked = None;
                state.held = None;
                // Only a lane read before is believed to hold what it was asked for: a first
                // request as large as the page is a guess, and the other lanes' first requests
                // go out with it.
                let believed = demand.supplied.is_some() || demand.competing == 1;
                state.covers = believed && demand.need > 0 && limit.is_none_or(|limit| limit >= demand.need);
            }
            self.index(place.lane);
            requests.push(Request { lane: place.lane, start, limit, until });
        }
        requests
    }
}
