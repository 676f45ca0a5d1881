//! Previous pages: read from a page's first item the other way, with the lanes the page before
//! held no item of parked as its cursor parks them, they give back exactly the page before.

use super::*;

/// The floors a previous page's cursor parks the lanes of `back` (a read the other way) at, when
/// the page before held `before`: the lanes it held no item of, at its first sort key when they
/// may hold items with it (behind its first item among equal keys), else right after it.
pub(super) fn back_floors(back: &Setup, before: &[Id]) -> Vec<Option<Bound>> {
    let key = back.key(before[0]).as_bytes();
    (0..back.width)
        .map(|lane| {
            let parked = !before.iter().any(|&(held, _)| held == lane);
            let at_key = !ties_before(lane, before[0].0, back.descending);
            parked.then(|| Bound { key: key.to_vec(), exclusive: !at_key })
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn previous_pages_read_back_exactly_the_lanes_of_the_page_before(setup in merge_strategy(), page in 1usize..12, choices in prop::collection::vec(0usize..64, 1..16)) {
        let mut pages: Vec<Vec<Id>> = Vec::new();
        let (mut end, mut horizon) = (None, None);
        for _ in 0..=setup.expected().len() {
            let read = run_parked(&setup, end, horizon.as_ref(), Some(page), &choices);
            if read.output.is_empty() {
                break;
            }
            end = read.output.last().copied();
            horizon = read.horizon;
            pages.push(read.output);
        }
        // From each page's first item, the other way: the lanes the page before held no item
        // of are parked at its first sort key, as a previous page's cursor parks them.
        // Read a few more than the page before held too, as when some of its items were deleted
        // since: the parked lanes are then read, in order.
        let back = Setup { descending: !setup.descending, ..setup.clone() };
        let all = setup.expected();
        for (at, pair) in pages.windows(2).enumerate() {
            let (before, first) = (&pair[0], pair[1][0]);
            for more in [0, 3] {
                let floors = back_floors(&back, before);
                let limit = before.len() + more;
                let read = run_with_floors(&back, resumption(&back, Some(first)), (floors, Vec::new()), Some(limit), &choices);
                let earlier = &all[..(at + 1) * page];
                let expected: Vec<Id> = earlier.iter().rev().take(limit).copied().collect();
                prop_assert_eq!(read.output, expected);
            }
        }
    }
}
