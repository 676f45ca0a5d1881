//! Random merges for the property tests: partitions, groups of them, and setups.

use super::*;

/// Keys from a small alphabet (many equal keys), some lanes empty, some holding everything.
pub(super) fn partitions(lanes: usize) -> impl Strategy<Value = Vec<Partition>> {
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
pub(super) fn grouped(
    groups: usize,
    width: usize,
    descending: bool,
) -> impl Strategy<Value = Vec<Partition>> {
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

pub(super) fn setup_strategy() -> impl Strategy<Value = Setup> {
    let listed = prop::option::of((1usize..4, prop::collection::vec(0usize..30, 0..3)));
    (1usize..5, 1usize..6, any::<bool>(), 1usize..8, 1u64..4, any::<bool>(), any::<bool>(), listed)
        .prop_flat_map(|(groups, width, descending, concurrency, open, one_round, even, listed)| {
            let sizing = if one_round { RequestSizing::OneRoundTrip } else { RequestSizing::Floor };
            grouped(groups, width, descending).prop_map(move |partitions| Setup {
                partitions,
                width,
                descending,
                concurrency,
                open_at_once: open,
                sizing,
                even,
                listed: listed.clone(),
            })
        })
}

/// One group of lanes merged (a merged read's horizon covers one group).
pub(super) fn merge_strategy() -> impl Strategy<Value = Setup> {
    (1usize..9, any::<bool>(), 1usize..8, any::<bool>()).prop_flat_map(
        |(width, descending, concurrency, one_round)| {
            let sizing = if one_round { RequestSizing::OneRoundTrip } else { RequestSizing::Floor };
            grouped(1, width, descending).prop_map(move |partitions| Setup {
                partitions,
                width,
                descending,
                concurrency,
                open_at_once: 1,
                sizing,
                even: false,
                listed: None,
            })
        },
    )
}
