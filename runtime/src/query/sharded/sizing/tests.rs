//! Request sizes: shares, filled units, learnt item sizes.

use super::sizes::ItemSizes;
use super::*;

fn demand(need: usize, competing: usize) -> Demand {
    Demand { need, competing, supplied: None, held: None, dense: false }
}

fn limit_floor(demand: &Demand, sizes: &ItemSizes, cap: Option<usize>) -> Option<usize> {
    limit(demand, sizes.size(), cap, RequestSizing::Floor)
}

/// `P(X >= k)` for `X ~ Binomial(n, p)`, summed directly.
fn tail(n: usize, p: f64, k: usize) -> f64 {
    let mut choose = 1.0f64;
    let mut sum = 0.0;
    for i in 0..=n {
        if i > 0 {
            choose = choose * (n - i + 1) as f64 / i as f64;
        }
        if i >= k {
            sum += choose * p.powi(i as i32) * (1.0 - p).powi((n - i) as i32);
        }
    }
    sum
}

#[test]
fn one_round_shares_leave_a_lane_short_one_page_in_twenty() {
    for (need, competing) in [(100, 21), (100, 2), (20, 4), (1_000, 21), (50, 100), (300, 8)] {
        let share = one_round_share(need, competing);
        let odds = SECOND_ROUND_ODDS / competing as f64;
        let p = 1.0 / competing as f64;
        assert!(tail(need, p, share) <= odds, "{need} over {competing}: {share} too few");
        assert!(tail(need, p, share - 1) > odds, "{need} over {competing}: {share} more than needed");
    }
    assert_eq!(one_round_share(100, 21), 13);
    assert_eq!(one_round_share(100, 1), 100);
    assert_eq!(one_round_share(0, 21), 0);
    // Many lanes with few items each: the exact sum, skew and all.
    for (need, competing, exact) in [(10_001, 10_000, 9), (10_000, 10_000, 9), (100_000, 2_000, 82)] {
        assert_eq!(one_round_share(need, competing), exact, "{need} over {competing}");
    }
    // Many items a lane: the normal bound, a little above the mean plus its spread.
    let wide = one_round_share(1_000_000, 21);
    let (mean, spread) = (1_000_000.0 / 21.0, (1_000_000.0f64 / 21.0 * 20.0 / 21.0).sqrt());
    assert!(wide as f64 > mean + 3.0 * spread && (wide as f64) < mean + 4.5 * spread, "{wide}");
    let halves = one_round_share(40_000, 2);
    assert!((20_200..=20_500).contains(&halves), "{halves}");
}

#[test]
fn one_round_trip_fills_the_units_of_its_share_on_the_first_request_only() {
    let sizes = ItemSizes::starting_at(Some(485));
    let one_round = |demand: &Demand| limit(demand, sizes.size(), Some(100), RequestSizing::OneRoundTrip);
    // Thirteen items of 485 bytes start a second unit, which holds sixteen.
    assert_eq!(one_round(&demand(100, 21)), Some(16));
    assert_eq!(one_round(&demand(100, 1)), Some(100), "alone: exactly what is missing");
    let again = Demand { need: 60, competing: 21, supplied: Some((5, 100)), held: None, dense: false };
    assert_eq!(one_round(&again), limit_floor(&again, &sizes, Some(100)), "later rounds as the floor");
    assert_eq!(limit(&demand(0, 21), sizes.size(), Some(7), RequestSizing::OneRoundTrip), Some(7));
}

#[test]
fn a_share_fills_the_units_it_pays_for() {
    let sizes = ItemSizes::starting_at(Some(500));
    // A page of 100 over 21 shards: five items each, eight fit in one unit.
    assert_eq!(limit_floor(&demand(100, 21), &sizes, Some(100)), Some(8));
    // A page of 1,000: 48 items take six units, which hold 49.
    assert_eq!(limit_floor(&demand(1_000, 21), &sizes, Some(1_000)), Some(49));
    // One shard: exactly what is missing, never more than the cap.
    assert_eq!(limit_floor(&demand(100, 1), &sizes, Some(100)), Some(100));
    assert_eq!(limit_floor(&demand(3, 1), &sizes, Some(100)), Some(3));
    assert_eq!(limit_floor(&demand(300, 1), &sizes, Some(100)), Some(100));
    // No limit on the read: the cap alone.
    assert_eq!(limit_floor(&demand(0, 1), &sizes, None), None);
    assert_eq!(limit_floor(&demand(0, 1), &sizes, Some(25)), Some(25));
}

#[test]
fn sizes_are_learnt() {
    let mut sizes = ItemSizes::default();
    assert_eq!(sizes.mean(), None);
    // Sizes unknown: the share and the item after it, which cost a unit whatever their size
    // up to about 680 bytes (filling the unit with items taken as 500 bytes would cost two
    // for items of 560); a small share fills a unit of items taken as 680 bytes.
    assert_eq!(limit_floor(&demand(100, 21), &sizes, None), Some(6), "the share and one more");
    assert_eq!(limit_floor(&demand(10, 21), &sizes, None), Some(5), "a unit of 680-byte items");
    sizes.record(&[100; 4], None);
    assert_eq!(limit_floor(&demand(100, 21), &sizes, None), Some(40), "100-byte items: 40 a unit");
    // DynamoDB charged two units for eight items of 505 bytes: they count as more than 512.
    let mut counted = ItemSizes::default();
    counted.record(&[505; 8], Some(2));
    assert_eq!(counted.mean(), Some(513));
    assert_eq!(limit_floor(&demand(100, 21), &counted, None), Some(7));
    // The bound holds for all the items charged: eight more charged one unit leave it at
    // 4,096 bytes over sixteen items, and the items' own sizes are larger.
    counted.record(&[505; 8], Some(1));
    assert_eq!(counted.mean(), Some(505), "one request's charge is not every item's size");
    assert_eq!(limit_floor(&demand(100, 21), &counted, None), Some(8));
    // A projection returning 100 of the 1,000 bytes it reads: the charges tell.
    let mut projected = ItemSizes::default();
    for _ in 0..4 {
        projected.record(&[100; 8], Some(2));
    }
    assert_eq!(projected.mean(), Some(513));
    // A mean learnt earlier counts as one item: the first answers correct it.
    let mut resumed = ItemSizes::starting_at(Some(522));
    assert_eq!(limit_floor(&demand(100, 21), &resumed, None), Some(7));
    resumed.record(&[496; 16], Some(2));
    assert_eq!(resumed.mean(), Some(497));
    assert_eq!(limit_floor(&demand(100, 21), &resumed, None), Some(8));
    let large = ItemSizes::starting_at(Some(10_000));
    assert_eq!(limit_floor(&demand(100, 21), &large, None), Some(4), "large items: the nearest whole units");
}

#[test]
fn a_shard_once_read_is_asked_for_its_share_of_the_output() {
    let sizes = ItemSizes::starting_at(Some(500));
    // It supplied all 8 of the first 8 items: it holds everything, so it gets the shortfall.
    let skewed = Demand { need: 92, competing: 21, supplied: Some((8, 8)), held: None, dense: false };
    assert_eq!(limit_floor(&skewed, &sizes, Some(100)), Some(98));
    // One twentieth of the output: 1.5 times a twentieth of the shortfall, filling its unit.
    let even = Demand { need: 60, competing: 21, supplied: Some((5, 100)), held: None, dense: false };
    assert_eq!(limit_floor(&even, &sizes, Some(100)), Some(8));
    let dense = Demand { need: 80, competing: 21, supplied: Some((8, 60)), held: None, dense: false };
    assert_eq!(limit_floor(&dense, &sizes, Some(100)), Some(16), "two units for sixteen");
    let alone = Demand { need: 10, competing: 1, supplied: Some((3, 12)), held: None, dense: false };
    assert_eq!(limit_floor(&alone, &sizes, Some(100)), Some(4), "alone: exactly its share");
}

#[test]
fn fill_units_fills_the_nearest_whole_units() {
    let units = |n: usize, size: u64| (n as u64 * size).div_ceil(READ_UNIT_BYTES).max(1);
    for items in [1, 3, 7, 8, 9, 12, 13, 100, 1_000] {
        for bytes in [1, 100, 500, 4_096, 5_000, 400_000] {
            let filled = fill_units(items, Size::exactly(bytes));
            assert!(filled >= 1, "{items} of {bytes}");
            let nearest = (items as f64 * bytes as f64 / READ_UNIT_BYTES as f64).round().max(1.0) as u64;
            let wanted = nearest.max(units(1, bytes));
            assert!(units(filled, bytes) <= wanted, "{items} of {bytes}: {filled} take more units");
            if filled > 1 {
                let usable = wanted * READ_UNIT_BYTES - READ_UNIT_BYTES / 100;
                assert!(filled as u64 * bytes <= usable, "{items} of {bytes}: no spare");
                assert!((filled as u64 + 1) * bytes > usable, "{items} of {bytes}: one more would fit");
            }
        }
    }
    assert_eq!(fill_units(12, Size::exactly(485)), 8, "12 of 485 bytes are nearer one unit than two");
    assert_eq!(fill_units(13, Size::exactly(485)), 16);
}

#[test]
fn a_spread_of_sizes_keeps_room_in_the_last_unit() {
    // Seventeen items of 236 bytes fill a unit exactly; of 236 give or take 10, one of them
    // spills into a second unit about one request in seven, so sixteen are asked.
    assert_eq!(fill_units(3, Size::exactly(236)), 17);
    assert_eq!(fill_units(3, Size { mean: 236, spread: 10 }), 16);
    assert_eq!(fill_started_units(20, Size { mean: 236, spread: 10 }), 34, "two units");
    // A spread wider than the items: still at least one.
    assert_eq!(fill_units(1, Size { mean: 3_000, spread: 5_000 }), 1);
    let mut sizes = ItemSizes::default();
    sizes.record(&[226, 246, 226, 246], None);
    assert_eq!(sizes.size(), Some(Size { mean: 236, spread: 10 }));
}

#[test]
fn a_lane_is_sized_by_its_own_items_and_one_not_read_by_the_largest() {
    let mut lanes = LaneSizes::starting_at(Some(210));
    lanes.record(0, &[204; 19], Some(1));
    lanes.record(1, &[248; 16], Some(1));
    assert_eq!(lanes.of(0).map(|size| size.mean), Some(204), "its own, the rest counted as one item");
    assert_eq!(lanes.of(1).map(|size| size.mean), Some(246));
    assert_eq!(lanes.fitting(), Some(248), "the largest lane mean");
    assert_eq!(lanes.of(2).map(|size| size.mean), Some(248));
    // Spread as all items read: 19 of 204 and 16 of 248 bytes (and the 210 learnt before).
    assert_eq!(lanes.of(2).map(|size| size.spread), Some(21));
    // Sixteen of its 248-byte items fit a unit; sixteen of the mean of all (about 225) would
    // have been asked for nineteen and cost two.
    assert_eq!(limit(&demand(100, 21), lanes.of(1), None, RequestSizing::Floor), Some(16));
    // A lane measured on fewer than four items does not set the size of lanes not read.
    lanes.record(3, &[900; 3], Some(1));
    assert_eq!(lanes.fitting(), Some(248));
}

#[test]
fn a_read_knowing_no_item_size_asks_one_lane_first() {
    assert!(probes(None, Some(100), RequestSizing::Floor));
    assert!(!probes(Some(500), Some(100), RequestSizing::Floor), "a size known");
    assert!(!probes(None, None, RequestSizing::Floor), "no limit: requests are not sized");
    assert!(!probes(None, Some(0), RequestSizing::Floor));
    assert!(!probes(None, Some(100), RequestSizing::OneRoundTrip), "one round trip promised");
    // Of one lane's items, 237 bytes give or take 6, seventeen would fill a unit: sixteen are
    // asked of a lane not read yet, whose items may be a little larger.
    let mut lanes = LaneSizes::default();
    lanes.record(0, &[231, 243, 231, 243, 231, 243], Some(1));
    assert_eq!(lanes.of(1), Some(Size { mean: 237, spread: 6 }));
    assert_eq!(limit(&demand(100, 21), lanes.of(1), None, RequestSizing::Floor), Some(16));
    assert_eq!(limit(&demand(100, 21), Some(Size::exactly(237)), None, RequestSizing::Floor), Some(17));
}
