//! The summaries' bounds against exact counts.

use super::sketch::SpaceSaving;
use super::window::Window;
use proptest::prelude::*;
use std::collections::BTreeMap;

/// Keys from a small alphabet with a skew (key 0 most often), and weights from 1 to 50.
fn stream() -> impl Strategy<Value = Vec<(u8, u64)>> {
    prop::collection::vec(((0u8..40).prop_map(|key| key % (1 + key / 4)), 1u64..50), 0..400)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn a_summary_bounds_every_key(stream in stream(), capacity in 1usize..12) {
        let mut summary = SpaceSaving::new(capacity);
        let mut exact: BTreeMap<u8, u64> = BTreeMap::new();
        for (key, weight) in &stream {
            summary.add(key, *weight);
            *exact.entry(*key).or_default() += weight;
        }
        let total: u64 = exact.values().sum();
        prop_assert_eq!(summary.total(), total);
        prop_assert!(summary.len() <= capacity);
        for (key, &truth) in &exact {
            match summary.get(key) {
                Some(counter) => {
                    prop_assert!(counter.count >= truth, "{key}: {} under {truth}", counter.count);
                    prop_assert!(counter.count - counter.error <= truth, "{key}: error too small");
                }
                None => {
                    prop_assert!(truth <= summary.floor(), "{key}: {truth} above the floor");
                    prop_assert!(truth * capacity as u64 <= total, "{key}: heavy but not tracked");
                }
            }
        }
    }

    #[test]
    fn a_window_bounds_the_keys_of_its_periods(
        stream in prop::collection::vec((0u64..3, (0u8..30).prop_map(|key| key % (1 + key / 3)), 1u64..20), 0..300),
        capacity in 1usize..8,
        periods in 1u64..4,
    ) {
        let mut window = Window::new(capacity, periods);
        let mut now = 0u64;
        let mut exact: BTreeMap<(u64, u8), u64> = BTreeMap::new();
        for (step, key, weight) in &stream {
            now += step;
            window.add(now, key, *weight);
            *exact.entry((now, *key)).or_default() += weight;
        }
        let mut truth: BTreeMap<u8, u64> = BTreeMap::new();
        for ((period, key), weight) in &exact {
            if period + periods > now {
                *truth.entry(*key).or_default() += weight;
            }
        }
        let top = window.top(now, usize::MAX);
        prop_assert_eq!(top.total, truth.values().sum::<u64>());
        let listed: BTreeMap<u8, (u64, u64)> =
            top.keys.iter().map(|estimate| (estimate.key, (estimate.count, estimate.error))).collect();
        for (key, &weight) in &truth {
            match listed.get(key) {
                Some(&(count, error)) => {
                    prop_assert!(count >= weight && count - error <= weight, "{key}: {weight} not in {count} - {error}");
                }
                None => prop_assert!(weight <= top.unlisted_at_most, "{key}: {weight} unlisted"),
            }
        }
        // Estimates come the largest first.
        prop_assert!(top.keys.windows(2).all(|pair| pair[0].count >= pair[1].count));
    }
}

#[test]
fn periods_leave_the_window() {
    let mut window = Window::new(4, 2);
    window.add(0, &"old", 10);
    window.add(1, &"new", 3);
    assert_eq!(window.top(1, 5).keys.len(), 2);
    let later = window.top(2, 5);
    assert_eq!(later.keys.iter().map(|estimate| estimate.key).collect::<Vec<_>>(), ["new"]);
    assert_eq!(later.total, 3);
    // A period older than the newest counts in the newest.
    window.add(0, &"late", 1);
    assert_eq!(window.top(2, 5).total, 4);
    assert!(window.top(2, 5).keys.iter().any(|estimate| estimate.key == "late"));
    window.add(9, &"next", 1);
    assert_eq!(window.counters(), 1, "the old periods are dropped when a new one starts");
}

/// Draws from a Zipf law over `keys` keys of exponent `s`, with a fixed generator.
fn zipf(keys: usize, s: f64, draws: usize, seed: u64) -> Vec<usize> {
    let weights: Vec<f64> = (1..=keys).map(|rank| 1.0 / (rank as f64).powf(s)).collect();
    let total: f64 = weights.iter().sum();
    let mut cumulative = Vec::with_capacity(keys);
    let mut sum = 0.0;
    for weight in &weights {
        sum += weight / total;
        cumulative.push(sum);
    }
    let mut state = seed;
    (0..draws)
        .map(|_| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let uniform = (state >> 11) as f64 / (1u64 << 53) as f64;
            cumulative.partition_point(|&edge| edge < uniform).min(keys - 1)
        })
        .collect()
}

#[test]
fn the_top_ten_of_a_zipf_law_are_found() {
    // s = 1.1 over 10,000 keys, 200,000 requests of 1 to 4 units over six periods.
    let draws = zipf(10_000, 1.1, 200_000, 7);
    let mut window = Window::new(256, 6);
    let mut exact = vec![0u64; 10_000];
    for (at, &key) in draws.iter().enumerate() {
        let weight = 1_000 * (1 + (at as u64 * 7) % 4);
        window.add((at / 40_000) as u64, &key, weight);
        exact[key] += weight;
    }
    let mut truth: Vec<usize> = (0..10_000).collect();
    truth.sort_by(|a, b| exact[*b].cmp(&exact[*a]).then(a.cmp(b)));
    let top = window.top(5, 10);
    let found = top.keys.iter().filter(|estimate| truth[..10].contains(&estimate.key)).count();
    assert!(found >= 9, "recall {found} of 10");
}
