//! `dynashard local`: serves the embedded DynamoDB or DynamoDB Local on the chosen port until
//! Ctrl-C, and leaves nothing running afterwards, even when Ctrl-C reaches the whole process group as in a terminal.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a test unwraps what it sets up

use assert_cmd::cargo::cargo_bin_cmd;
use predicates::prelude::*;
use std::io::{BufRead, BufReader, Read};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Kills the child if the test fails half way.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind").local_addr().expect("address").port()
}

fn accepts_connections(port: u16) -> bool {
    TcpStream::connect_timeout(&SocketAddr::from((Ipv4Addr::LOCALHOST, port)), Duration::from_millis(300))
        .is_ok()
}

/// Starts `dynashard local` with `args` in a process group of its own (so that Ctrl-C can be sent
/// to the group, as a terminal does); its pid and endpoint, the first line on stdout.
fn start(args: &[&str]) -> (Running, u32, String) {
    let child = Command::new(env!("CARGO_BIN_EXE_dynashard"))
        .arg("local")
        .args(args)
        .env_remove("AWS_ENDPOINT_URL_DYNAMODB")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("start dynashard local");
    let mut running = Running(child);
    let pid = running.0.id();
    let stdout = running.0.stdout.take().expect("stdout");
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = sender.send(line);
    });
    let endpoint = receiver.recv_timeout(Duration::from_secs(180)).expect("an endpoint within 3 minutes");
    (running, pid, endpoint.trim().to_owned())
}

/// Sends Ctrl-C to the whole process group and waits for the exit; its code and stderr.
fn interrupt(running: &mut Running, pid: u32) -> (Option<i32>, String) {
    let status = Command::new("kill").args(["-INT", "--", &format!("-{pid}")]).status().expect("kill");
    assert!(status.success());
    let started = Instant::now();
    let exit = loop {
        if let Some(exit) = running.0.try_wait().expect("wait") {
            break exit;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "still running a minute after Ctrl-C");
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut stderr = String::new();
    running.0.stderr.take().expect("stderr").read_to_string(&mut stderr).expect("stderr");
    (exit.code(), stderr)
}

/// Creates `table`, keyed by the string attributes `keys` (partition key first).
async fn create_table(client: &aws_sdk_dynamodb::Client, table: &str, keys: &[&str]) {
    use aws_sdk_dynamodb::types::{AttributeDefinition, KeySchemaElement, KeyType, ScalarAttributeType};
    let mut create = client
        .create_table()
        .table_name(table)
        .billing_mode(aws_sdk_dynamodb::types::BillingMode::PayPerRequest);
    for (n, key) in keys.iter().enumerate() {
        let definition =
            AttributeDefinition::builder().attribute_name(*key).attribute_type(ScalarAttributeType::S);
        let kind = if n == 0 { KeyType::Hash } else { KeyType::Range };
        let schema = KeySchemaElement::builder().attribute_name(*key).key_type(kind);
        create = create
            .attribute_definitions(definition.build().expect("definition"))
            .key_schema(schema.build().expect("key"));
    }
    create.send().await.expect("create a table");
}

/// Serves a working DynamoDB on the chosen port until Ctrl-C; `upstream` finds the port of the
/// backend behind it (none when the backend listens there itself).
async fn serves_on_the_chosen_port(backend: &str, stopped: &str, upstream: fn(&str) -> Option<u16>) {
    let port = free_port();
    let (mut running, pid, endpoint) = start(&["--backend", backend, "--port", &port.to_string()]);
    assert_eq!(endpoint, format!("http://127.0.0.1:{port}"));

    // A real DynamoDB answers there.
    let client = dynashard::client_for_endpoint(&endpoint);
    let table = "cli-local-test";
    create_table(&client, table, &["pk"]).await;
    let tables = client.list_tables().send().await.expect("list tables");
    assert_eq!(tables.table_names(), [table]);

    // Ctrl-C to the whole process group, as a terminal sends it.
    let (code, stderr) = interrupt(&mut running, pid);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains(stopped), "{stderr}");

    // Neither the chosen port nor the backend behind it is left listening.
    assert!(!accepts_connections(port), "the chosen port is closed");
    if let Some(upstream) = upstream(&stderr) {
        assert!(!accepts_connections(upstream), "the backend was stopped");
    }
}

#[tokio::test]
async fn the_embedded_dynamodb_serves_on_the_chosen_port_until_ctrl_c() {
    serves_on_the_chosen_port("embedded", "the embedded DynamoDB stopped", |_| None).await;
}

#[tokio::test]
#[ignore = "needs DynamoDB Local (Java): DYNASHARD_BACKEND=local cargo test -- --include-ignored"]
async fn dynamodb_local_serves_on_the_chosen_port_until_ctrl_c() {
    serves_on_the_chosen_port("local", "DynamoDB Local stopped", |stderr| {
        let port = stderr
            .split("forwarding to DynamoDB Local at http://127.0.0.1:")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|port| port.parse().ok());
        assert!(port.is_some(), "the upstream endpoint in {stderr}");
        port
    })
    .await;
}

#[test]
fn a_ttl_sweep_is_for_the_embedded_dynamodb() {
    cargo_bin_cmd!("dynashard")
        .args(["local", "--backend", "local", "--ttl-sweep", "5"])
        .timeout(Duration::from_secs(30))
        .assert()
        .failure()
        .stdout("")
        .stderr(predicate::str::contains("--ttl-sweep is for the embedded DynamoDB"));
}

#[test]
fn a_busy_port_fails_before_starting_anything() {
    let busy = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind");
    let port = busy.local_addr().expect("address").port();
    cargo_bin_cmd!("dynashard")
        .args(["local", "--port", &port.to_string()])
        .timeout(Duration::from_secs(30))
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains(format!("cannot listen on 127.0.0.1:{port}")));
}

#[test]
fn a_port_must_be_a_port() {
    cargo_bin_cmd!("dynashard").args(["local", "--port", "70000"]).assert().code(2);
}

#[test]
fn partition_limit_flags_are_checked() {
    for args in [
        &["local", "--scale", "0.1"][..],
        &["local", "--partition-limits", "--scale", "0"],
        &["local", "--partition-limits", "--partition-write-units", "-5"],
        &["local", "--partition-limits", "--table-limit", "Orders=spot:write=5"],
        &["local", "--partition-limits", "--table-limit", "Orders"],
    ] {
        cargo_bin_cmd!("dynashard").args(args).assert().code(2).stdout("");
    }
}

#[tokio::test]
async fn partition_limits_throttle_a_hot_key_and_the_hottest_partitions_are_listed() {
    let port = free_port();
    let (mut running, pid, endpoint) =
        start(&["--port", &port.to_string(), "--partition-limits", "--scale", "0.01"]);
    assert_eq!(endpoint, format!("http://127.0.0.1:{port}"));

    // Ten write units a second per partition, a burst of one second's worth: sixty puts to one
    // key sent together go over it. Sent one after another on a slow machine, they would not.
    let base = dynashard::client_for_endpoint(&endpoint);
    let config =
        base.config().to_builder().retry_config(aws_sdk_dynamodb::config::retry::RetryConfig::disabled());
    let client = aws_sdk_dynamodb::Client::from_conf(config.build());
    let table = "cli-limits-test";
    create_table(&client, table, &["pk", "sk"]).await;
    let mut puts = tokio::task::JoinSet::new();
    for n in 0..60 {
        let put = client
            .put_item()
            .table_name(table)
            .item("pk", aws_sdk_dynamodb::types::AttributeValue::S("hot".into()))
            .item("sk", aws_sdk_dynamodb::types::AttributeValue::S(format!("{n:03}")));
        puts.spawn(put.send());
    }
    let mut throttled = 0;
    while let Some(put) = puts.join_next().await {
        if let Err(error) = put.expect("the put task ran") {
            let error = dynashard::Error::from_sdk("PutItem", error);
            assert!(error.is_key_range_throttled(), "{error}");
            assert_eq!(error.throttling_reasons()[0].reason(), "TableWriteKeyRangeThroughputExceeded");
            throttled += 1;
        }
    }
    assert!(throttled >= 30, "{throttled} of 60 throttled");

    let (code, stderr) = interrupt(&mut running, pid);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("partition limits: 10 write and 30 read units"), "{stderr}");
    assert!(
        stderr.contains(&format!("hottest partitions ({throttled} throttled requests in all)")),
        "{stderr}"
    );
    assert!(stderr.contains("cli-limits-test \"hot\": "), "{stderr}");
    assert!(!accepts_connections(port), "the emulator's port is closed");
}
