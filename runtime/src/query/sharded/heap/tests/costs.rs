//! What a merge asks of DynamoDB: requests, items read and round trips per page, on uniform
//! shards of the simulation, and when it opens groups and sends its first requests.

use super::back::back_floors;
use super::*;

/// Uniform keys over `lanes` lanes, `per_lane` each, distinct.
pub(super) fn uniform(lanes: usize, per_lane: usize, seed: u64) -> Vec<Partition> {
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

pub(super) fn merge_of(partitions: Vec<Partition>, concurrency: usize) -> Setup {
    let width = partitions.len();
    Setup {
        partitions,
        width,
        descending: false,
        concurrency,
        open_at_once: 1,
        sizing: RequestSizing::Floor,
        even: false,
        listed: None,
    }
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
        even: true,
        listed: None,
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
            Merger::new(false, Groups { count: 1, width: 21, open_at_once: 1, even: false }, 0, Vec::new());
        let requests = merger.requests(wanted, 32, |_, _| Some(8));
        assert_eq!(requests.len(), 21, "every shard at once ({wanted:?})");
        assert!(
            merger.requests(wanted, 32, |_, _| Some(8)).is_empty(),
            "and nothing more before they answer"
        );
    }
}

#[test]
fn later_pages_ask_only_the_lanes_their_bands_reach() {
    // 500 keys of a feed, pages of 20: a first page asks every key. Each page end parks every
    // key at the edge of its band (about 20 keys a band, 15 bands), so each later page asks the
    // keys whose items it holds and those of the bands it reaches, page after page, not every
    // key every other page. Without a horizon every page asks every key.
    let setup = merge_of(uniform(500, 40, 7), 32);
    let expected = setup.expected();
    let (mut end, mut horizon, mut later) = (None, None, Vec::new());
    for page in 0..9 {
        let read = run_parked(&setup, end, horizon.as_ref(), Some(20), &[1]);
        assert_eq!(read.output, expected[page * 20..(page + 1) * 20]);
        if page == 0 {
            assert!(read.requests >= 500, "the first page asks every key: {}", read.requests);
        } else {
            later.push(read.requests);
        }
        end = read.output.last().copied();
        horizon = read.horizon;
    }
    assert!(later.iter().all(|&requests| requests <= 50), "{later:?}");
    let again = run(&setup, Some(expected[19]), Some(20), &[1]);
    assert!(again.requests >= 500, "{} requests", again.requests);
}

#[test]
fn a_range_page_reads_the_shards_that_hold_it_and_no_further() {
    // 21 range shards, read one after another: the first three empty, the fourth holding a
    // thousand items, the rest a hundred each. A page of 100 inside the fourth shard asks the
    // shards up to it, once each, and no shard after it; an empty shard does not make the read
    // expect nothing of a request in flight (range shards hold what the data put in them).
    let partitions: Vec<Partition> = (0..21)
        .map(|shard| {
            let count = match shard {
                0..=2 => 0,
                3 => 1_000,
                _ => 100,
            };
            let keys = (0..count).map(|i| format!("{shard:02}#{i:05}")).collect();
            Partition { keys, page: 2_000 }
        })
        .collect();
    let setup = Setup {
        partitions,
        width: 1,
        descending: false,
        concurrency: 32,
        open_at_once: 32,
        sizing: RequestSizing::Floor,
        even: false,
        listed: None,
    };
    let expected = setup.expected();
    let mut end = None;
    for page in 0..5 {
        let read = run(&setup, end, Some(100), &[1]);
        assert_eq!(read.output, expected[page * 100..(page + 1) * 100]);
        let bound = if page == 0 { 4 } else { 1 };
        assert!(read.requests <= bound, "page {page}: {} requests", read.requests);
        assert!(read.items_read <= 101, "page {page}: {} items", read.items_read);
        end = read.output.last().copied();
    }
    // Taken as even, the empty shards would have the read open every shard at once.
    let even = run(&Setup { even: true, ..setup.clone() }, None, Some(100), &[1]);
    assert!(even.requests > 10, "{} requests", even.requests);
}

/// A window of 3,000 buckets over 4 shards holding 60 items in a few buckets: with a directory,
/// a page reads the partitions that hold items and the directory, and nothing else, however far
/// apart the buckets are; without one, every empty bucket before the first item costs a request
/// per shard.
#[test]
fn a_listed_window_reads_only_its_partitions_that_hold_items() {
    let (groups, width) = (3_000usize, 4usize);
    let full = [5usize, 6, 1_200, 2_999];
    let partitions: Vec<Partition> = (0..groups * width)
        .map(|lane| {
            let (group, shard) = (lane / width, lane % width);
            let count = if full.contains(&group) && shard != 3 { 5 } else { 0 };
            let keys = (0..count).map(|i| format!("{group:05}#{i:02}#{shard}")).collect();
            Partition { keys, page: 2_000 }
        })
        .collect();
    for descending in [false, true] {
        let mut partitions = partitions.clone();
        if descending {
            // Group `g` of a descending read is the window's bucket `groups - 1 - g`.
            partitions = partitions.chunks(width).rev().flatten().cloned().collect();
        }
        let setup = Setup {
            partitions,
            width,
            descending,
            concurrency: 32,
            open_at_once: 8,
            sizing: RequestSizing::Floor,
            even: true,
            listed: Some((20, Vec::new())),
        };
        let expected = setup.expected();
        assert_eq!(expected.len(), 60);
        let (mut output, mut end) = (Vec::new(), None);
        for page in 0..4 {
            let read = run(&setup, end, Some(20), &[1]);
            assert_eq!(read.output, expected[page * 20..((page + 1) * 20).min(60)], "page {page}");
            // Items of at most two buckets of three shards each, and one part of the directory.
            assert!(read.requests <= 2 * 3 + 1, "page {page}: {} requests", read.requests);
            assert_eq!(read.listings, 1);
            end = read.output.last().copied();
            output.extend(read.output);
        }
        assert_eq!(output, expected);
        let unlisted = run(&Setup { listed: None, ..setup.clone() }, None, Some(20), &[1]);
        assert_eq!(unlisted.output, expected[..20]);
        assert!(unlisted.requests > 20, "{} requests", unlisted.requests);
    }
}

#[test]
fn a_previous_page_asks_only_the_lanes_of_the_page_before() {
    // 500 keys, pages of 20: read from the second page's first item the other way, with the
    // lanes that held none of the first page parked at its first sort key (what a previous
    // page's cursor carries), a page asks about as many keys as the first page's items came
    // from; parked nowhere, every key.
    let setup = merge_of(uniform(500, 40, 7), 32);
    let expected = setup.expected();
    let back = Setup { descending: true, ..setup.clone() };
    let (before, first) = (&expected[..20], expected[20]);
    let floors = back_floors(&back, before);
    let lanes = floors.iter().filter(|floor| floor.is_none()).count();
    let read = run_with_floors(&back, resumption(&back, Some(first)), (floors, Vec::new()), Some(20), &[1]);
    let mut want = before.to_vec();
    want.reverse();
    assert_eq!(read.output, want);
    assert!(read.requests <= lanes + 4, "{} requests for {lanes} lanes", read.requests);
    let unparked = run(&back, Some(first), Some(20), &[1]);
    assert_eq!(unparked.output, want);
    assert!(unparked.requests >= 500, "{} requests", unparked.requests);
}

#[test]
fn a_previous_page_asks_each_lane_for_the_items_it_held_in_one_round() {
    // One key posts every second, 99 others every ten minutes, one of them every six seconds:
    // the page before (20 items) is mostly the busy key's. Told how many items of it each lane
    // held (what a previous page's cursor carries), the previous page asks each of those lanes
    // once, all at once; told only which lanes, the busy one is asked for a share and again.
    let busy =
        Partition { keys: (0..2_000).map(|second| format!("{second:06}#busy")).collect(), page: 2_000 };
    let quiet = (0..99).map(|lane| {
        let keys = (0..4).map(|tenth| format!("{:06}#{lane:02}", tenth * 600 + lane * 6 + 3)).collect();
        Partition { keys, page: 2_000 }
    });
    let setup = merge_of(std::iter::once(busy).chain(quiet).collect(), 32);
    let expected = setup.expected();
    let back = Setup { descending: true, ..setup.clone() };
    for at in [1, 4] {
        let (before, first) = (&expected[(at - 1) * 20..at * 20], expected[at * 20]);
        let mut held = vec![None; setup.width];
        for &(lane, _) in before {
            *held[lane].get_or_insert(0) += 1;
        }
        let lanes = held.iter().flatten().count();
        let mut want = before.to_vec();
        want.reverse();
        let told = |held: Vec<Option<usize>>| {
            let parking = (back_floors(&back, before), held);
            run_with_floors(&back, resumption(&back, Some(first)), parking, Some(20), &[1])
        };
        let counted = told(held);
        assert_eq!(counted.output, want);
        assert_eq!((counted.requests, counted.rounds), (lanes, 1), "page {at}: {lanes} lanes");
        let named = told(Vec::new());
        assert_eq!(named.output, want);
        assert!(named.requests > lanes, "page {at}: {} requests for {lanes} lanes", named.requests);
    }
}
