//! The merge against a simulated DynamoDB: random lanes and groups, skewed, empty and equal keys,
//! page sizes, completion orders and concurrency, in both directions, checked against a plain
//! sort; pages resumed at their page end, checked against the same sort.

use super::super::bands::{Bands, Bound};
use super::super::place::ties_before;
use super::super::sizing::{self, RequestSizing, Size};
use super::*;
use proptest::prelude::*;

mod back;
mod costs;
mod runs;
mod strategies;

use strategies::{merge_strategy, setup_strategy};

/// An item as the simulation hands it to the merge: (lane, index in the lane's ascending keys).
type Id = (usize, usize);

/// One lane's partition as DynamoDB would serve it: ascending sort keys (duplicates allowed),
/// read forwards or backwards, at most `page` per request.
#[derive(Clone, Debug)]
struct Partition {
    keys: Vec<String>,
    page: usize,
}

/// Where a request starts in a partition: an index in read order.
#[derive(Clone, Copy, Debug, PartialEq)]
struct At(usize);

impl Partition {
    /// The key indexes in read order.
    fn order(&self, descending: bool) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.keys.len()).collect();
        if descending {
            order.reverse();
        }
        order
    }

    /// The page from read position `start`, and where to continue (like DynamoDB, a page that
    /// stops at its size has a continuation even at the very end).
    /// Up to `until` (a sort key, included), when given: a page that reaches it first has no
    /// continuation, as a key condition that ends there.
    fn read(
        &self,
        lane: usize,
        start: usize,
        limit: Option<usize>,
        descending: bool,
        until: Option<&[u8]>,
    ) -> (Vec<(Vec<u8>, Id)>, Option<At>) {
        let order = self.order(descending);
        let size = limit.map_or(self.page, |limit| limit.min(self.page)).max(1);
        let within = |index: &usize| {
            let key = self.keys[*index].as_bytes();
            until.is_none_or(|until| if descending { key >= until } else { key <= until })
        };
        let last = start + order[start.min(order.len())..].iter().take_while(|index| within(index)).count();
        let end = (start + size).min(last);
        let entries = order[start.min(end)..end]
            .iter()
            .map(|&index| (self.keys[index].as_bytes().to_vec(), (lane, index)))
            .collect();
        (entries, (end - start.min(end) == size).then_some(At(end)))
    }
}

#[derive(Clone, Debug)]
struct Setup {
    /// Lanes by lane number: group `g`'s lanes are `g * width ..`.
    partitions: Vec<Partition>,
    width: usize,
    descending: bool,
    concurrency: usize,
    open_at_once: u64,
    sizing: RequestSizing,
    /// Whether the groups are taken to hold about as many items each.
    even: bool,
    /// Whether a directory lists the groups' non-empty lanes, read this many groups at a time
    /// (see `heap::listing`), and the empty lanes it lists all the same (items since deleted).
    listed: Option<(usize, Vec<usize>)>,
}

impl Setup {
    fn groups(&self) -> Groups {
        Groups {
            count: (self.partitions.len() / self.width) as u64,
            width: self.width,
            open_at_once: self.open_at_once,
            even: self.even,
        }
    }

    /// Every item in output order: group, then key and lane (reversed when descending), then
    /// read order within the lane.
    fn expected(&self) -> Vec<Id> {
        let mut all: Vec<(usize, &String, usize, usize)> = Vec::new();
        for (lane, partition) in self.partitions.iter().enumerate() {
            for (index, key) in partition.keys.iter().enumerate() {
                all.push((lane / self.width, key, lane, index));
            }
        }
        all.sort_by(|a, b| {
            let within = a.1.as_bytes().cmp(b.1.as_bytes()).then(a.2.cmp(&b.2)).then(a.3.cmp(&b.3));
            a.0.cmp(&b.0).then(if self.descending { within.reverse() } else { within })
        });
        all.into_iter().map(|(_, _, lane, index)| (lane, index)).collect()
    }

    fn key(&self, (lane, index): Id) -> &str {
        &self.partitions[lane].keys[index]
    }

    /// The directory's next part from group `from`: the listed lanes of up to `page` groups
    /// that have some, and the group it reaches.
    fn directory(&self, from: u64) -> (Vec<(u64, Vec<usize>)>, u64) {
        let Some((page, stale)) = &self.listed else { return (Vec::new(), u64::MAX) };
        let count = self.groups().count;
        let mut groups = Vec::new();
        for group in from..count {
            let lanes: Vec<usize> = (0..self.width)
                .filter(|&offset| {
                    let lane = group as usize * self.width + offset;
                    !self.partitions[lane].keys.is_empty() || stale.contains(&lane)
                })
                .collect();
            if !lanes.is_empty() {
                groups.push((group, lanes));
                if groups.len() == *page {
                    return (groups, group + 1);
                }
            }
        }
        (groups, count)
    }
}

struct Run {
    output: Vec<Id>,
    requests: usize,
    items_read: usize,
    max_lanes: usize,
    /// Requests sent before any answered.
    first_round: usize,
    /// Round trips one after another: a request sent after an answer is one round later.
    rounds: usize,
    /// The horizon the merge knew at the end, for a next page as large as this one.
    horizon: Option<Horizon>,
    /// Parts of the directory read (also counted in `requests`).
    listings: usize,
}

/// A horizon as the merge gives it: the bands of the page end's group, and the items each lane
/// read as usual holds up to the first edge.
type Horizon = (Bands, Vec<Option<usize>>);

/// Reads up to `limit` items (all without one) after `end` (the previous page's last item),
/// completing requests in the order `choices` picks.
fn run(setup: &Setup, end: Option<Id>, limit: Option<usize>, choices: &[usize]) -> Run {
    run_parked(setup, end, None, limit, choices)
}

/// [`run`], with the lanes of the page end's group parked at their edges in `horizon`.
fn run_parked(
    setup: &Setup,
    end: Option<Id>,
    horizon: Option<&Horizon>,
    limit: Option<usize>,
    choices: &[usize],
) -> Run {
    let (first, starts, drop) = resumption(setup, end);
    let floors = match (horizon, &drop) {
        (Some((bands, _)), Some(_)) => bands
            .codes
            .iter()
            .map(|&code| {
                let edge = bands.edges.get(usize::from(code).checked_sub(1)?)?;
                Some(Bound { key: edge.clone(), exclusive: true })
            })
            .collect(),
        _ => Vec::new(),
    };
    let held = horizon.map(|(_, held)| held.clone()).unwrap_or_default();
    run_with_floors(setup, (first, starts, drop), (floors, held), limit, choices)
}

/// What a page end tells each lane: where it is parked, and how many items of the page it holds.
fn told(floors: Vec<Option<Bound>>, held: Vec<Option<usize>>) -> Vec<Told> {
    let lanes = floors.len().max(held.len());
    let (mut floors, mut held) = (floors.into_iter(), held.into_iter());
    (0..lanes).map(|_| Told { parked: floors.next().flatten(), held: held.next().flatten() }).collect()
}

/// How a read of `setup` resumes after `end` (the previous page's last item).
fn resumption(setup: &Setup, end: Option<Id>) -> Resumption {
    let descending = setup.descending;
    match end {
        None => (0, Vec::new(), None),
        Some((end_lane, index)) => {
            // The page end: its lane resumes right after it, the others of its group at its key.
            let (group, place) = (end_lane / setup.width, end_lane % setup.width);
            let key = setup.key((end_lane, index)).to_owned();
            let starts = (0..setup.width)
                .map(|offset| {
                    let lane = group * setup.width + offset;
                    let order = setup.partitions[lane].order(descending);
                    let position = if offset == place {
                        order.iter().position(|&i| i == index).map_or(0, |p| p + 1)
                    } else {
                        let keys = &setup.partitions[lane].keys;
                        let from_key = |&i: &usize| if descending { keys[i] <= key } else { keys[i] >= key };
                        order.iter().position(from_key).unwrap_or(order.len())
                    };
                    Continuation::Start(Some(At(position)))
                })
                .collect();
            (group as u64, starts, Some((group, place, key)))
        }
    }
}

/// Where a read starts: its first group, the starts of that group's lanes, and the page end
/// whose ties it drops (group, place, key).
type Resumption = (u64, Vec<Continuation<At>>, Option<(usize, usize, String)>);

/// A request in flight: lane, start, limit, bound, and its round trip.
type Pending = (usize, usize, Option<usize>, Option<Vec<u8>>, usize);

/// [`run`], resumed as `resumption` says, with the first group's lanes parked at `floors`.
fn run_with_floors(
    setup: &Setup,
    (first, starts, drop): Resumption,
    (floors, held): (Vec<Option<Bound>>, Vec<Option<usize>>),
    limit: Option<usize>,
    choices: &[usize],
) -> Run {
    let descending = setup.descending;
    let mut merger: Merger<Id, At> =
        Merger::new(descending, setup.groups(), first, starts).told(told(floors, held));
    if setup.listed.is_some() {
        merger = merger.listed();
    }
    let sizes = Some(Size::exactly(500));
    let mut pending: Vec<Pending> = Vec::new();
    let mut run = Run {
        output: Vec::new(),
        requests: 0,
        items_read: 0,
        max_lanes: 0,
        first_round: 0,
        rounds: 0,
        horizon: None,
        listings: 0,
    };
    let mut depth = 0usize;
    let mut choice = choices.iter().cycle();
    loop {
        let remaining = limit.map(|limit| limit - run.output.len());
        if remaining == Some(0) {
            run.horizon = limit.and_then(|limit| merger.horizon(limit));
            return run;
        }
        if let Some(from) = merger.unlisted() {
            let (groups, through) = setup.directory(from);
            merger.list(groups, through);
            run.listings += 1;
            run.requests += 1;
        }
        let slots = setup.concurrency - pending.len();
        let mode = setup.sizing;
        for request in
            merger.requests(remaining, slots, |_, demand| sizing::limit(demand, sizes, remaining, mode))
        {
            let start = request.start.map_or(0, |At(position)| position);
            let until = request.until.filter(|_| sizing::worth_bounding(request.limit, sizes));
            pending.push((request.lane, start, request.limit, until, depth + 1));
            run.rounds = run.rounds.max(depth + 1);
            run.requests += 1;
        }
        if run.first_round == 0 {
            run.first_round = run.requests;
        }
        assert_eq!(merger.pending(), pending.len());
        run.max_lanes = run.max_lanes.max(merger.lanes());
        // Sometimes a request completes before the merge is blocked.
        let early = !pending.is_empty() && choice.next().is_some_and(|c| c % 3 == 0);
        let step = if early { Step::Blocked } else { merger.pop() };
        match step {
            Step::Item(lane, id) => {
                assert_eq!(lane, id.0);
                run.output.push(id);
            }
            Step::Done => {
                assert!(pending.is_empty(), "done with requests pending");
                return run;
            }
            Step::Blocked if pending.is_empty() && merger.unlisted().is_some() => {}
            Step::Blocked => {
                assert!(!pending.is_empty(), "blocked with nothing pending");
                let pick = choice.next().copied().unwrap_or(0) % pending.len();
                let answered = pending.remove(pick);
                depth = answered.4;
                run.items_read += answer(setup, &mut merger, answered, drop.as_ref());
            }
        }
    }
}

/// Serves `request` from the simulated partitions and hands its page to `merger`, dropping what
/// a resumed page end drops; the items read.
fn answer(
    setup: &Setup,
    merger: &mut Merger<Id, At>,
    (lane, start, limit, until, _): Pending,
    drop: Option<&(usize, usize, String)>,
) -> usize {
    let descending = setup.descending;
    let partition = &setup.partitions[lane];
    let (mut entries, more) = partition.read(lane, start, limit, descending, until.as_deref());
    let read = entries.len();
    // As the reader does: a bounded read that ended at its bound goes on after its last item,
    // its floor at the bound.
    let bounded = until.is_some();
    let (more, bound_floor) = match (more, until) {
        (None, Some(until)) => ((!entries.is_empty()).then_some(At(start + entries.len())), Some(until)),
        (more, _) => (more, None),
    };
    if let Some((group, place, key)) = drop {
        if lane / setup.width == *group && ties_before(lane % setup.width, *place, descending) {
            entries.retain(|(entry, _)| entry != key.as_bytes());
        }
    }
    let floor = bound_floor.or_else(|| {
        more.map(|At(end)| {
            let index = partition.order(descending)[end - 1];
            partition.keys[index].as_bytes().to_vec()
        })
    });
    merger.fill(lane, entries, more, floor, bounded);
    read
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn whole_reads_are_exact(setup in setup_strategy(), choices in prop::collection::vec(0usize..64, 1..16)) {
        let read = run(&setup, None, None, &choices);
        prop_assert_eq!(read.output, setup.expected());
        prop_assert!(read.max_lanes <= setup.width * setup.open_at_once as usize);
    }

    #[test]
    fn limited_reads_are_exact(setup in setup_strategy(), limit in 1usize..30, choices in prop::collection::vec(0usize..64, 1..16)) {
        let read = run(&setup, None, Some(limit), &choices);
        let expected: Vec<Id> = setup.expected().into_iter().take(limit).collect();
        prop_assert_eq!(read.output, expected);
    }

    #[test]
    fn pages_resume_exactly_at_their_end_and_horizon(setup in merge_strategy(), page in 1usize..12, choices in prop::collection::vec(0usize..64, 1..16)) {
        let expected = setup.expected();
        let (mut output, mut end, mut horizon) = (Vec::new(), None, None);
        for _ in 0..=expected.len() {
            let read = run_parked(&setup, end, horizon.as_ref(), Some(page), &choices);
            if read.output.is_empty() {
                break;
            }
            end = read.output.last().copied();
            horizon = read.horizon;
            output.extend(read.output);
        }
        prop_assert_eq!(output, expected);
    }

    #[test]
    fn pages_resume_exactly_at_their_end(setup in setup_strategy(), page in 1usize..12, choices in prop::collection::vec(0usize..64, 1..16)) {
        let expected = setup.expected();
        let mut output = Vec::new();
        let mut end = None;
        for _ in 0..=expected.len() {
            let read = run(&setup, end, Some(page), &choices);
            if read.output.is_empty() {
                break;
            }
            end = read.output.last().copied();
            output.extend(read.output);
        }
        prop_assert_eq!(output, expected);
    }
}
