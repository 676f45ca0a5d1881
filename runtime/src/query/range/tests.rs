//! The sort-key ranges of queries: what each holds, from a key on, and together.

use super::*;

#[test]
fn ranges_sorted_by_start_tell_disjointness_as_every_pair_does() {
    let ranges = [
        SortRange::all(),
        SortRange::equals("a"),
        SortRange::equals("a"),
        SortRange::equals("b"),
        SortRange::begins_with("a"),
        SortRange::above("", "a".into(), false),
        SortRange::above("", "a".into(), true),
        SortRange::below("", "a".into(), false),
        SortRange::below("", "b".into(), true),
        SortRange::between("a".into(), "b".into()),
        SortRange::between("b".into(), "c".into()),
        SortRange::between("c".into(), "a".into()),
        SortRange::equals("c"),
    ];
    let every_pair = |chosen: &[&SortRange]| {
        chosen.iter().enumerate().all(|(at, a)| chosen[at + 1..].iter().all(|b| !a.may_overlap(b)))
    };
    // Every choice of up to four, in every order given.
    let count = ranges.len();
    for mask in 0u32..(1 << count) {
        if mask.count_ones() > 4 {
            continue;
        }
        let mut chosen: Vec<&SortRange> =
            (0..count).filter(|at| mask & (1 << at) != 0).map(|at| &ranges[at]).collect();
        for _ in 0..chosen.len() {
            assert_eq!(SortRange::disjoint(chosen.iter().copied()), every_pair(&chosen), "{chosen:?}");
            chosen.rotate_left(1);
        }
    }
}

#[test]
fn a_range_from_or_until_a_key_holds_exactly_its_keys_on_that_side_of_the_key() {
    let keys = ["", "a", "a#1", "a#2", "a#3", "b", "b#1", "c", "z"];
    let ranges = [
        SortRange::all(),
        SortRange::equals("a#2"),
        SortRange::begins_with("a#"),
        SortRange::between("a#1".into(), "b#1".into()),
        SortRange::below("a#", "a#2".into(), false),
        SortRange::below("a#", "a#2".into(), true),
        SortRange::above("a#", "a#2".into(), false),
        SortRange::above("", "b".into(), false),
        SortRange::below("", "b".into(), false),
        SortRange::between("c".into(), "a".into()),
    ];
    for range in &ranges {
        for at in keys {
            for descending in [false, true] {
                let from = range.part_from(at, descending);
                let until = range.part_until(at, descending);
                for key in keys {
                    let after = if descending { key <= at } else { key >= at };
                    let want = range.contains(key) && after;
                    let got = from.as_ref().is_some_and(|from| from.contains(key));
                    assert_eq!(got, want, "{range:?} from {at:?} (descending {descending}) at {key:?}");
                    let before = if descending { key >= at } else { key <= at };
                    let want = range.contains(key) && before;
                    let got = until.as_ref().is_some_and(|until| until.contains(key));
                    assert_eq!(got, want, "{range:?} until {at:?} (descending {descending}) at {key:?}");
                }
                for part in [from, until].into_iter().flatten() {
                    assert!(!part.is_empty());
                }
            }
        }
    }
}

#[test]
fn exclusive_bounds_with_a_prefix_become_between_plus_exclusion() {
    let range = SortRange::below("song#A#", "song#A#m".into(), false);
    let mut placeholders = Placeholders::default();
    assert_eq!(range.render("sk", &mut placeholders).unwrap(), "#ds0 BETWEEN :ds0 AND :ds1");
    assert!(range.excludes(Some("song#A#m")));
    assert!(!range.excludes(Some("song#A#l")));
}

#[test]
fn without_a_prefix_bounds_are_native() {
    let mut placeholders = Placeholders::default();
    let range = SortRange::above("", "m".into(), false);
    assert_eq!(range.render("sk", &mut placeholders).unwrap(), "#ds0 > :ds0");
    assert!(!range.excludes(Some("m")));
    assert!(SortRange::begins_with("").render("sk", &mut placeholders).is_none());
}

fn rendered(range: &SortRange) -> (String, Vec<AttributeValue>) {
    let mut placeholders = Placeholders::default();
    let text = range.render("sk", &mut placeholders).unwrap_or_default();
    let mut values: Vec<(String, AttributeValue)> =
        placeholders.take_values().unwrap_or_default().into_iter().collect();
    values.sort_by(|a, b| a.0.cmp(&b.0));
    (text, values.into_iter().map(|(_, value)| value).collect())
}

fn s(text: &str) -> AttributeValue {
    AttributeValue::S(text.to_owned())
}

#[test]
fn a_range_resumes_from_a_key_in_either_direction() {
    let all = SortRange::all();
    assert_eq!(rendered(&all.resumed_at("m", false)), ("#ds0 >= :ds0".into(), vec![s("m")]));
    assert_eq!(rendered(&all.resumed_at("m", true)), ("#ds0 <= :ds0".into(), vec![s("m")]));
    let prefix = SortRange::begins_with("song#");
    let upper = format!("song#{MAX_SUFFIX}");
    assert_eq!(rendered(&prefix.resumed_at("song#m", false)).1, vec![s("song#m"), s(&upper)]);
    assert_eq!(rendered(&prefix.resumed_at("song#m", true)).1, vec![s("song#"), s("song#m")]);
    // An exclusive bound becomes an inclusive one plus a key dropped client-side.
    let below = SortRange::with(KeyCondition::Lt("t".into())).resumed_at("m", false);
    assert_eq!(rendered(&below).1, vec![s("m"), s("t")]);
    assert!(below.excludes(Some("t")) && !below.excludes(Some("m")));
    let above = SortRange::with(KeyCondition::Gt("c".into())).resumed_at("m", true);
    assert_eq!(rendered(&above).1, vec![s("c"), s("m")]);
    assert!(above.excludes(Some("c")));
    // An exclusion past the resumed key stays; one behind it goes.
    let bounded = SortRange::below("song#", "song#t".into(), false);
    assert!(bounded.resumed_at("song#m", false).excludes(Some("song#t")));
    let raised = SortRange::above("song#", "song#c".into(), false);
    assert!(!raised.resumed_at("song#m", false).excludes(Some("song#c")));
    assert!(raised.resumed_at("song#m", true).excludes(Some("song#c")));
    let equal = SortRange::equals("k").resumed_at("k", false);
    assert_eq!(rendered(&equal), ("#ds0 BETWEEN :ds0 AND :ds1".into(), vec![s("k"), s("k")]));
}

#[test]
fn ranges_know_their_keys() {
    let prefix = SortRange::begins_with("song#2020");
    assert!(prefix.contains("song#2020#a") && !prefix.contains("song#1990") && !prefix.contains("song#2021"));
    let between = SortRange::between("b".into(), "d".into());
    assert!(
        between.contains("b") && between.contains("c") && between.contains("d") && !between.contains("e")
    );
    let below = SortRange::below("p#", "p#m".into(), false);
    assert!(below.contains("p#a") && !below.contains("p#m") && !below.contains("a"));
    let above = SortRange::with(KeyCondition::Gt("m".into()));
    assert!(above.contains("n") && !above.contains("m"));
    assert!(SortRange::all().contains("anything"));
    assert!(!SortRange::between("b".into(), "a".into()).contains("a"));
}

#[test]
fn inverted_between_is_empty() {
    assert!(SortRange::between("b".into(), "a".into()).is_empty());
    assert!(!SortRange::between("a".into(), "a".into()).is_empty());
}
