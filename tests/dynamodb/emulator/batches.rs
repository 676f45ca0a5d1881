//! Batches and transactions under partition pressure: refused entries come back unprocessed,
//! nothing is lost or doubled, leftovers are handed back; transactions are cancelled whole.

use super::model::{client, direct, emulator, Access};
use crate::unique;
use dynashard::transaction::ReasonCode;
use dynashard::{Db, Error, RetryPolicy, Unprocessed};
use dynashard_local::emulator::PartitionLimits;
use futures::TryStreamExt;
use std::collections::BTreeSet;
use std::time::Duration;

fn hot_batch(path: &str, count: u64) -> Vec<Access> {
    (0..count).map(|n| Access::new(format!("{path}-{n}"), path, &unique("u"), n, 200)).collect()
}

async fn listed(db: &Db, path: &str) -> Vec<Access> {
    db.stream(Access::query_by_file(path)).try_collect().await.expect("a listing")
}

#[tokio::test]
async fn batch_writes_over_a_hot_partition_come_back_unprocessed_and_lose_nothing() {
    let emulator = emulator(PartitionLimits::dynamodb().write_units(100.0)).await;
    let db = Db::new(client(&emulator)).with_retry_policy(RetryPolicy::new(
        50,
        Duration::from_millis(20),
        Duration::from_millis(200),
    ));
    let path = unique("/batch-hot");
    let batch = hot_batch(&path, 400);
    db.batch_put(&batch).await.expect("every write lands in the end");
    let usage = emulator.usage();
    let hot = usage.partition("EmulatorTests", Some("ByFile"), &format!("file#{path}"));
    assert!(hot.throttled_writes > 50, "entries were refused: {hot:?}");
    assert_eq!(hot.write_units, 400.0, "each entry counted once");
    let mut read = listed(&direct().await, &path).await;
    let ids: BTreeSet<String> = read.iter().map(|access| access.id.clone()).collect();
    assert_eq!((read.len(), ids.len()), (400, 400), "nothing lost, nothing doubled");
    read.sort();
    let mut expected = batch.clone();
    expected.sort();
    assert_eq!(read, expected);
}

#[tokio::test]
async fn leftovers_are_handed_back_when_retries_run_out() {
    let emulator = emulator(PartitionLimits::dynamodb().write_units(10.0)).await;
    let db = Db::new(client(&emulator)).with_retry_policy(RetryPolicy::new(
        2,
        Duration::from_millis(1),
        Duration::from_millis(5),
    ));
    let path = unique("/batch-leftovers");
    let batch = hot_batch(&path, 200);
    let error = db.batch_put(&batch).await.expect_err("the partition cannot take 200 writes at once");
    assert!(error.is_key_range_throttled() || error.throttling_reasons().is_empty(), "{error}");
    let Error::BatchIncomplete { unprocessed: Unprocessed::Writes { puts, deletes }, succeeded, .. } = error
    else {
        panic!("{error:?}")
    };
    assert!(
        deletes.is_empty() && !puts.is_empty() && succeeded > 0,
        "{} left, {succeeded} written",
        puts.len()
    );
    let left: BTreeSet<String> = puts
        .into_iter()
        .map(|item| dynashard::item::from_item::<Access>(item).expect("an access").id)
        .collect();
    let stored: BTreeSet<String> = listed(&direct().await, &path).await.into_iter().map(|a| a.id).collect();
    assert_eq!(stored.len(), succeeded, "what succeeded is stored");
    assert!(stored.is_disjoint(&left), "leftovers were not written");
    assert_eq!(stored.len() + left.len(), 200, "stored and leftovers make up the batch");
}

#[tokio::test]
async fn batch_gets_of_a_hot_partition_come_back_whole() {
    // Each key is a table partition of its own, read once per round at one unit (strongly
    // consistent): with two units per second per partition, later rounds are refused in part.
    let emulator = emulator(PartitionLimits::dynamodb().read_units(2.0)).await;
    let path = unique("/batch-get");
    let batch = hot_batch(&path, 30);
    direct().await.batch_put(&batch).await.expect("written past the emulator");
    let db = Db::new(client(&emulator)).with_retry_policy(RetryPolicy::new(
        60,
        Duration::from_millis(20),
        Duration::from_millis(300),
    ));
    for _ in 0..6 {
        let keys = batch.iter().map(|access| Access::key(&access.id).expect("a key"));
        let read = db.batch_get(keys).consistent().await.expect("read in the end");
        assert_eq!(read.iter().flatten().count(), 30);
    }
    let throttled: u64 =
        emulator.usage().partitions_of("EmulatorTests", None).map(|(_, c)| c.throttled_reads).sum();
    assert!(throttled > 0, "keys were refused and retried");
}

#[tokio::test]
async fn a_transaction_over_a_partition_limit_is_cancelled_whole() {
    let emulator = emulator(PartitionLimits::dynamodb().write_units(4.0)).await;
    let db = Db::new(client(&emulator));
    let path = unique("/tx-hot");
    let mut outcomes = Vec::new();
    for round in 0..6u64 {
        let (a, b) = (
            Access::new(format!("{path}-{round}-a"), &path, "u", round, 10),
            Access::new(format!("{path}-{round}-b"), &path, "u", round, 10),
        );
        outcomes.push(((a.clone(), b.clone()), db.transaction().put(&a).put(&b).await));
    }
    let local = direct().await;
    let mut cancelled = 0;
    for ((a, b), outcome) in outcomes {
        let stored = (
            local.get(Access::key(&a.id).expect("a key")).await.expect("a read").is_some(),
            local.get(Access::key(&b.id).expect("a key")).await.expect("a read").is_some(),
        );
        match outcome {
            Ok(()) => assert_eq!(stored, (true, true)),
            Err(Error::TransactionCanceled { reasons }) => {
                cancelled += 1;
                assert_eq!(stored, (false, false), "nothing of a cancelled transaction is written");
                assert!(
                    reasons.iter().any(|reason| reason.code == ReasonCode::ThrottlingError),
                    "{reasons:?}"
                );
            }
            Err(error) => panic!("{error:?}"),
        }
    }
    assert!(cancelled > 0, "a transaction of two writes at twice the units exceeds 4 units per second");
}

#[tokio::test]
async fn a_batch_the_emulator_cannot_read_takes_no_capacity() {
    use aws_sdk_dynamodb::types::{PutRequest, WriteRequest};
    let emulator = emulator(PartitionLimits::dynamodb()).await;
    let client = client(&emulator);
    let path = unique("/unread");
    let item = dynashard::item::to_item(&Access::new(unique("a"), &path, "u", 1, 10)).expect("an item");
    let put = WriteRequest::builder()
        .put_request(PutRequest::builder().set_item(Some(item)).build().expect("a put"))
        .build();
    // The table it knows comes first (tables are read in name order); the missing one makes DynamoDB refuse the whole batch.
    let error = client
        .batch_write_item()
        .request_items("EmulatorTests", vec![put.clone()])
        .request_items("ZzEmulatorNoSuchTable", vec![put])
        .send()
        .await
        .expect_err("a missing table fails the batch");
    assert_eq!(
        aws_sdk_dynamodb::error::ProvideErrorMetadata::code(&error),
        Some("ResourceNotFoundException")
    );
    let usage = emulator.usage();
    assert_eq!(
        usage.total("EmulatorTests", Some("ByFile")).write_units,
        0.0,
        "nothing was written, nothing taken"
    );
    assert_eq!(usage.total("EmulatorTests", None).write_units, 0.0);
}
