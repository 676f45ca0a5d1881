use super::*;
use proptest::prelude::*;

fn at(key: &str) -> Next {
    Next::At(Bound { key: key.as_bytes().to_vec(), exclusive: false })
}

fn text(edges: &[Vec<u8>]) -> Vec<&str> {
    edges.iter().map(|edge| std::str::from_utf8(edge).unwrap_or("<bytes>")).collect()
}

#[test]
fn edges_are_short_prefixes_between_bounds() {
    let next = [at("post#1700012399#3"), at("post#1700012345#17"), at("post#1700015000#1"), Next::Unknown];
    let bands = cut(&next, 1, None, false).expect("bands");
    assert_eq!(text(&bands.edges), ["post#170001239", "post#1700015"]);
    assert_eq!(bands.codes, [1, 0, 2, 0]);
    // Descending: prefixes of the key before each cut.
    let bands = cut(&next, 1, None, true).expect("bands");
    assert_eq!(text(&bands.edges), ["post#1700015", "post#170001239"]);
    assert_eq!(bands.codes, [1, 2, 0, 0]);
}

#[test]
fn the_first_band_is_read_and_the_others_hold_per_band_lanes() {
    let next: Vec<Next> = ["m", "m", "n", "o", "p", "q", "r"].into_iter().map(at).collect();
    let bands = cut(&next, 2, None, false).expect("bands");
    assert_eq!(text(&bands.edges), ["m", "o", "q"]);
    assert_eq!(bands.codes, [0, 0, 1, 1, 2, 2, 3]);
    // With a horizon, the lanes that may hold items at or before it are read, the first band
    // starts after it; unless they are more than a band.
    let bands = cut(&next, 3, Some(b"n"), false).expect("bands");
    assert_eq!(text(&bands.edges), ["n", "q"]);
    assert_eq!(bands.codes, [0, 0, 0, 1, 1, 1, 2]);
    let bands = cut(&next, 2, Some(b"n"), false).expect("bands");
    assert_eq!(text(&bands.edges), ["m", "o", "q"]);
}

#[test]
fn long_keys_alike_but_at_their_end_keep_the_edges_short_in_all() {
    // Sort keys of a kilobyte that differ in their last bytes: every edge is nearly a whole
    // key, so a page end keeps as many as fit its budget, and the lanes past them share the
    // last one.
    let prefix = "p".repeat(1_000);
    let keys: Vec<String> = (0..200).map(|lane| format!("{prefix}{lane:04}")).collect();
    let next: Vec<Next> = keys.iter().map(|key| at(key)).collect();
    let bands = cut(&next, 5, None, false).expect("bands");
    let further: usize = bands.edges[1..].iter().map(Vec::len).sum();
    assert!(further <= EDGE_BYTES, "{further} bytes of edges");
    assert_eq!(bands.codes.iter().filter(|&&code| code == bands.edges.len() as u8).count(), 200 - 5);
    // Short keys keep every edge.
    let short: Vec<Next> = (0..200).map(|lane| at(&format!("{lane:04}"))).collect();
    assert_eq!(cut(&short, 5, None, false).map(|bands| bands.edges.len()), Some(MAX_EDGES));
}

#[test]
fn done_lanes_park_at_the_last_edge_and_nothing_parks_without_bounds() {
    let next = [at("b"), at("c"), Next::Done, Next::Unknown];
    assert_eq!(cut(&next, 1, None, false).map(|bands| bands.codes), Some(vec![0, 1, 1, 0]));
    assert_eq!(cut(&next, 2, None, false), None);
    assert_eq!(cut(&[Next::Done, Next::Unknown], 1, None, false), None);
}

#[test]
fn an_exclusive_bound_parks_at_its_own_key() {
    let parked = Next::At(Bound { key: b"k".to_vec(), exclusive: true });
    let bands = cut(&[at("k"), parked], 1, None, false).expect("bands");
    assert_eq!(text(&bands.edges), ["k"]);
    assert_eq!(bands.codes, [0, 1]);
    assert_eq!(Bound { key: b"k".to_vec(), exclusive: true }.floor(false), Some(b"k\0".to_vec()));
    assert_eq!(Bound { key: b"k".to_vec(), exclusive: false }.floor(true), Some(b"k".to_vec()));
}

fn key() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(vec!['a', 'b', 'c', '\0', 'é', 'ê', '\u{10FFFF}']), 0..5)
        .prop_map(|chars| chars.into_iter().collect())
}

fn next() -> impl Strategy<Value = Next> {
    prop_oneof![
        1 => Just(Next::Unknown),
        1 => Just(Next::Done),
        6 => (key(), any::<bool>())
            .prop_map(|(key, exclusive)| Next::At(Bound { key: key.into_bytes(), exclusive })),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn every_lane_parks_strictly_before_its_bound_at_the_last_edge_that_allows(
        end in key(), next in prop::collection::vec(next(), 0..40), per_band in 0usize..6, descending: bool,
        horizon in prop::option::of(key()),
    ) {
        let order = |a: &[u8], b: &[u8]| if descending { b.cmp(a) } else { a.cmp(b) };
        // Bounds lie at or after the page end, as a merge's do.
        let next: Vec<Next> = next
            .into_iter()
            .filter(|next| match next {
                Next::At(bound) => order(end.as_bytes(), &bound.key) != Ordering::Greater,
                _ => true,
            })
            .collect();
        let horizon = horizon.filter(|horizon| order(end.as_bytes(), horizon.as_bytes()) != Ordering::Greater);
        let Some(bands) = cut(&next, per_band, horizon.as_deref().map(str::as_bytes), descending) else {
            return Ok(());
        };
        if let Some(horizon) = &horizon {
            let within = next
                .iter()
                .filter(|next| matches!(next, Next::At(bound) if !parks(horizon.as_bytes(), bound, descending)))
                .count();
            if within <= per_band.max(1) {
                prop_assert_eq!(&bands.edges[0], horizon.as_bytes());
            }
        }
        prop_assert!(!bands.edges.is_empty() && bands.edges.len() <= MAX_EDGES);
        prop_assert_eq!(bands.codes.len(), next.len());
        for edge in &bands.edges {
            prop_assert!(std::str::from_utf8(edge).is_ok());
        }
        prop_assert!(order(end.as_bytes(), &bands.edges[0]) != Ordering::Greater);
        for pair in bands.edges.windows(2) {
            prop_assert_eq!(order(&pair[0], &pair[1]), Ordering::Less);
        }
        for (next, &code) in next.iter().zip(&bands.codes) {
            let code = usize::from(code);
            match next {
                Next::Unknown => prop_assert_eq!(code, 0),
                Next::Done => prop_assert_eq!(code, bands.edges.len()),
                Next::At(bound) => {
                    if code > 0 {
                        prop_assert!(parks(&bands.edges[code - 1], bound, descending));
                        // Nothing at or before the edge: the merge's floor for the lane is no later
                        // than its bound.
                        let floor = Bound { key: bands.edges[code - 1].clone(), exclusive: true }.floor(descending);
                        if let (Some(floor), Some(own)) = (floor, bound.floor(descending)) {
                            prop_assert!(order(&floor, &own) != Ordering::Greater);
                        }
                    }
                    if let Some(edge) = bands.edges.get(code) {
                        prop_assert!(!parks(edge, bound, descending));
                    }
                }
            }
        }
    }
}
