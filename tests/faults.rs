//! The fault injector against DynamoDB Local: every fault is checked against what is stored.

use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, DeleteRequest, KeySchemaElement, KeyType,
    KeysAndAttributes, PutRequest, ScalarAttributeType, WriteRequest,
};
use aws_sdk_dynamodb::Client;
use dynashard_local::faults::FaultInjector;
use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

type Key = HashMap<String, AttributeValue>;

async fn endpoint() -> String {
    dynashard_local::shared_endpoint().await.expect("DynamoDB Local starts")
}

/// A fresh table with a string partition key `pk`, created without faults.
async fn table(endpoint: &str, name: &str) -> String {
    let table = format!("faults-{name}-{}", std::process::id());
    let attribute =
        AttributeDefinition::builder().attribute_name("pk").attribute_type(ScalarAttributeType::S);
    let key = KeySchemaElement::builder().attribute_name("pk").key_type(KeyType::Hash);
    dynashard::client_for_endpoint(endpoint)
        .create_table()
        .table_name(&table)
        .attribute_definitions(attribute.build().expect("attribute"))
        .key_schema(key.build().expect("key schema"))
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .expect("create table");
    table
}

fn key(id: &str) -> Key {
    HashMap::from([("pk".to_owned(), AttributeValue::S(id.to_owned()))])
}

fn item(id: &str) -> Key {
    let mut item = key(id);
    item.insert("body".to_owned(), AttributeValue::S(format!("body of {id}")));
    item
}

fn id_of(key: &Key) -> String {
    key.get("pk").and_then(|value| value.as_s().ok()).cloned().expect("a string pk")
}

async fn put(
    client: &Client,
    table: &str,
    id: &str,
) -> Result<(), aws_sdk_dynamodb::error::SdkError<PutItemError>> {
    client.put_item().table_name(table).set_item(Some(item(id))).send().await.map(drop)
}

async fn stored(endpoint: &str, table: &str, id: &str) -> bool {
    let client = dynashard::client_for_endpoint(endpoint);
    let read = client.get_item().table_name(table).set_key(Some(key(id))).consistent_read(true).send().await;
    read.expect("get item").item.is_some()
}

fn write(id: &str, delete: bool) -> WriteRequest {
    match delete {
        true => WriteRequest::builder()
            .delete_request(DeleteRequest::builder().set_key(Some(key(id))).build().expect("delete")),
        false => WriteRequest::builder()
            .put_request(PutRequest::builder().set_item(Some(item(id))).build().expect("put")),
    }
    .build()
}

fn write_id(request: &WriteRequest) -> String {
    match (&request.put_request, &request.delete_request) {
        (Some(put), _) => id_of(&put.item),
        (_, Some(delete)) => id_of(&delete.key),
        _ => panic!("an empty write request"),
    }
}

#[tokio::test]
async fn throttled_put_fails_as_throttling_and_stores_nothing() {
    let endpoint = endpoint().await;
    let table = table(&endpoint, "throttle").await;
    let faults = FaultInjector::new(1).throttling(1.0).without_sdk_retries();
    let client = faults.client_for_endpoint(&endpoint);

    let error = put(&client, &table, "a").await.expect_err("throttled");
    assert!(
        matches!(error.as_service_error(), Some(PutItemError::ProvisionedThroughputExceededException(_))),
        "{error:?}"
    );
    assert_eq!(error.code(), Some("ProvisionedThroughputExceededException"));
    assert_eq!(error.raw_response().map(|r| r.status().as_u16()), Some(400));
    assert!(dynashard::Error::from_sdk("PutItem", error).is_throttled());
    assert!(!stored(&endpoint, &table, "a").await, "a throttled put must not be written");

    faults.set_enabled(false);
    put(&client, &table, "a").await.expect("passes when disabled");
    assert!(stored(&endpoint, &table, "a").await);
}

#[tokio::test]
async fn every_throttling_reason_can_be_injected() {
    use dynashard::throttling::{ThrottleKind, ThrottleLimit, ThrottledResource, ThrottlingReason};
    let endpoint = endpoint().await;
    let table = table(&endpoint, "reasons").await;
    let mut seen = 0;
    for kind in ThrottleKind::all() {
        let arn = match kind.resource {
            ThrottledResource::Table => format!("arn:aws:dynamodb:ddblocal:000000000000:table/{table}"),
            ThrottledResource::Index => {
                format!("arn:aws:dynamodb:ddblocal:000000000000:table/{table}/index/ByFile")
            }
        };
        let faults = FaultInjector::new(3)
            .throttling(1.0)
            .throttling_reasons([ThrottlingReason::new(kind, arn.clone())])
            .without_sdk_retries();
        let client = faults.client_for_endpoint(&endpoint);
        let error =
            dynashard::Error::from_sdk("PutItem", put(&client, &table, "a").await.expect_err("throttled"));
        let code = match kind.limit {
            ThrottleLimit::MaxOnDemand => "ThrottlingException",
            ThrottleLimit::AccountLimit => "RequestLimitExceeded",
            _ => "ProvisionedThroughputExceededException",
        };
        assert_eq!(error.code(), Some(code), "{kind}");
        assert!(error.is_throttled(), "{kind}");
        assert_eq!(error.is_key_range_throttled(), kind.limit == ThrottleLimit::KeyRange, "{kind}");
        let [reason] = error.throttling_reasons() else { panic!("one reason for {kind}: {error}") };
        assert_eq!((reason.kind(), reason.arn()), (Some(kind), Some(arn.as_str())));
        assert_eq!(reason.table(), Some(table.as_str()));
        seen += 1;
    }
    assert_eq!(seen, 16);
    assert!(!stored(&endpoint, &table, "a").await, "a throttled put must not be written");
}

#[tokio::test]
async fn server_error_put_fails_with_500_and_stores_nothing() {
    let endpoint = endpoint().await;
    let table = table(&endpoint, "server").await;
    let faults = FaultInjector::new(2).server_errors(1.0).without_sdk_retries();
    let error = put(&faults.client_for_endpoint(&endpoint), &table, "a").await.expect_err("fails");
    assert!(matches!(error.as_service_error(), Some(PutItemError::InternalServerError(_))), "{error:?}");
    assert_eq!(error.raw_response().map(|r| r.status().as_u16()), Some(500));
    let error = dynashard::Error::from_sdk("PutItem", error);
    assert_eq!(error.code(), Some("InternalServerError"));
    assert!(!error.is_throttled());
    assert!(!stored(&endpoint, &table, "a").await, "a failed put must not be written");
    assert_eq!(faults.stats().operation("PutItem").server_errors, 1);
}

#[tokio::test]
async fn batch_write_leaves_exactly_the_unprocessed_requests_undone() {
    let endpoint = endpoint().await;
    let table = table(&endpoint, "batch-write").await;
    let plain = dynashard::client_for_endpoint(&endpoint);
    let faults = FaultInjector::new(3).unprocessed(1.0).without_sdk_retries();
    let client = faults.client_for_endpoint(&endpoint);
    let mut returned = 0;
    for round in 0..5 {
        let deletes: Vec<String> = (0..5).map(|i| format!("r{round}-old{i}")).collect();
        for id in &deletes {
            put(&plain, &table, id).await.expect("store");
        }
        let puts: Vec<String> = (0..15).map(|i| format!("r{round}-new{i}")).collect();
        let requests = puts.iter().map(|id| write(id, false)).chain(deletes.iter().map(|id| write(id, true)));
        let output =
            client.batch_write_item().request_items(&table, requests.collect()).send().await.expect("batch");
        let unprocessed: BTreeSet<String> = output
            .unprocessed_items()
            .and_then(|u| u.get(&table))
            .into_iter()
            .flatten()
            .map(write_id)
            .collect();
        assert!(!unprocessed.is_empty() && unprocessed.len() < 20, "round {round}: {unprocessed:?}");
        returned += unprocessed.len();
        for id in &puts {
            assert_eq!(stored(&endpoint, &table, id).await, !unprocessed.contains(id), "put {id}");
        }
        for id in &deletes {
            assert_eq!(stored(&endpoint, &table, id).await, unprocessed.contains(id), "delete {id}");
        }
    }
    let stats = faults.stats().operation("BatchWriteItem");
    assert_eq!((stats.attempts, stats.unprocessed, stats.unprocessed_entries), (5, 5, returned as u64));
}

#[tokio::test]
async fn batch_get_returns_items_and_unprocessed_keys_covering_the_request() {
    let endpoint = endpoint().await;
    let table = table(&endpoint, "batch-get").await;
    let plain = dynashard::client_for_endpoint(&endpoint);
    let ids: BTreeSet<String> = (0..30).map(|i| format!("item{i:02}")).collect();
    for id in &ids {
        put(&plain, &table, id).await.expect("store");
    }
    let faults = FaultInjector::new(4).unprocessed(1.0).without_sdk_retries();
    let request = KeysAndAttributes::builder()
        .set_keys(Some(ids.iter().map(|id| key(id)).collect()))
        .projection_expression("#pk")
        .expression_attribute_names("#pk", "pk")
        .consistent_read(true)
        .build()
        .expect("keys");
    let output =
        faults.client_for_endpoint(&endpoint).batch_get_item().request_items(&table, request).send().await;
    let output = output.expect("batch get");

    let items = output.responses().and_then(|r| r.get(&table)).cloned().unwrap_or_default();
    assert!(items.iter().all(|item| item.len() == 1), "the projection still applies: {items:?}");
    let read: BTreeSet<String> = items.iter().map(id_of).collect();
    let rest = output.unprocessed_keys().and_then(|u| u.get(&table)).expect("unprocessed keys");
    assert_eq!(rest.projection_expression(), Some("#pk"));
    assert_eq!(rest.consistent_read(), Some(true));
    assert_eq!(rest.expression_attribute_names().and_then(|n| n.get("#pk")).map(String::as_str), Some("pk"));
    let unprocessed: BTreeSet<String> = rest.keys().iter().map(id_of).collect();
    assert!(!read.is_empty() && !unprocessed.is_empty());
    assert!(read.is_disjoint(&unprocessed), "{read:?} / {unprocessed:?}");
    assert_eq!(read.union(&unprocessed).cloned().collect::<BTreeSet<_>>(), ids);
    assert_eq!(faults.stats().operation("BatchGetItem").unprocessed_entries, unprocessed.len() as u64);
}

#[tokio::test]
async fn a_batch_of_one_comes_back_whole_and_is_not_written() {
    let endpoint = endpoint().await;
    let table = table(&endpoint, "batch-one").await;
    let faults = FaultInjector::new(5).unprocessed(1.0).without_sdk_retries();
    let client = faults.client_for_endpoint(&endpoint);
    let send = || client.batch_write_item().request_items(&table, vec![write("only", false)]).send();
    let output = send().await.expect("batch");
    let unprocessed = output.unprocessed_items().and_then(|u| u.get(&table)).expect("unprocessed");
    assert_eq!(unprocessed.iter().map(write_id).collect::<Vec<_>>(), ["only"]);
    assert!(!stored(&endpoint, &table, "only").await);
    faults.set_enabled(false);
    let output = send().await.expect("batch");
    assert!(output.unprocessed_items().is_none_or(HashMap::is_empty));
    assert!(stored(&endpoint, &table, "only").await);
}

#[tokio::test]
async fn rates_are_roughly_honoured_and_counted() {
    let endpoint = endpoint().await;
    let faults = FaultInjector::new(6).throttling(0.3).server_errors(0.1).without_sdk_retries();
    let client = faults.client_for_endpoint(&endpoint);
    let (mut throttled, mut failed) = (0u64, 0u64);
    for _ in 0..300 {
        match client.list_tables().limit(1).send().await {
            Ok(_) => {}
            Err(error) if error.code() == Some("ProvisionedThroughputExceededException") => throttled += 1,
            Err(error) if error.code() == Some("InternalServerError") => failed += 1,
            Err(error) => panic!("unexpected error: {error:?}"),
        }
    }
    assert!((60..=120).contains(&throttled), "{throttled} of 300 throttled at 0.3");
    assert!((15..=45).contains(&failed), "{failed} of 300 failed at 0.1");
    let stats = faults.stats().operation("ListTables");
    assert_eq!((stats.attempts, stats.throttled, stats.server_errors), (300, throttled, failed));
}

#[tokio::test]
async fn only_restricts_faults_and_stats_are_per_operation() {
    let endpoint = endpoint().await;
    let table = table(&endpoint, "only").await;
    let faults = FaultInjector::new(7).throttling(1.0).only(&["BatchWriteItem"]).without_sdk_retries();
    let client = faults.client_for_endpoint(&endpoint);
    put(&client, &table, "single").await.expect("PutItem is not faulted");
    let batch = client.batch_write_item().request_items(&table, vec![write("batched", false)]).send().await;
    assert_eq!(batch.expect_err("throttled").code(), Some("ProvisionedThroughputExceededException"));
    assert!(stored(&endpoint, &table, "single").await && !stored(&endpoint, &table, "batched").await);
    let stats = faults.stats();
    assert_eq!((stats.operation("PutItem").attempts, stats.operation("PutItem").faults()), (1, 0));
    assert_eq!(
        (stats.operation("BatchWriteItem").attempts, stats.operation("BatchWriteItem").throttled),
        (1, 1)
    );
    assert_eq!(stats.total().faults(), 1);
    faults.reset_stats();
    assert_eq!(faults.stats().total().attempts, 0);
}

#[tokio::test]
async fn a_disabled_injector_injects_nothing() {
    let endpoint = endpoint().await;
    let table = table(&endpoint, "disabled").await;
    let faults = FaultInjector::new(8).throttling(0.5).server_errors(0.5).without_sdk_retries();
    faults.set_enabled(false);
    let client = faults.client_for_endpoint(&endpoint);
    for i in 0..50 {
        put(&client, &table, &format!("item{i}")).await.expect("no fault while disabled");
    }
    assert_eq!((faults.stats().total().attempts, faults.stats().total().faults()), (50, 0));
    faults.set_enabled(true);
    assert!(put(&client, &table, "after").await.is_err(), "faults resume when enabled again");
}

#[tokio::test]
async fn the_same_seed_gives_the_same_faults() {
    let endpoint = endpoint().await;
    let run = |seed| {
        let endpoint = endpoint.clone();
        async move {
            let faults = FaultInjector::new(seed).throttling(0.5).without_sdk_retries();
            let client = faults.client_for_endpoint(&endpoint);
            let mut outcomes = Vec::new();
            for _ in 0..40 {
                outcomes.push(client.list_tables().limit(1).send().await.is_ok());
            }
            outcomes
        }
    };
    let first = run(9).await;
    assert_eq!(first, run(9).await);
    assert_ne!(first, run(10).await);
}

#[tokio::test]
async fn sdk_retries_absorb_most_throttling() {
    let endpoint = endpoint().await;
    let table = table(&endpoint, "retries").await;
    let faults = FaultInjector::new(11).throttling(0.3);
    let retries = RetryConfig::standard().with_initial_backoff(Duration::from_millis(5));
    let config =
        faults.attach(dynashard::client_for_endpoint(&endpoint).config().to_builder().retry_config(retries));
    let client = Client::from_conf(config.build());
    let mut succeeded = 0u64;
    for i in 0..100 {
        let id = format!("item{i}");
        if put(&client, &table, &id).await.is_ok() {
            succeeded += 1;
            assert!(stored(&endpoint, &table, &id).await);
        }
    }
    let stats = faults.stats().operation("PutItem");
    assert!(succeeded >= 95, "{succeeded} of 100 succeeded");
    // Every throttled attempt is retried, except the last of a call that then fails.
    assert!(stats.throttled >= 20, "{stats:?}");
    assert_eq!(stats.attempts, 100 + stats.throttled - (100 - succeeded), "{stats:?}");
}

#[tokio::test]
async fn default_clients_keep_the_sdk_retries() {
    let endpoint = endpoint().await;
    let table = table(&endpoint, "default-retries").await;
    let retrying = FaultInjector::new(12).throttling(1.0);
    assert!(put(&retrying.client_for_endpoint(&endpoint), &table, "a").await.is_err());
    assert_eq!(
        retrying.stats().operation("PutItem").attempts,
        3,
        "the standard retry strategy makes 3 attempts"
    );
    let single = FaultInjector::new(12).throttling(1.0).without_sdk_retries();
    assert!(put(&single.client_for_endpoint(&endpoint), &table, "a").await.is_err());
    assert_eq!(single.stats().operation("PutItem").attempts, 1);
}
