//! Arguments checked when they are parsed: table and index names, endpoints and input files are
//! bad usage (exit code 2) before anything is read or any request is sent.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a test unwraps what it sets up

use assert_cmd::cargo::cargo_bin_cmd;
use predicates::prelude::*;

/// An endpoint nothing listens on: a check that happens too late fails there with exit code 1.
const NOWHERE: &str = "http://127.0.0.1:9";

fn bad_usage(args: &[&str], message: &str) {
    cargo_bin_cmd!("dynashard")
        .args(args)
        .env_remove("AWS_ENDPOINT_URL_DYNAMODB")
        .write_stdin("a\nb\nc\n")
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(message));
}

#[test]
fn table_names_follow_dynamodb_rules() {
    let long = "t".repeat(256);
    for (table, reason) in [
        ("", "is empty"),
        ("ab", "has 2 characters"),
        (long.as_str(), "has 256 characters"),
        ("my table", "contains ' '"),
        ("Musik#1", "contains '#'"),
        ("Café", "contains 'é'"),
    ] {
        bad_usage(&["inspect", "--table", table, "--endpoint", NOWHERE], reason);
        bad_usage(
            &["boundaries", "-n", "2", "--from-table", table, "--attribute", "a", "--endpoint", NOWHERE],
            reason,
        );
    }
    bad_usage(&["inspect", "--table", "", "--endpoint", NOWHERE], "a table name is 3 to 255 characters");
}

#[test]
fn index_names_follow_dynamodb_rules() {
    for (index, reason) in [("", "is empty"), ("GS", "has 2 characters"), ("by title", "contains ' '")] {
        bad_usage(&["inspect", "--table", "Music", "--index", index, "--endpoint", NOWHERE], reason);
        bad_usage(
            &[
                "boundaries",
                "-n",
                "2",
                "--from-table",
                "Music",
                "--attribute",
                "a",
                "--index",
                index,
                "--endpoint",
                NOWHERE,
            ],
            reason,
        );
    }
    bad_usage(&["inspect", "--table", "Music", "--index", "GS", "--endpoint", NOWHERE], "an index name is");
}

#[test]
fn endpoints_are_http_urls_with_a_host() {
    for endpoint in [
        "not-a-url",
        "127.0.0.1:8000",
        "ftp://127.0.0.1:8000",
        "http://",
        "http://:8000",
        "http:///path",
        "http://local host:8000",
        "http://127.0.0.1:port",
        "http://127.0.0.1:70000",
        "http://[::1:8000",
        "",
    ] {
        bad_usage(&["inspect", "--table", "Music", "--endpoint", endpoint], "invalid value");
        bad_usage(&["inspect", "--table", "Music", "--endpoint", endpoint], "http:// or https:// URL");
    }
    bad_usage(&["inspect", "--table", "Music", "--endpoint", "not-a-url"], "--endpoint");
    cargo_bin_cmd!("dynashard")
        .args(["inspect", "--table", "Music"])
        .env("AWS_ENDPOINT_URL_DYNAMODB", "not-a-url")
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("http:// or https:// URL"));
    // Well-formed endpoints get as far as the network: nothing listens there (exit code 1).
    for endpoint in [NOWHERE, "http://127.0.0.1:9/", "HTTP://localhost:9", "http://[::1]:9"] {
        cargo_bin_cmd!("dynashard")
            .args(["inspect", "--table", "Music", "--endpoint", endpoint])
            .timeout(std::time::Duration::from_secs(120))
            .assert()
            .code(1)
            .stderr(predicate::str::contains("describing table Music"));
    }
}

#[test]
fn input_files_must_be_readable_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let directory = dir.path().to_str().expect("UTF-8 temp dir");
    let missing = dir.path().join("missing.txt");
    let missing = missing.to_str().expect("UTF-8 temp dir");
    bad_usage(&["boundaries", "-n", "2", directory], "is a directory");
    bad_usage(&["boundaries", "-n", "2", "--csv-column", "a", directory], "is a directory");
    bad_usage(&["boundaries", "-n", "2", "--jsonl-field", "a", directory], "is a directory");
    bad_usage(&["boundaries", "-n", "2", "-", directory], "is a directory");
    bad_usage(&["boundaries", "-n", "2", missing], "No such file");
    bad_usage(&["route", "--boundaries", directory, "x"], "is a directory");
    bad_usage(&["route", "--boundaries", "-", "x"], "stdin");
    // `-` is stdin for keys, as is no file at all.
    cargo_bin_cmd!("dynashard")
        .args(["boundaries", "-n", "2", "-"])
        .write_stdin("a\nb\n")
        .assert()
        .success()
        .stdout("[\n  \"\",\n  \"b\"\n]\n");
}
