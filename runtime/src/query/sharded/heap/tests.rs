//! The merge against a simulated DynamoDB: random lanes and groups, skewed, empty and equal keys,
//! page sizes, completion orders and concurrency, in both directions, checked against a plain
//! sort; pages resumed at their page end, checked against the same sort.

use super::super::place::ties_before;
use super::super::sizing::{self, ItemSizes, RequestSizing};
use super::*;
use proptest::prelude::*;

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
    fn read(
        &self,
        lane: usize,
        start: usize,
        limit: Option<usize>,
        descending: bool,
    ) -> (Vec<(Vec<u8>, Id)>, Option<At>) {
        let order = self.order(descending);
        let size = limit.map_or(self.page, |limit| limit.min(self.page)).max(1);
        let end = (start + size).min(order.len());
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
}

impl Setup {
    fn groups(&self) -> Groups {
        Groups {
            count: (self.partitions.len() / self.width) as u64,
            width: self.width,
            open_at_once: self.open_at_once,
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
}

/// Reads up to `limit` items (all without one) after `end` (the previous page's last item),
/// completing requests in the order `choices` picks.
fn run(setup: &Setup, end: Option<Id>, limit: Option<usize>, choices: &[usize]) -> Run {
    let descending = setup.descending;
    let (first, starts, drop) = match end {
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
    };
    let mut merger: Merger<Id, At> = Merger::new(descending, setup.groups(), first, starts);
    let sizes = ItemSizes::starting_at(Some(500));
    let mut pending: Vec<(usize, usize, Option<usize>, usize)> = Vec::new();
    let mut run =
        Run { output: Vec::new(), requests: 0, items_read: 0, max_lanes: 0, first_round: 0, rounds: 0 };
    let mut depth = 0usize;
    let mut choice = choices.iter().cycle();
    loop {
        let remaining = limit.map(|limit| limit - run.output.len());
        if remaining == Some(0) {
            return run;
        }
        let slots = setup.concurrency - pending.len();
        let mode = setup.sizing;
        for request in
            merger.requests(remaining, slots, |demand| sizing::limit(demand, &sizes, remaining, mode))
        {
            let start = request.start.map_or(0, |At(position)| position);
            pending.push((request.lane, start, request.limit, depth + 1));
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
            Step::Blocked => {
                assert!(!pending.is_empty(), "blocked with nothing pending");
                let pick = choice.next().copied().unwrap_or(0) % pending.len();
                let (lane, start, request_limit, d) = pending.remove(pick);
                depth = d;
                let (mut entries, more) = setup.partitions[lane].read(lane, start, request_limit, descending);
                run.items_read += entries.len();
                if let Some((group, place, key)) = &drop {
                    if lane / setup.width == *group && ties_before(lane % setup.width, *place, descending) {
                        entries.retain(|(entry, _)| entry != key.as_bytes());
                    }
                }
                let floor = more.map(|At(end)| {
                    let index = setup.partitions[lane].order(descending)[end - 1];
                    setup.partitions[lane].keys[index].as_bytes().to_vec()
                });
                merger.fill(lane, entries, more, floor);
            }
        }
    }
}

/// Keys from a small alphabet (many equal keys), some lanes empty, some holding everything.
fn partitions(lanes: usize) -> impl Strategy<Value = Vec<Partition>> {
    let keys =
        prop::collection::vec(prop::sample::select(vec!["a", "b", "bb", "c", "d", "é", "e", "f"]), 0..24);
    let lane = (keys, 1usize..6).prop_map(|(keys, page)| {
        let mut keys: Vec<String> = keys.into_iter().map(str::to_owned).collect();
        keys.sort();
        Partition { keys, page }
    });
    prop::collection::vec(lane, lanes..=lanes)
}

/// Lanes in groups whose keys are disjoint and ordered in the direction of the read.
fn grouped(groups: usize, width: usize, descending: bool) -> impl Strategy<Value = Vec<Partition>> {
    partitions(groups * width).prop_map(move |mut lanes| {
        for (lane, partition) in lanes.iter_mut().enumerate() {
            let group = lane / width;
            let rank = if descending { groups - 1 - group } else { group };
            for key in &mut partition.keys {
                *key = format!("{rank:02}#{key}");
            }
        }
        lanes
    })
}

fn setup_strategy() -> impl Strategy<Value = Setup> {
    (1usize..5, 1usize..6, any::<bool>(), 1usize..8, 1u64..4, any::<bool>()).prop_flat_map(
        |(groups, width, descending, concurrency, open, one_round)| {
            let sizing = if one_round { RequestSizing::OneRoundTrip } else { RequestSizing::Floor };
            grouped(groups, width, descending).prop_map(move |partitions| Setup {
                partitions,
                width,
                descending,
                concurrency,
                open_at_once: open,
                sizing,
            })
        },
    )
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

/// Uniform keys over `lanes` lanes, `per_lane` each, distinct.
fn uniform(lanes: usize, per_lane: usize, seed: u64) -> Vec<Partition> {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        state >> 33
    };
    (0..lanes)
        .map(|lane| {
            let mut keys: Vec<String> =
                (0..per_lane).map(|i| format!("{:010}#{lane:02}#{i:05}", next())).collect();
            keys.sort();
            Partition { keys, page: 2_000 }
        })
        .collect()
}

fn merge_of(partitions: Vec<Partition>, concurrency: usize) -> Setup {
    let width = partitions.len();
    Setup { partitions, width, descending: false, concurrency, open_at_once: 1, sizing: RequestSizing::Floor }
}

#[test]
fn a_merged_page_asks_each_shard_about_once() {
    // 21 shards of 500-byte items, pages of 100: the floor is 21 requests of one unit (8 items).
    let (mut pages, mut requests) = (0, 0);
    for seed in 0..20 {
        let setup = merge_of(uniform(21, 1_000, seed), 32);
        let expected = setup.expected();
        let mut end = None;
        for page in 0..5 {
            let read = run(&setup, end, Some(100), &[1]);
            assert_eq!(read.output, expected[page * 100..(page + 1) * 100]);
            assert!(read.requests <= 28, "seed {seed} page {page}: {} requests", read.requests);
            assert!(read.items_read <= 240, "seed {seed} page {page}: {} items", read.items_read);
            (pages, requests) = (pages + 1, requests + read.requests);
            end = read.output.last().copied();
        }
        let large = run(&setup, None, Some(1_000), &[1]);
        assert!(large.requests <= 40, "seed {seed}: {} requests for 1,000", large.requests);
        assert!(large.items_read <= 1_250, "seed {seed}: {} items for 1,000", large.items_read);
    }
    assert!(requests <= 25 * pages + pages / 2, "{requests} requests for {pages} pages");
}

/// Pseudo-random completion orders.
fn shuffled(seed: u64) -> Vec<usize> {
    let mut state = seed.wrapping_mul(7).wrapping_add(3);
    (0..64)
        .map(|_| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) as usize
        })
        .collect()
}

#[test]
fn a_large_page_reads_little_past_its_end_whatever_answers_first() {
    // 21 shards, a page of 1,000: the floor is 1,000 items and one more of each shard. A lane
    // asked again while others are in flight counts what those are expected to bring before it.
    let (seeds, mut items, mut requests, mut rounds) = (40, 0, 0, 0);
    for seed in 0..seeds {
        let setup = merge_of(uniform(21, 1_000, seed), 32);
        let read = run(&setup, None, Some(1_000), &shuffled(seed));
        assert_eq!(read.output, setup.expected()[..1_000]);
        (items, requests, rounds) = (items + read.items_read, requests + read.requests, rounds + read.rounds);
    }
    assert!(items <= 1_160 * seeds as usize, "{} items per page", items / seeds as usize);
    assert!(requests <= 33 * seeds as usize, "{} requests per page", requests / seeds as usize);
    assert!(rounds * 10 <= 26 * seeds as usize, "{rounds} rounds for {seeds} pages");
}

#[test]
fn one_round_trip_pages_rarely_need_a_second_round() {
    // The same pages, first sized at the floor, then for one round trip.
    let (mut pages, mut floor_again, mut fast_again) = (0, 0, 0);
    for seed in 0..20 {
        let floor = merge_of(uniform(21, 1_000, seed), 32);
        let fast = Setup { sizing: RequestSizing::OneRoundTrip, ..floor.clone() };
        let expected = floor.expected();
        let mut end = None;
        for page in 0..5 {
            let (slow, quick) = (run(&floor, end, Some(100), &[1]), run(&fast, end, Some(100), &[1]));
            assert_eq!(quick.output, expected[page * 100..(page + 1) * 100]);
            assert_eq!((slow.first_round, quick.first_round), (21, 21), "seed {seed} page {page}");
            assert!(quick.items_read <= 21 * 16 + 16, "seed {seed} page {page}: {} items", quick.items_read);
            pages += 1;
            floor_again += usize::from(slow.requests > 21);
            fast_again += usize::from(quick.requests > 21);
            end = quick.output.last().copied();
        }
    }
    assert!(fast_again * 10 <= pages, "{fast_again} of {pages} pages took a second round");
    assert!(floor_again * 2 >= pages, "{floor_again} of {pages} pages took a second round at the floor");
}

#[test]
fn small_pages_ask_every_shard_at_once() {
    for lanes in 2..=21 {
        for page in 1..=40 {
            for sizing in [RequestSizing::Floor, RequestSizing::OneRoundTrip] {
                let setup = Setup { sizing, ..merge_of(uniform(lanes, 100, lanes as u64), 32) };
                let read = run(&setup, None, Some(page), &[0]);
                assert_eq!(read.output, setup.expected()[..page]);
                assert_eq!(read.first_round, lanes, "{lanes} lanes, a page of {page}, {sizing:?}");
            }
        }
    }
}

#[test]
fn a_shard_holding_everything_is_caught_up_in_a_few_rounds() {
    let mut partitions: Vec<Partition> =
        (0..21).map(|_| Partition { keys: Vec::new(), page: 2_000 }).collect();
    partitions[7].keys = (0..1_000).map(|i| format!("{i:05}")).collect();
    let alone = run(&merge_of(partitions, 32), None, Some(100), &[0]);
    assert_eq!(alone.output.len(), 100);
    assert!(alone.requests <= 21 + 2, "{} requests", alone.requests);
    let mut skewed = uniform(21, 200, 3);
    skewed[0].keys = (0..1_000).map(|i| format!("{:010}#hot#{i:05}", i * 1_000)).collect();
    let hot = run(&merge_of(skewed, 32), None, Some(100), &[0]);
    assert!(hot.requests <= 21 + 5, "{} requests", hot.requests);
}

#[test]
fn groups_are_opened_lazily_and_at_most_a_few_at_once() {
    // 1,000 buckets of 4 shards, the first 20 items in the first three buckets.
    let mut partitions = Vec::new();
    for group in 0..1_000 {
        for shard in 0..4 {
            let keys = if group < 3 {
                (0..2).map(|i| format!("{group:04}#{shard}#{i}")).collect()
            } else {
                Vec::new()
            };
            partitions.push(Partition { keys, page: 2_000 });
        }
    }
    let setup = Setup {
        partitions,
        width: 4,
        descending: false,
        concurrency: 8,
        open_at_once: 2,
        sizing: RequestSizing::Floor,
    };
    let page = run(&setup, None, Some(20), &[0]);
    assert_eq!(page.output, setup.expected()[..20]);
    assert!(page.requests <= 4 * 4, "{} requests", page.requests);
    assert!(page.max_lanes <= 8);
}

#[test]
fn the_first_requests_go_out_together() {
    for wanted in [Some(100), None] {
        let mut merger: Merger<Id, At> =
            Merger::new(false, Groups { count: 1, width: 21, open_at_once: 1 }, 0, Vec::new());
        let requests = merger.requests(wanted, 32, |_| Some(8));
        assert_eq!(requests.len(), 21, "every shard at once ({wanted:?})");
        assert!(merger.requests(wanted, 32, |_| Some(8)).is_empty(), "and nothing more before they answer");
    }
}
