//! The renderings of a fixed map against their golden files (`DYNASHARD_BLESS=1` writes them
//! anew), and the edges a careless source reaches.

use super::*;
use crate::consumption::KeyPlace;
use std::path::PathBuf;
use std::time::Duration;

/// Twelve slices of a second: shard 2 of a hash-sharded key heats up past its limit and is
/// throttled, its neighbours stay warm, a table key is read now and then.
fn fixed() -> HeatMap {
    let mut builder = HeatMapBuilder::new(Duration::from_secs(1)).starting_at(1_790_000_000_000);
    for second in 0..12u64 {
        let at = 1_790_000_000_000 + second * 1_000;
        for shard in 0..4 {
            let place = KeyPlace {
                table: "Music".into(),
                index: Some("ByTitle".into()),
                partition_key: format!("albums#{shard}"),
            };
            let write_units = if shard == 2 { 100.0 * second as f64 } else { 50.0 + 10.0 * shard as f64 };
            let throttles = if shard == 2 && second >= 11 { 7 } else { 0 };
            builder.add(at, place, HeatCell { write_units, throttles, ..HeatCell::default() });
        }
        if second % 3 == 0 {
            let place = KeyPlace {
                table: "Music".into(),
                index: None,
                partition_key: "artist#<Solar & Fields>".into(),
            };
            builder.add(at, place, HeatCell { read_units: 900.0, ..HeatCell::default() });
        }
    }
    builder.build()
}

fn golden(name: &str, rendered: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/heat/golden").join(name);
    if std::env::var_os("DYNASHARD_BLESS").is_some() {
        std::fs::write(&path, rendered).expect("the golden file is written");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        expected == rendered,
        "{name} differs from its golden file; DYNASHARD_BLESS=1 writes it anew:\n{rendered}"
    );
}

#[test]
fn a_fixed_map_renders_as_its_golden_files() {
    let map = fixed();
    golden("heat.svg", &map.svg());
    golden("heat.txt", &map.terminal(80, false));
    let over = map.over_limit();
    assert_eq!(over.len(), 1, "{over:?}");
    assert_eq!(
        (over[0].place.partition_key.as_str(), over[0].slices.as_slice()),
        ("albums#2", [11].as_slice())
    );
    assert!((over[0].peak - 1.1).abs() < 1e-9);
}

#[test]
fn what_a_source_sends_cannot_break_the_picture() {
    let mut builder = HeatMapBuilder::new(Duration::from_millis(1)).starting_at(u64::MAX - 5);
    let hostile = KeyPlace {
        table: "T\"><script>".into(),
        index: Some("</svg>".into()),
        partition_key: format!("{}\u{0}\u{1b}[31m", "k".repeat(2_048)),
    };
    builder.add(
        u64::MAX,
        hostile.clone(),
        HeatCell { read_units: f64::NAN, write_units: 1e200, throttles: u64::MAX },
    );
    builder.add(u64::MAX, hostile, HeatCell { read_units: f64::INFINITY, write_units: -1.0, throttles: 1 });
    let map = builder.build();
    let svg = map.svg();
    assert!(!svg.contains("<script>") && svg.matches("</svg>").count() == 1, "escaped");
    assert!(!svg.contains('\u{0}') && !svg.contains('\u{1b}'), "no control characters");
    assert_eq!(map.rows[0].cells.last().map(|cell| cell.throttles), Some(u64::MAX), "saturated");
    let text = map.terminal(10, true);
    assert!(
        text.lines().all(|line| !line.contains("kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk")),
        "labels are cut"
    );
    let html = map.html();
    assert!(
        !html.contains("<script>") && html.contains("T&quot;&gt;&lt;script&gt;"),
        "the page escapes it too"
    );
}

#[test]
fn a_long_map_merges_slices_to_fit_the_terminal_keeping_the_hottest() {
    let mut builder = HeatMapBuilder::new(Duration::from_secs(1)).starting_at(0);
    let place = KeyPlace { table: "T".into(), index: None, partition_key: "k".into() };
    for second in 0..1_000u64 {
        let throttles = u64::from(second == 777);
        builder.add(
            second * 1_000,
            place.clone(),
            HeatCell { read_units: 30.0, throttles, ..HeatCell::default() },
        );
    }
    let text = builder.build().terminal(60, false);
    let line = text.lines().find(|line| line.starts_with("(table) k")).expect("the key's line");
    let cells: String = line.split('│').nth(1).expect("cells").to_owned();
    assert!(cells.chars().count() <= 60, "{line}");
    assert_eq!(cells.matches('!').count(), 1, "a throttle survives the merge: {line}");
}

#[test]
fn an_empty_map_renders() {
    let map = HeatMapBuilder::new(Duration::from_secs(1)).build();
    assert!(map.svg().ends_with("</svg>\n"));
    assert!(map.terminal(80, false).starts_with("Partition heat"));
    assert!(map.html().contains("No key went over"));
}

#[test]
fn a_map_round_trips_through_json() {
    let map = fixed();
    let json = serde_json::to_string(&map).expect("serializes");
    assert_eq!(serde_json::from_str::<HeatMap>(&json).expect("deserializes"), map);
}

#[test]
fn contributor_insights_reports_become_heat() {
    let consumed =
        InsightsReport::from_json(include_str!("golden/insights_consumed.json")).expect("a report");
    let throttled =
        InsightsReport::from_json(include_str!("golden/insights_throttled.json")).expect("a report");
    let mut builder = HeatMapBuilder::new(Duration::from_secs(60));
    builder.add_insights(&consumed, ("Events", Some("ByUser")), InsightsKind::Consumed).expect("consumed");
    builder.add_insights(&throttled, ("Events", Some("ByUser")), InsightsKind::Throttled).expect("throttled");
    let map = builder.build();
    let keys: Vec<&str> = map.rows.iter().map(|row| row.place.partition_key.as_str()).collect();
    assert_eq!(keys, ["user#1", "user#2", "user#10"]);
    assert_eq!((map.slices(), map.start_ms), (3, 1_795_701_600_000));
    let hot = &map.rows[0].cells[1];
    assert_eq!((hot.write_units, hot.throttles), (66_600.0, 412));
    let over = map.over_limit();
    assert_eq!(over.len(), 1, "66,600 units in a minute is 1.11x a partition's 60,000: {over:?}");
    assert_eq!((over[0].place.partition_key.as_str(), over[0].slices.as_slice()), ("user#1", [1].as_slice()));
    let broken = InsightsReport::from_json(
        r#"{"Contributors":[{"Keys":["k"],"Datapoints":[{"Timestamp":"yesterday","ApproximateValue":1}]}]}"#,
    );
    let error = builder.add_insights(&broken.expect("parses"), ("Events", None), InsightsKind::Consumed);
    assert!(matches!(error, Err(InsightsError::Timestamp(_))));
    assert!(InsightsReport::from_json("\"a report\"").is_err());
}

#[test]
fn a_range_shard_over_its_limit_is_split_where_its_load_balances() {
    use crate::shard::Boundaries;
    let map = fixed();
    let boundaries =
        Boundaries::new(vec!["".into(), "f".into(), "m".into(), "s".into()]).expect("boundaries");
    // Shard 2 (`m` to `s`) went over its limit; its load sits mostly on `night` and `pulse`.
    let loads: Vec<ValueLoad> = [
        ("mars", 10.0),
        ("night", 300.0),
        ("ocean", 40.0),
        ("pulse", 280.0),
        ("rain", 20.0),
        ("apple", 999.0),
    ]
    .iter()
    .map(|(value, units)| ValueLoad { value: (*value).into(), units: *units })
    .collect();
    let suggested =
        suggest_split(&map, ("Music", Some("ByTitle"), "albums"), &boundaries, &loads).expect("a split");
    assert_eq!(suggested.boundaries.values(), ["", "f", "m", "o", "s"]);
    assert_eq!(
        suggested.splits,
        [ShardSplit {
            partition_key: "albums#2".into(),
            shard: 2,
            peak: suggested.splits[0].peak,
            cuts: vec!["o".into()]
        }]
    );
    assert!(suggested.unsplittable.is_empty());
    // One hot value cannot be cut; a map of another index suggests nothing.
    let one = [ValueLoad { value: "night".into(), units: 900.0 }];
    let stuck =
        suggest_split(&map, ("Music", Some("ByTitle"), "albums"), &boundaries, &one).expect("reported");
    assert_eq!(
        (stuck.unsplittable.as_slice(), stuck.boundaries.values().len()),
        (["albums#2".to_owned()].as_slice(), 4)
    );
    let both = suggested.clone().merge(stuck);
    assert_eq!(
        (both.boundaries.values(), both.splits.len(), both.unsplittable.len()),
        (suggested.boundaries.values(), 1, 1)
    );
    assert!(suggest_split(&map, ("Music", Some("ByArtist"), "albums"), &boundaries, &loads).is_none());
}
