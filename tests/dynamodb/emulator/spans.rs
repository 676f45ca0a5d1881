//! The spans a collector receives, through `tracing-opentelemetry` into the OpenTelemetry SDK's
//! in-memory exporter: one per operation with OpenTelemetry's DynamoDB attributes and the units
//! the emulator charged, one child per request of a fan-out.

use super::model::{client, direct, emulator, Access};
use crate::sharded_e2e::model::{E2eRecord, E2eRecords};
use crate::unique;
use dynashard::{Db, Error};
use dynashard_local::emulator::{Emulator, PartitionLimits};
use futures::TryStreamExt;
use opentelemetry::trace::{SpanKind, Status, TracerProvider};
use opentelemetry::Value;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use tracing_subscriber::layer::SubscriberExt;

/// Collects the spans of everything run while the guard lives (on this thread: the test's
/// runtime runs its tasks here).
fn collect() -> (InMemorySpanExporter, tracing::subscriber::DefaultGuard) {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder().with_simple_exporter(exporter.clone()).build();
    let filter = tracing_subscriber::filter::Targets::new().with_target("dynashard", tracing::Level::DEBUG);
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("tests"));
    let subscriber =
        tracing_subscriber::registry().with(tracing_subscriber::Layer::with_filter(layer, filter));
    (exporter, tracing::subscriber::set_default(subscriber))
}

fn attribute<'a>(span: &'a SpanData, key: &str) -> Option<&'a Value> {
    span.attributes.iter().find(|kv| kv.key.as_str() == key).map(|kv| &kv.value)
}

fn text(span: &SpanData, key: &str) -> String {
    attribute(span, key).map(|value| value.as_str().into_owned()).unwrap_or_default()
}

fn number(span: &SpanData, key: &str) -> f64 {
    match attribute(span, key) {
        Some(Value::F64(value)) => *value,
        Some(Value::I64(value)) => *value as f64,
        other => panic!("{key} of {}: {other:?}", span.name),
    }
}

/// The one finished span named `name`, taken from the exporter with everything before it.
fn take(exporter: &InMemorySpanExporter, name: &str) -> (SpanData, Vec<SpanData>) {
    let spans = exporter.get_finished_spans().expect("the exporter's spans");
    exporter.reset();
    let mut named = spans.iter().filter(|span| span.name == name);
    let found = named.next().unwrap_or_else(|| panic!("a span {name} among {:?}", names(&spans))).clone();
    assert!(named.next().is_none(), "one span {name}");
    let children =
        spans.into_iter().filter(|span| span.parent_span_id == found.span_context.span_id()).collect();
    (found, children)
}

fn names(spans: &[SpanData]) -> Vec<String> {
    spans.iter().map(|span| span.name.to_string()).collect()
}

/// The units the emulator charged since the last call.
fn charged(emulator: &Emulator, before: &mut f64) -> f64 {
    let usage = emulator.usage();
    let now: f64 = [None, Some("ByFile"), Some("ByUser")]
        .iter()
        .map(|index| {
            let total = usage.total("EmulatorTests", *index);
            total.read_units + total.write_units
        })
        .sum();
    let spent = now - *before;
    *before = now;
    spent
}

/// The units a request's span says its response reported.
fn reported_units(request: &SpanData) -> f64 {
    let reported: serde_json::Value = serde_json::from_str(&text(request, "aws.dynamodb.consumed_capacity"))
        .expect("consumed capacity as JSON");
    reported
        .as_array()
        .expect("an array")
        .iter()
        .map(|table| table["CapacityUnits"].as_f64().unwrap_or(0.0))
        .sum()
}

/// Checks the attributes every operation span carries, and that its units are those charged.
fn check_operation(span: &SpanData, sends: &str, units: f64) {
    assert_eq!(span.span_kind, SpanKind::Client, "{}", span.name);
    assert_eq!(text(span, "db.system.name"), "aws.dynamodb");
    assert_eq!(text(span, "db.operation.name"), sends, "{}", span.name);
    assert_eq!(text(span, "aws.dynamodb.table_names"), "EmulatorTests");
    assert_eq!(text(span, "dynashard.entity"), "Access");
    let counted = number(span, "dynashard.read_units") + number(span, "dynashard.write_units");
    assert!((counted - units).abs() < 1e-9, "{}: {counted} against {units} charged", span.name);
    let reported: serde_json::Value = serde_json::from_str(&text(span, "aws.dynamodb.consumed_capacity"))
        .expect("consumed capacity as JSON");
    let total: f64 = reported
        .as_array()
        .expect("an array")
        .iter()
        .map(|table| table["CapacityUnits"].as_f64().unwrap_or(0.0))
        .sum();
    assert!((total - units).abs() < 1e-9, "{}: {reported}", span.name);
}

#[tokio::test]
async fn operations_and_their_requests_are_spans_with_the_units_charged() -> Result<(), Error> {
    let emulator = emulator(PartitionLimits::dynamodb()).await;
    let db = Db::new(client(&emulator));
    let (exporter, _guard) = collect();
    let mut before = 0.0;
    charged(&emulator, &mut before);
    let (path, user) = (unique("/traced"), unique("tracer"));
    let accesses: Vec<Access> =
        (0..30).map(|n| Access::new(unique("t"), &path, &user, n, 400 * (1 + n as usize % 5))).collect();

    db.put(&accesses[0]).await?;
    let (put, requests) = take(&exporter, "put Access");
    check_operation(&put, "PutItem", charged(&emulator, &mut before));
    assert!(requests.is_empty(), "one request: the operation's own span");

    db.get(Access::key(&accesses[0].id)?).consistent().await?;
    let (get, _) = take(&exporter, "get Access");
    check_operation(&get, "GetItem", charged(&emulator, &mut before));
    assert_eq!(attribute(&get, "aws.dynamodb.consistent_read"), Some(&Value::Bool(true)));

    db.batch_put(&accesses[1..]).await?;
    let (batch, requests) = take(&exporter, "batch_write Access");
    check_operation(&batch, "BatchWriteItem", charged(&emulator, &mut before));
    assert_eq!(
        names(&requests),
        ["DynamoDB.BatchWriteItem", "DynamoDB.BatchWriteItem"],
        "29 writes: two requests"
    );

    let listed: Vec<Access> = db.stream(Access::query_by_file(&path).page_size(10)).try_collect().await?;
    assert_eq!(listed.len(), 30);
    let (query, requests) = take(&exporter, "query Access");
    // DynamoDB Local reports no units for the last, empty page; the emulator charges half a
    // unit, as DynamoDB does: the span holds what the responses reported.
    let reported: f64 = requests.iter().map(reported_units).sum();
    check_operation(&query, "Query", reported);
    assert!(charged(&emulator, &mut before) >= reported);
    assert_eq!(text(&query, "aws.dynamodb.index_name"), "ByFile");
    assert_eq!(text(&query, "dynashard.shard.strategy"), "none");
    assert_eq!(number(&query, "aws.dynamodb.count"), 30.0);
    assert_eq!(number(&query, "dynashard.requests"), requests.len() as f64);
    assert!(requests.len() >= 3, "pages of 10: {}", requests.len());
    let counted: f64 = requests.iter().map(|request| number(request, "aws.dynamodb.count")).sum();
    assert_eq!(counted, 30.0, "each request's own count");
    for request in &requests {
        assert_eq!(text(request, "rpc.method"), "Query");
        assert_eq!(text(request, "aws.dynamodb.index_name"), "ByFile");
        assert!(text(request, "aws.dynamodb.consumed_capacity").contains("CapacityUnits"));
    }

    let scanned: Vec<Access> = db.stream(Access::scan().segments(3)).try_collect().await?;
    assert!(scanned.len() >= 30);
    let (scan, requests) = take(&exporter, "scan Access");
    check_operation(&scan, "Scan", charged(&emulator, &mut before));
    assert_eq!(number(&scan, "aws.dynamodb.total_segments"), 3.0);
    let mut segments: Vec<f64> =
        requests.iter().map(|request| number(request, "aws.dynamodb.segment")).collect();
    segments.sort_by(f64::total_cmp);
    segments.dedup();
    assert_eq!(segments, [0.0, 1.0, 2.0], "a request span per segment's page");

    db.count(&Access::query_by_user(&user)).await?;
    let (count, _) = take(&exporter, "count Access");
    check_operation(&count, "Query", charged(&emulator, &mut before));
    assert_eq!(text(&count, "aws.dynamodb.select"), "COUNT");
    assert_eq!(number(&count, "aws.dynamodb.count"), 30.0);

    let key = || Access::key(&accesses[2].id);
    db.transaction().delete(key()?).put(&Access::new(unique("t"), &path, &user, 99, 100)).await?;
    let (transaction, _) = take(&exporter, "transaction Access");
    let units = charged(&emulator, &mut before);
    if crate::backend_has("a transaction's index writes reported at twice their units") {
        check_operation(&transaction, "TransactWriteItems", units);
    }

    // A refused write: an error span, with the units its condition check consumed.
    let refused = db.put(&accesses[3]).create_only().await.expect_err("the item exists");
    let (put, _) = take(&exporter, "put Access");
    assert_eq!(put.status, Status::error(""), "{refused}");
    assert_eq!(text(&put, "error.type"), refused.kind());
    check_operation(&put, "PutItem", charged(&emulator, &mut before));
    Ok(())
}

#[tokio::test]
async fn a_merged_read_has_a_request_span_per_shard_it_read() -> Result<(), Error> {
    direct().await.create_table::<E2eRecords>().await?;
    let emulator = emulator(PartitionLimits::dynamodb()).await;
    let db = Db::new(client(&emulator));
    let (exporter, _guard) = collect();
    let page = db.page(&E2eRecord::query_title_hash().page_size(20), None).await?;
    let (query, requests) = take(&exporter, "page E2eRecord");
    assert_eq!(text(&query, "dynashard.shard.strategy"), "hash");
    assert_eq!(number(&query, "aws.dynamodb.count") as usize, page.items.len());
    let mut shards: Vec<f64> = requests.iter().map(|request| number(request, "dynashard.shard")).collect();
    assert_eq!(number(&query, "dynashard.requests"), shards.len() as f64);
    shards.sort_by(f64::total_cmp);
    shards.dedup();
    assert_eq!(shards.len(), 21, "every shard of 21 read, each in a span of its own");
    assert_eq!(number(&query, "dynashard.shards_read"), 21.0);
    let units: f64 = requests.iter().map(reported_units).sum();
    assert!((units - number(&query, "dynashard.read_units")).abs() < 1e-9, "the requests' units add up");
    Ok(())
}
