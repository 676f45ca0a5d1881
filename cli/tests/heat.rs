//! `dynashard heat`: a saved map and Contributor Insights reports, rendered; bad input refused.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a test unwraps what it sets up

use assert_cmd::cargo::cargo_bin_cmd;
use predicates::prelude::*;
use std::path::PathBuf;

fn golden(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../runtime/src/heat/golden").join(name)
}

#[test]
fn insights_reports_render_in_the_terminal_and_as_svg_and_html() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (svg, html) = (dir.path().join("heat.svg"), dir.path().join("heat.html"));
    cargo_bin_cmd!("dynashard")
        .args(["heat", "--table", "Events", "--index", "ByUser", "--color", "never", "--consumed"])
        .arg(golden("insights_consumed.json"))
        .arg("--throttled")
        .arg(golden("insights_throttled.json"))
        .arg("--svg")
        .arg(&svg)
        .arg("--html")
        .arg(&html)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("ByUser user#1 │")
                .and(predicate::str::contains("1 of 3 keys went over")),
        );
    let picture = std::fs::read_to_string(&svg).expect("the SVG");
    assert!(picture.starts_with("<svg") && picture.contains("user#10"));
    assert!(std::fs::read_to_string(&html).expect("the page").contains("<td>user#1</td>"));
}

#[test]
fn a_saved_map_renders_and_anything_else_is_refused() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let map = dir.path().join("map.json");
    let saved = r#"{"start_ms":0,"slice_ms":1000,"rate":{"read_units":3000.0,"write_units":1000.0},
        "rows":[{"place":{"table":"T","index":null,"partition_key":"k"},"cells":[{"write_units":1500.0},{}]}]}"#;
    std::fs::write(&map, saved).expect("write the map");
    cargo_bin_cmd!("dynashard")
        .args(["heat", "--color", "never"])
        .arg(&map)
        .assert()
        .success()
        .stdout(predicate::str::contains("(table) k │█ │  1.50x"));
    let report = golden("insights_consumed.json");
    cargo_bin_cmd!("dynashard")
        .arg("heat")
        .arg(&report)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a heat map"));
    cargo_bin_cmd!("dynashard")
        .args(["heat", "--consumed"])
        .arg(&report)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--table"));
    cargo_bin_cmd!("dynashard").arg("heat").assert().code(2);
}
