//! The commands that read DynamoDB (`inspect`, `boundaries --from-table`), against the
//! DynamoDB Local that dynashard starts for this test binary (or `AWS_ENDPOINT_URL_DYNAMODB`).

#![allow(clippy::unwrap_used, clippy::expect_used)] // a test unwraps what it sets up

use assert_cmd::cargo::cargo_bin_cmd;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType,
    Projection, ProjectionType, PutRequest, ScalarAttributeType, WriteRequest,
};
use aws_sdk_dynamodb::Client;
use predicates::prelude::*;
use std::collections::HashMap;

type Item = HashMap<String, AttributeValue>;

async fn endpoint() -> String {
    dynashard_local::shared_endpoint().await.expect("DynamoDB Local starts")
}

/// A name unique to this test run.
fn unique(prefix: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!("{prefix}-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

fn key(name: &str, key_type: KeyType) -> KeySchemaElement {
    KeySchemaElement::builder().attribute_name(name).key_type(key_type).build().expect("key schema")
}

fn string_attribute(name: &str) -> AttributeDefinition {
    AttributeDefinition::builder()
        .attribute_name(name)
        .attribute_type(ScalarAttributeType::S)
        .build()
        .expect("attribute definition")
}

/// A table keyed by `pk`, with index `GSI1` partitioned by `gsi1pk`.
async fn create_table(client: &Client, name: &str) {
    let index = GlobalSecondaryIndex::builder()
        .index_name("GSI1")
        .key_schema(key("gsi1pk", KeyType::Hash))
        .projection(Projection::builder().projection_type(ProjectionType::All).build())
        .build()
        .expect("index");
    client
        .create_table()
        .table_name(name)
        .attribute_definitions(string_attribute("pk"))
        .attribute_definitions(string_attribute("gsi1pk"))
        .key_schema(key("pk", KeyType::Hash))
        .global_secondary_indexes(index)
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .expect("create table");
}

async fn put_all(client: &Client, table: &str, items: Vec<Item>) {
    for chunk in items.chunks(25) {
        let mut requests: Vec<WriteRequest> = chunk
            .iter()
            .map(|item| {
                let put = PutRequest::builder().set_item(Some(item.clone())).build().expect("put");
                WriteRequest::builder().put_request(put).build()
            })
            .collect();
        while !requests.is_empty() {
            let output =
                client.batch_write_item().request_items(table, requests).send().await.expect("batch write");
            requests = output.unprocessed_items.and_then(|mut left| left.remove(table)).unwrap_or_default();
        }
    }
}

fn item(pairs: &[(&str, &str)]) -> Item {
    pairs.iter().map(|(name, value)| ((*name).to_owned(), AttributeValue::S((*value).to_owned()))).collect()
}

/// A table whose index holds 21 shards of `album`: shard 7 has 60 items, the others 20 each;
/// five more items are not in the index.
async fn album_table() -> (String, String) {
    let endpoint = endpoint().await;
    let client = dynashard::client_for_endpoint(&endpoint);
    let table = unique("cli-inspect");
    create_table(&client, &table).await;
    let mut items = Vec::new();
    for shard in 0..21 {
        for n in 0..if shard == 7 { 60 } else { 20 } {
            items
                .push(item(&[("pk", &format!("artist-{shard}-{n}")), ("gsi1pk", &format!("album#{shard}"))]));
        }
    }
    for n in 0..5 {
        items.push(item(&[("pk", &format!("loner-{n}"))]));
    }
    put_all(&client, &table, items).await;
    (endpoint, table)
}

#[tokio::test]
async fn inspect_shows_shard_balance_of_an_index() {
    let (endpoint, table) = album_table().await;
    cargo_bin_cmd!("dynashard")
        .args(["inspect", "--table", &table, "--index", "GSI1", "--endpoint", &endpoint, "--segments", "3"])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "{table} (index GSI1): 460 items in 21 partition key values (partition key \"gsi1pk\")"
        )))
        // mean 460 / 21 = 21.9; 60 / 21.905 = 2.7391
        .stdout(predicate::str::contains(
            "\"album\": 21 shards seen (ids 0 to 20; --shards gives the declared count), 460 items, mean \
             21.9, max 60 in shard 7, max/mean 2.7391x",
        ))
        // An even spread of 460 items over 21 shards: 21.9 each, deviation 4.57; hot above 40.2.
        .stdout(predicate::str::contains(
            "  hot shards (over 40.2: more than an even spread puts in one by chance, mean + 4 standard \
             deviations): 7 (60, 2.7391x of mean)\n",
        ))
        .stdout(predicate::str::is_match(r"\n       7  █{40}            60  hot\n").expect("regex"))
        .stdout(predicate::str::is_match(r"\n      20  █{13}[▏▎▍▌▋▊▉]? *            20\n").expect("regex"));
    // Declared with one shard more than the data shows: the empty last shard is counted.
    cargo_bin_cmd!("dynashard")
        .args(["inspect", "--table", &table, "--index", "GSI1", "--endpoint", &endpoint, "--shards", "22"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "\"album\": 22 shards (declared), 460 items, mean 20.9, max 60 in shard 7, max/mean 2.8696x",
        ))
        .stdout(predicate::str::is_match(r"\n      21 {55}0\n").expect("regex"));
}

#[tokio::test]
async fn inspect_takes_a_dynamic_index_s_counts_from_its_shard_metadata() {
    let (endpoint, table) = album_table().await;
    let metadata = unique("cli-metadata");
    let db = dynashard::Db::new(dynashard::client_for_endpoint(&endpoint))
        .with_shard_metadata(dynashard::metadata::ShardMetadata::new(&metadata));
    db.create_shard_metadata_table().await.unwrap();
    // Raised to 24 shards once, though only 21 hold items so far.
    let record = [
        ("partition", AttributeValue::S(format!("{table}/GSI1/album"))),
        ("shards", AttributeValue::N("24".into())),
        ("last_changed", AttributeValue::N("2000".into())),
        ("history", AttributeValue::Ss(vec!["1000:21".into(), "2000:24".into()])),
    ];
    let item = record.into_iter().map(|(name, value)| (name.to_owned(), value)).collect();
    db.client().put_item().table_name(&metadata).set_item(Some(item)).send().await.unwrap();
    cargo_bin_cmd!("dynashard")
        .args(["inspect", "--table", &table, "--index", "GSI1", "--endpoint", &endpoint])
        .args(["--metadata-table", &metadata, "--shards", "8"])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"album\": 24 shards (recorded), 460 items, mean 19.2"))
        .stdout(predicate::str::is_match(r"\n      23 {55}0\n").expect("regex"));
    cargo_bin_cmd!("dynashard")
        .args(["inspect", "--table", &table, "--endpoint", &endpoint, "--metadata-table", &metadata])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--index"));
}

#[tokio::test]
async fn inspect_of_a_table_lists_plain_partitions() {
    let (endpoint, table) = album_table().await;
    cargo_bin_cmd!("dynashard")
        .args(["inspect", "--table", &table, "--endpoint", &endpoint, "--top", "2"])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "{table}: 465 items in 465 partition key values (partition key \"pk\")"
        )))
        .stdout(predicate::str::contains("no sharded partition keys"))
        .stdout(predicate::str::contains("unsharded partition key values: 465 with 465 items; largest:"));
}

#[tokio::test]
async fn missing_tables_and_indexes_are_bad_usage() {
    let (endpoint, table) = album_table().await;
    let missing = unique("cli-missing");
    for command in ["inspect", "boundaries"] {
        let table_flag = if command == "inspect" { "--table" } else { "--from-table" };
        let extra: &[&str] = if command == "inspect" { &[] } else { &["--shards", "2", "--attribute", "pk"] };
        cargo_bin_cmd!("dynashard")
            .args([command, table_flag, &missing, "--endpoint", &endpoint])
            .args(extra)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(format!("table \"{missing}\" does not exist at {endpoint}")));
        cargo_bin_cmd!("dynashard")
            .args([command, table_flag, &table, "--index", "ByTitle", "--endpoint", &endpoint])
            .args(extra)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(format!(
                "table \"{table}\" has no index \"ByTitle\" (its indexes: GSI1)"
            )));
    }
}

#[test]
fn an_unreachable_endpoint_is_a_runtime_failure() {
    cargo_bin_cmd!("dynashard")
        .args(["inspect", "--table", "Music", "--endpoint", "http://127.0.0.1:9"])
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("describing table Music at http://127.0.0.1:9"));
}

/// Titles with duplicates in case and accents, as the seed's album index holds them.
fn titles() -> Vec<String> {
    let words = ["Leaving", "Home", "Heavy", "Migration", "Space", "Cadet", "Café", "Über", "Голос", "Demo"];
    (0..300)
        .map(|n| {
            let title = format!("{} {} {}", words[n % 10], words[(n / 10) % 10], n % 70);
            if n.is_multiple_of(4) {
                title.to_uppercase()
            } else {
                title
            }
        })
        .collect()
}

#[tokio::test]
async fn boundaries_from_a_table_match_boundaries_from_a_file() {
    let endpoint = endpoint().await;
    let client = dynashard::client_for_endpoint(&endpoint);
    let table = unique("cli-titles");
    create_table(&client, &table).await;
    let titles = titles();
    let mut items: Vec<Item> = titles
        .iter()
        .enumerate()
        .map(|(n, title)| item(&[("pk", &format!("album-{n}")), ("title", title), ("gsi1pk", "albums")]))
        .collect();
    items.extend((0..4).map(|n| item(&[("pk", &format!("no-title-{n}")), ("gsi1pk", "albums")])));
    put_all(&client, &table, items).await;

    let from_stdin = cargo_bin_cmd!("dynashard")
        .args(["boundaries", "--shards", "5"])
        .write_stdin(titles.join("\n"))
        .output()
        .expect("runs");
    assert!(from_stdin.status.success());
    for index in [None, Some("GSI1")] {
        let mut command = cargo_bin_cmd!("dynashard");
        command.args(["boundaries", "--shards", "5", "--from-table", &table, "--attribute", "title"]);
        command.args(["--endpoint", &endpoint, "--segments", "4"]);
        if let Some(index) = index {
            command.args(["--index", index]);
        }
        command
            .assert()
            .success()
            .stdout(String::from_utf8(from_stdin.stdout.clone()).expect("UTF-8"))
            .stderr(predicate::str::contains("keys read:       300\n"))
            .stderr(predicate::str::contains("skipped:         4 "));
    }
}

#[tokio::test]
async fn boundaries_from_a_table_without_the_attribute_has_no_keys() {
    let (endpoint, table) = album_table().await;
    cargo_bin_cmd!("dynashard")
        .args([
            "boundaries",
            "--shards",
            "2",
            "--from-table",
            &table,
            "--attribute",
            "title",
            "--endpoint",
            &endpoint,
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("the input has no keys (465 empty or missing keys skipped)"));
}

/// A table whose index holds `reading` in 4 hash shards by hour (shard 1 holds 30 items in
/// 15:00, every other shard and hour 5), `daily` in one shard by day, and a few other values.
async fn bucket_table() -> (String, String) {
    use dynashard::shard::{bucket_partition, TimeBucket};
    let endpoint = endpoint().await;
    let client = dynashard::client_for_endpoint(&endpoint);
    let table = unique("cli-buckets");
    create_table(&client, &table).await;
    let two_pm = 1_698_415_200; // 2023-10-27T14:00:00Z
    let mut partitions: Vec<(String, u32)> = Vec::new();
    for hour in 0..3 {
        for shard in 0..4 {
            let items = if hour == 1 && shard == 1 { 30 } else { 5 };
            partitions
                .push((bucket_partition("reading", shard, TimeBucket::Hour, two_pm + hour * 3_600), items));
        }
    }
    partitions.push((bucket_partition("daily", 0, TimeBucket::Day, two_pm), 7));
    partitions.push((bucket_partition("daily", 0, TimeBucket::Day, two_pm + 86_400), 3));
    partitions.push(("event#5000#2023-10-27".to_owned(), 2));
    partitions.push(("album#0".to_owned(), 4));
    partitions.push(("album#1".to_owned(), 4));
    let mut items = Vec::new();
    for (partition, count) in &partitions {
        for n in 0..*count {
            items.push(item(&[("pk", &format!("{partition}/{n}")), ("gsi1pk", partition)]));
        }
    }
    put_all(&client, &table, items).await;
    (endpoint, table)
}

#[tokio::test]
async fn inspect_reports_time_buckets_per_shard_and_per_bucket() {
    let (endpoint, table) = bucket_table().await;
    cargo_bin_cmd!("dynashard")
        .args(["inspect", "--table", &table, "--index", "GSI1", "--endpoint", &endpoint])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "{table} (index GSI1): 105 items in 17 partition key values (partition key \"gsi1pk\")"
        )))
        // Shards summed over the buckets: 15, 40, 15, 15.
        .stdout(predicate::str::contains(
            "\"reading\" (hour buckets): 4 shards seen (ids 0 to 3; --shards gives the declared count), 85 \
             items, mean 21.3, max 40 in shard 1, max/mean 1.8824x\n",
        ))
        .stdout(predicate::str::contains(
            "  hot shards (over 37.2: more than an even spread puts in one by chance, mean + 4 standard \
             deviations): 1 (40, 1.8824x of mean)\n",
        ))
        // Buckets summed over the shards: 20, 45, 20.
        .stdout(predicate::str::contains(
            "  time buckets: 3 hour buckets from 2023-10-27T14 to 2023-10-27T16, mean 28.3, \
             max 45 in 2023-10-27T15, max/mean 1.5882x\n",
        ))
        .stdout(predicate::str::contains("  hot buckets: 2023-10-27T15 (45, 1.5882x of mean)\n"))
        .stdout(predicate::str::contains(
            "  fullest partition: \"reading#1#2023-10-27T15\" with 30 items (12 partitions, mean 7.1)\n",
        ))
        .stdout(predicate::str::contains(
            "\"daily\" (day buckets): 1 shard seen (ids 0 to 0; --shards gives the declared count), 10 items",
        ))
        .stdout(predicate::str::contains(
            "  time buckets: 2 day buckets from 2023-10-27 to 2023-10-28, mean 5.0, max 7 in 2023-10-27",
        ))
        .stdout(predicate::str::contains(
            "\"album\": 2 shards seen (ids 0 to 1; --shards gives the declared count), 8 items",
        ))
        .stdout(predicate::str::contains("             2  \"event#5000#2023-10-27\"\n"));
}

/// A resharding record and the lease of one finished segment, as a backfill records them.
async fn recorded_resharding(client: &Client, metadata: &str) {
    use dynashard::reshard::{Budget, Layout, ScanKind, ScanPlan};
    let db = dynashard::Db::new(client.clone())
        .with_shard_metadata(dynashard::metadata::ShardMetadata::new(metadata));
    db.create_shard_metadata_table().await.expect("metadata table");
    let text = |value: String| AttributeValue::S(value);
    let plan = ScanPlan {
        epoch: 1,
        kind: ScanKind::Backfill,
        segments: 2,
        scan_table: false,
        began: 1,
        budget: Budget { write_units: Some(500), read_units: None },
        pieces: None,
    };
    let record: Item = [
        ("partition", text("reshard/Orders/ByDay/Order".into())),
        ("phase", text("\"dual-writes\"".into())),
        ("source", text("\"ByDay\"".into())),
        ("target", text("\"ByDayNext\"".into())),
        ("layout", text(serde_json::to_string(&Layout::hash(32)).expect("JSON"))),
        ("started", AttributeValue::N("1".into())),
        ("scan", text(serde_json::to_string(&plan).expect("JSON"))),
        ("scan_epoch", AttributeValue::N("1".into())),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value))
    .collect();
    let lease: Item = [
        ("partition", text("reshard/Orders/ByDay/Order/backfill/1/0".into())),
        ("fence", AttributeValue::N("1".into())),
        ("beat", AttributeValue::N("9".into())),
        ("ended", AttributeValue::Bool(true)),
        ("read", AttributeValue::N("1200".into())),
        ("written", AttributeValue::N("1100".into())),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value))
    .collect();
    for item in [record, lease] {
        client.put_item().table_name(metadata).set_item(Some(item)).send().await.expect("put");
    }
}

#[tokio::test]
async fn reshard_shows_the_progress_of_every_resharding_recorded() {
    let endpoint = endpoint().await;
    let client = dynashard::client_for_endpoint(&endpoint);
    let (empty, metadata) = (unique("EmptyMeta"), unique("ReshardMeta"));
    dynashard::Db::new(client.clone())
        .with_shard_metadata(dynashard::metadata::ShardMetadata::new(&empty))
        .create_shard_metadata_table()
        .await
        .expect("metadata table");
    cargo_bin_cmd!("dynashard")
        .args(["reshard", "--metadata-table", &empty, "--endpoint", &endpoint])
        .assert()
        .success()
        .stdout(predicate::str::contains("no resharding recorded"));
    recorded_resharding(&client, &metadata).await;
    cargo_bin_cmd!("dynashard")
        .args(["reshard", "--metadata-table", &metadata, "--endpoint", &endpoint])
        .assert()
        .success()
        .stdout(predicate::str::contains("Orders/ByDay (Order) -> ByDayNext, hash:32"))
        .stdout(predicate::str::contains("dual writes"))
        .stdout(predicate::str::contains("backfill #1: 1/2 segments, 1,200 items read, 1,100 written (50%)"))
        .stdout(predicate::str::contains("500 write units/s, no read limit"))
        .stdout(predicate::str::contains("never applied to its end"));
}
