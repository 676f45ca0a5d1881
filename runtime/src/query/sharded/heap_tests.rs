//! The merge against a simulated DynamoDB: random shards, page sizes, completion orders and
//! concurrency, checked against a plain sort.

use super::*;
use proptest::prelude::*;

/// Sort keys and items (read position, key), as a page hands them to the merge.
type Entries = Vec<(Vec<u8>, (usize, String))>;

/// A shard as DynamoDB would serve it: sort keys in read order, at most `page` per request.
struct Shard {
    keys: Vec<String>,
    page: usize,
}

impl Shard {
    /// The page after read position `start` (an index into `keys`), and where to continue.
    fn read(&self, start: usize, limit: Option<usize>) -> (Entries, Option<usize>) {
        let size = limit.map_or(self.page, |limit| limit.min(self.page));
        let end = (start + size).min(self.keys.len());
        let entries =
            (start..end).map(|i| (self.keys[i].as_bytes().to_vec(), (i, self.keys[i].clone()))).collect();
        // Like DynamoDB, a page that stops at its size has a continuation even at the very end.
        (entries, (end - start == size).then_some(end))
    }
}

struct Run {
    output: Vec<(usize, String)>,
    requests: usize,
    max_pending: usize,
}

/// Drives a merge to the end (or `limit` items), completing pending requests in the order that
/// `choices` picks.
fn run(
    shards: &[Shard],
    descending: bool,
    concurrency: usize,
    limit: Option<usize>,
    choices: &[usize],
) -> Run {
    let starts = shards.iter().map(|_| Continuation::Start(None)).collect();
    let mut merger: Merger<(usize, String), usize> = Merger::new(descending, starts);
    let mut pending: Vec<(usize, usize)> = Vec::new();
    let mut run = Run { output: Vec::new(), requests: 0, max_pending: 0 };
    let mut choice = choices.iter().cycle();
    loop {
        if limit.is_some_and(|limit| run.output.len() == limit) {
            return run;
        }
        while pending.len() < concurrency {
            let Some((shard, start)) = merger.next_request(limit.is_some()) else { break };
            pending.push((shard, start.unwrap_or(0)));
            run.requests += 1;
        }
        run.max_pending = run.max_pending.max(merger.pending());
        match merger.pop() {
            Step::Item(shard, (_, key)) => run.output.push((shard, key)),
            Step::Done => return run,
            Step::Blocked => {
                assert!(!pending.is_empty(), "blocked with nothing pending");
                let (shard, start) = pending.remove(choice.next().unwrap_or(&0) % pending.len());
                let wanted = limit.map(|limit| limit - run.output.len());
                let (entries, more) = shards[shard].read(start, wanted);
                let floor = more.map(|end| shards[shard].keys[end - 1].as_bytes().to_vec());
                merger.fill(shard, entries, more, floor);
            }
        }
    }
}

/// Every (shard, key) in merged order: by key bytes, then shard.
fn expected(shards: &[Shard], descending: bool) -> Vec<(usize, String)> {
    let mut all: Vec<(usize, String)> =
        shards.iter().enumerate().flat_map(|(i, s)| s.keys.iter().map(move |k| (i, k.clone()))).collect();
    all.sort_by(|a, b| a.1.as_bytes().cmp(b.1.as_bytes()).then(a.0.cmp(&b.0)));
    if descending {
        all.reverse();
    }
    all
}

fn shards_strategy() -> impl Strategy<Value = Vec<(Vec<String>, usize)>> {
    let key = prop::sample::select(vec!["a", "b", "ab", "é", "z", "Z", "日本", "a#b", "\u{1F600}", "aa"]);
    let keys = prop::collection::btree_set(prop::collection::vec(key, 1..4).prop_map(|p| p.concat()), 0..40);
    prop::collection::vec((keys, 1usize..6), 1..9).prop_map(|shards| {
        shards.into_iter().map(|(keys, page)| (keys.into_iter().collect(), page)).collect()
    })
}

fn build(raw: &[(Vec<String>, usize)], descending: bool) -> Vec<Shard> {
    raw.iter()
        .map(|(keys, page)| {
            // DynamoDB returns a partition in byte order (the BTreeSet's), reversed when descending.
            let mut keys = keys.clone();
            if descending {
                keys.reverse();
            }
            Shard { keys, page: *page }
        })
        .collect()
}

proptest! {
    #[test]
    fn the_merge_equals_a_sort(
        raw in shards_strategy(),
        descending: bool,
        concurrency in 1usize..5,
        choices in prop::collection::vec(0usize..8, 1..20),
    ) {
        let shards = build(&raw, descending);
        let result = run(&shards, descending, concurrency, None, &choices);
        prop_assert_eq!(&result.output, &expected(&shards, descending));
        prop_assert!(result.max_pending <= concurrency);
    }

    #[test]
    fn a_limited_merge_is_a_prefix_and_reads_lazily(
        raw in shards_strategy(),
        descending: bool,
        limit in 1usize..30,
        choices in prop::collection::vec(0usize..8, 1..20),
    ) {
        let shards = build(&raw, descending);
        let full = expected(&shards, descending);
        let result = run(&shards, descending, 3, Some(limit), &choices);
        let want = limit.min(full.len());
        prop_assert_eq!(&result.output[..], &full[..want]);
        prop_assert!(result.max_pending <= 3);
        let eager = run(&shards, descending, 3, None, &choices);
        prop_assert!(result.requests <= eager.requests);
    }
}

#[test]
fn ties_go_to_the_lower_shard_and_reverse_when_descending() {
    let shards =
        || vec![Shard { keys: vec!["k".into()], page: 1 }, Shard { keys: vec!["k".into()], page: 1 }];
    let ascending = run(&shards(), false, 2, None, &[1]);
    assert_eq!(ascending.output, [(0, "k".into()), (1, "k".into())]);
    let descending = run(&shards(), true, 2, None, &[0]);
    assert_eq!(descending.output, [(1, "k".into()), (0, "k".into())]);
}

#[test]
fn a_head_before_every_floor_is_emitted_without_waiting() {
    let mut merger: Merger<&str, usize> =
        Merger::new(false, vec![Continuation::Start(None), Continuation::Start(None)]);
    assert_eq!(merger.pop(), Step::Blocked);
    assert_eq!(merger.next_request(true), Some((0, None)));
    assert_eq!(merger.next_request(true), Some((1, None)));
    assert_eq!(merger.next_request(true), None, "both pending");
    merger.fill(0, vec![(b"a".to_vec(), "a"), (b"m".to_vec(), "m")], Some(2), None);
    assert_eq!(merger.pop(), Step::Blocked, "shard 1 has not answered");
    merger.fill(1, vec![(b"c".to_vec(), "c")], Some(1), Some(b"c".to_vec()));
    assert_eq!(merger.pop(), Step::Item(0, "a"));
    assert_eq!(merger.pop(), Step::Item(1, "c"));
    // Shard 1 is empty and blocks at "c": "m" must wait for it, "a".."c" would not have.
    assert_eq!(merger.pop(), Step::Blocked);
    assert_eq!(merger.next_request(true), Some((1, Some(1))));
    merger.fill(1, vec![(b"d".to_vec(), "d")], None, None);
    assert_eq!(merger.pop(), Step::Item(1, "d"));
    assert_eq!(merger.settled(1), Some(&Continuation::Done));
    assert_eq!(merger.pop(), Step::Item(0, "m"));
    assert_eq!(merger.pop(), Step::Blocked, "shard 0 has a continuation");
    assert_eq!(merger.settled(0), Some(&Continuation::After(2)));
    assert_eq!(merger.next_request(false), Some((0, Some(2))));
    assert_eq!(merger.settled(0), None, "pending");
    merger.fill(0, Vec::new(), None, None);
    assert_eq!(merger.pop(), Step::Done);
}

#[test]
fn exhausted_lanes_never_block() {
    let mut merger: Merger<&str, usize> =
        Merger::new(true, vec![Continuation::Done, Continuation::Start(Some(4))]);
    assert_eq!(merger.next_request(false), Some((1, Some(4))));
    merger.fill(1, vec![(b"x".to_vec(), "x")], None, None);
    assert_eq!(merger.pop(), Step::Item(1, "x"));
    assert_eq!(merger.pop(), Step::Done);
}
