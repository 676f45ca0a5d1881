//! Dynamic shard counts: a file's access log whose index partition grows from one shard as
//! writes are throttled, read back whole in time order.

use crate::{db, unique};
use aws_sdk_dynamodb::types::AttributeValue;
use dynashard::metadata::ShardMetadata;
use dynashard::{Db, Entity, Error, RetryPolicy, Table};
use dynashard_local::faults::FaultInjector;
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::time::Duration;

const METADATA: &str = "DynamicShardMetadataTests";
const COOLDOWN: Duration = Duration::from_millis(300);

#[derive(Table)]
#[table(name = "DynamicShardTests", pk = "pk", sk = "sk")]
#[gsi(ByFile(pk = "file_pk", sk = "file_sk"))]
struct Audit;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[entity(table = Audit, pk = "access#{id}", sk = "access")]
#[gsi(ByFile(pk = "file#{path}", sk = "{at}#{id}"))]
#[shard(ByFile(dynamic, max = 16))]
struct FileAccess {
    at: u64,
    id: String,
    path: String,
    user: String,
}

fn shards() -> ShardMetadata {
    ShardMetadata::new(METADATA)
        .cooldown(COOLDOWN)
        .backoff(Duration::from_millis(30))
        .cache_for(Duration::from_millis(50))
}

async fn plain_db() -> Db {
    let db = db().await.with_shard_metadata(shards());
    db.create_table::<Audit>().await.unwrap();
    db.create_shard_metadata_table().await.unwrap();
    db
}

fn access(path: &str, n: u64) -> FileAccess {
    // The id is unique across tests: they share the table.
    let id = format!("{path}/{n:06}");
    FileAccess { at: 1_700_000_000_000 + n, id, path: path.to_owned(), user: format!("u{}", n % 5) }
}

/// The index partitions (shard suffixes) the file's items were written to.
async fn shards_used(db: &Db, path: &str) -> BTreeSet<String> {
    let prefix = format!("file#{path}#");
    let mut used = BTreeSet::new();
    let mut pages = db.client().scan().table_name("DynamicShardTests").into_paginator().items().send();
    while let Some(item) = pages.try_next().await.unwrap() {
        if let Some(AttributeValue::S(pk)) = item.get("file_pk") {
            if let Some(shard) = pk.strip_prefix(&prefix) {
                used.insert(shard.to_owned());
            }
        }
    }
    used
}

async fn listing(db: &Db, path: &str) -> Vec<FileAccess> {
    db.stream(FileAccess::query_by_file(path)).try_collect().await.unwrap()
}

#[tokio::test]
async fn throttled_writers_grow_the_count_once_per_cooldown_and_lose_nothing() {
    plain_db().await;
    let faults = FaultInjector::new(21).throttling(0.3).only(&["PutItem"]).without_sdk_retries();
    let endpoint = dynashard_local::shared_endpoint().await.unwrap();
    let db = Db::new(faults.client_for_endpoint(&endpoint))
        .with_retry_policy(RetryPolicy::new(60, Duration::from_millis(1), Duration::from_millis(20)))
        .with_shard_metadata(shards());
    let path = unique("/shared/firetvGen2.txt");

    let writers = (0..32u64).map(|writer| {
        let (db, path) = (db.clone(), path.clone());
        tokio::spawn(async move {
            for n in 0..40 {
                db.put(&access(&path, writer * 1_000 + n)).await.unwrap();
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        })
    });
    for writer in futures::future::join_all(writers).await {
        writer.unwrap();
    }
    assert!(faults.stats().operation("PutItem").throttled > 100, "throttling was injected");

    let state = db.shard_state(&FileAccess::query_by_file(&path)).await.unwrap();
    assert!(state.count >= 2, "throttling raised the count: {state:?}");
    let counts: Vec<u32> = state.history.iter().map(|entry| entry.count).collect();
    assert_eq!(counts.first(), Some(&1));
    for pair in counts.windows(2) {
        // Doubled while the throttling went on, one more for a throttle long after a change.
        assert!(
            pair[1] == (pair[0] * 2).min(16) || pair[1] == pair[0] + 1,
            "one raise at a time: {counts:?}"
        );
    }
    for pair in state.history.windows(2) {
        let apart = pair[1].at - pair[0].at;
        assert!(apart >= COOLDOWN.as_millis() as u64, "raises {apart} ms apart: {state:?}");
    }
    assert_eq!(state.last_changed, state.history.last().unwrap().at);

    let mut written: Vec<FileAccess> = (0..32u64)
        .flat_map(|writer| (0..40).map(move |n| writer * 1_000 + n))
        .map(|n| access(&path, n))
        .collect();
    written.sort();
    let read = listing(&db, &path).await;
    assert_eq!(read.len(), written.len(), "every item once");
    assert_eq!(read, written, "in (at, id) order");
    let counted = db.count(&FileAccess::query_by_file(&path)).await.unwrap();
    assert_eq!(counted, written.len() as u64, "a count reads every shard the count has used");
    let used = shards_used(&db, &path).await;
    assert!(used.len() >= 2 && used.len() <= state.count as usize, "{used:?} of {}", state.count);
}

#[tokio::test]
async fn lowering_the_count_keeps_retired_shards_readable() {
    let db = plain_db().await;
    let path = unique("/logs/lowered");
    let query = || FileAccess::query_by_file(&path);
    db.put(&access(&path, 0)).await.unwrap();
    assert_eq!(db.shard_state(&query()).await.unwrap().count, 1);
    assert_eq!(db.set_shard_count(&query(), 8).await.unwrap().count, 8);
    let early: Vec<FileAccess> = (1..200).map(|n| access(&path, n)).collect();
    db.batch_put(&early).await.unwrap();
    assert!(shards_used(&db, &path).await.len() > 4, "writes spread over the 8 shards");

    let lowered = db.set_shard_count(&query(), 2).await.unwrap();
    assert_eq!((lowered.count, lowered.readable()), (2, 8));
    let late: Vec<FileAccess> = (200..260).map(|n| access(&path, n)).collect();
    for item in &late {
        db.put(item).await.unwrap();
    }
    let raised = db.raise_shard_count(&query()).await.unwrap();
    assert_eq!(raised.count, 3, "a manual raise ignores the cooldown");

    let read = listing(&db, &path).await;
    assert_eq!(read.len(), 260, "items of retired shards are still read");
    assert!(read.windows(2).all(|pair| pair[0] < pair[1]));
    let page = db.page(&query().page_size(100), None).await.unwrap();
    assert_eq!(page.items, read[..100]);
}

#[tokio::test]
async fn late_writes_use_only_the_current_shards() {
    let db = plain_db().await;
    let path = unique("/logs/late");
    let query = || FileAccess::query_by_file(&path);
    db.put(&access(&path, 0)).await.unwrap();
    db.set_shard_count(&query(), 2).await.unwrap();
    let writes: Vec<FileAccess> = (1..80).map(|n| access(&path, n)).collect();
    db.batch_put(&writes).await.unwrap();
    let used = shards_used(&db, &path).await;
    assert!(used.iter().all(|shard| shard == "0" || shard == "1"), "{used:?}");
}

#[tokio::test]
async fn bad_configuration_and_bad_counts_are_typed_errors() {
    let db = plain_db().await;
    let path = unique("/logs/errors");
    let item = access(&path, 1);

    let unconfigured = crate::db().await;
    assert!(matches!(unconfigured.put(&item).await, Err(Error::ShardMetadataNotConfigured)));
    let missing = crate::db().await.with_shard_metadata(ShardMetadata::new("NoSuchShardMetadata"));
    let error = missing.put(&item).await.unwrap_err();
    assert!(
        matches!(&error, Error::ShardMetadataMissing { table } if table == "NoSuchShardMetadata"),
        "{error}"
    );
    assert!(matches!(
        dynashard::item::to_item(&item),
        Err(Error::DynamicShardsUnresolved { index: "ByFile", .. })
    ));

    let query = FileAccess::query_by_file(&path);
    for count in [0, 17] {
        let error = db.set_shard_count(&query, count).await.unwrap_err();
        assert!(matches!(error, Error::InvalidShardCount { max: 16, .. }), "{error}");
    }

    // A stored count outside 1..=max is refused, not used.
    for stored in ["0", "99"] {
        let path = unique("/logs/corrupt");
        db.client()
            .put_item()
            .table_name(METADATA)
            .item("partition", AttributeValue::S(format!("DynamicShardTests/ByFile/file#{path}")))
            .item("shards", AttributeValue::N(stored.into()))
            .item("last_changed", AttributeValue::N("0".into()))
            .send()
            .await
            .unwrap();
        let error = db.put(&access(&path, 1)).await.unwrap_err();
        assert!(matches!(error, Error::InvalidShardCount { .. }), "{stored}: {error}");
    }

    db.put(&item).await.unwrap();
    let update =
        db.update(FileAccess::key(&item.id).unwrap()).set(FileAccess::fields().path, "/elsewhere").await;
    assert!(matches!(update, Err(Error::IndexKeyIncomplete { index: "ByFile", .. })), "{update:?}");
}

#[tokio::test]
async fn pages_of_a_dynamic_count_ask_each_shard_about_once() {
    let db = plain_db().await;
    let path = unique("/logs/paged");
    let query = || FileAccess::query_by_file(&path).page_size(50);
    db.put(&access(&path, 0)).await.unwrap();
    db.set_shard_count(&query(), 8).await.unwrap();
    let writes: Vec<FileAccess> = (1..800).map(|n| access(&path, n)).collect();
    db.batch_put(&writes).await.unwrap();
    let read = listing(&db, &path).await;
    assert_eq!(read.len(), 800);

    let (mut cursor, mut paged) = (None::<String>, Vec::new());
    loop {
        let page = db.page(&query(), cursor.as_deref()).await.unwrap();
        // Eight shards: each asked about once a page, a few again when they run out.
        assert!(page.stats.requests <= 8 + 5, "{:?}", page.stats);
        assert!(page.stats.items_read <= 50 + 8 * 16, "{:?}", page.stats);
        paged.extend(page.items);
        assert!(paged.len() <= read.len(), "the pages repeat items");
        match page.cursor {
            Some(next) => {
                assert!(next.len() <= 512, "a cursor of {} characters", next.len());
                cursor = Some(next);
            }
            None => break,
        }
    }
    assert_eq!(paged, read, "page after page, in time order");
}

thread_local! {
    /// How many times a [`Counted`] was serialized on this thread.
    static SERIALIZED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A string that counts its serializations.
#[derive(Deserialize, Debug, Clone)]
struct Counted(String);

impl Serialize for Counted {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        SERIALIZED.with(|count| count.set(count.get() + 1));
        serializer.serialize_str(&self.0)
    }
}

#[derive(Entity, Serialize, Deserialize, Debug, Clone)]
#[entity(table = Audit, pk = "counted#{id}", sk = "access")]
#[gsi(ByFile(pk = "file#{path}", sk = "{at}#{id}"))]
#[shard(ByFile(dynamic, max = 16))]
struct CountedAccess {
    at: u64,
    id: String,
    path: String,
    note: Counted,
}

#[tokio::test]
async fn a_write_serializes_its_entity_once_whatever_it_resolves_or_retries() {
    plain_db().await;
    let faults =
        FaultInjector::new(8).throttling(0.5).only(&["PutItem", "BatchWriteItem"]).without_sdk_retries();
    let endpoint = dynashard_local::shared_endpoint().await.unwrap();
    let db = Db::new(faults.client_for_endpoint(&endpoint))
        .with_retry_policy(RetryPolicy::new(60, Duration::from_millis(1), Duration::from_millis(5)))
        .with_shard_metadata(shards());
    let path = unique("/counted.txt");
    let counted = |n: u64| CountedAccess {
        at: n,
        id: format!("{path}/{n}"),
        path: path.clone(),
        note: Counted(format!("note {n}")),
    };
    let serialized = || SERIALIZED.with(std::cell::Cell::get);

    // Each put finds the count missing from a new `Db`'s cache, reads it, and is throttled half
    // the time: its body is still serialized once.
    let before = serialized();
    for n in 0..10 {
        Db::new(faults.client_for_endpoint(&endpoint))
            .with_retry_policy(RetryPolicy::new(60, Duration::from_millis(1), Duration::from_millis(5)))
            .with_shard_metadata(shards())
            .put(&counted(n))
            .await
            .unwrap();
    }
    assert!(faults.stats().operation("PutItem").throttled > 0, "throttling was injected");
    assert_eq!(serialized() - before, 10, "one serialization a put");

    let before = serialized();
    let batch: Vec<CountedAccess> = (10..40).map(counted).collect();
    db.batch_put(&batch).await.unwrap();
    assert_eq!(serialized() - before, 30, "one serialization a batch write");

    let before = serialized();
    let entity = counted(40);
    db.resolve_shards(&entity).await.unwrap();
    db.transaction().put(&entity).await.unwrap();
    assert_eq!(serialized() - before, 2, "one to resolve the shards, one to write");
    let read: Vec<CountedAccess> =
        db.stream(CountedAccess::query_by_file(&path)).try_collect().await.unwrap();
    assert_eq!(read.len(), 41, "every write arrived");
}

#[tokio::test]
async fn throttles_the_sdk_retried_away_grow_the_count_too() {
    plain_db().await;
    // Key-range throttling of the index, absorbed by the SDK's own retries: most puts land on a
    // later attempt and return no error, yet their key is as hot as if they had failed.
    let hot_index =
        dynashard::throttling::ThrottleKind::parse("IndexWriteKeyRangeThroughputExceeded").expect("a reason");
    let arn = "arn:aws:dynamodb:ddblocal:000000000000:table/DynamicShardTests/index/ByFile";
    let faults = FaultInjector::new(8)
        .throttling(0.3)
        .throttling_reasons([dynashard::ThrottlingReason::new(hot_index, arn)])
        .only(&["PutItem"]);
    let endpoint = dynashard_local::shared_endpoint().await.unwrap();
    let db = Db::new(faults.client_for_endpoint(&endpoint))
        .with_retry_policy(RetryPolicy::new(60, Duration::from_millis(1), Duration::from_millis(20)))
        .with_shard_metadata(shards());
    let path = unique("/shared/retried.txt");
    let (mut failed_attempts, mut puts) = (0, 0);
    while puts < 30 {
        use dynashard::consumption::Measure;
        let put = db.put(&access(&path, puts)).measured().await;
        put.output.unwrap();
        // A put whose every SDK attempt was throttled fails to dynashard's loop, which grows
        // the count after it: count those apart.
        failed_attempts += put.retries;
        puts += 1;
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let throttled = faults.stats().operation("PutItem").throttled;
    let state = db.shard_state(&FileAccess::query_by_file(&path)).await.unwrap();
    eprintln!(
        "{puts} puts, {throttled} attempts throttled, {failed_attempts} failed to dynashard: {state:?}"
    );
    assert!(throttled > 5, "throttling was injected");
    let raises = state.history.len() - 1;
    assert!(
        raises >= 3 && raises > failed_attempts as usize,
        "throttles the SDK retried raised the count: {raises} raises, {failed_attempts} puts that failed"
    );
    assert_eq!(listing(&db, &path).await.len() as u64, puts, "every item once");
}
