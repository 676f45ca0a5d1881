//! A change feed on a stream whose shards split while it is read. No local DynamoDB splits a
//! stream (each keeps one shard), so the partition-limit emulator serves the stream split as
//! DynamoDB splits it: the open shard closes at its last record, and its children hold the later
//! records, each item's in one child; then the children split again. Three workers read it
//! while items are rewritten: every version reaches the handler exactly once, and each item's
//! versions in the order they were written, however the records of one item moved from a
//! parent to a child.

use dynashard::changes::{Change, ChangeFeed, ChangePage};
use dynashard::metadata::ShardMetadata;
use dynashard::{Db, Entity, Table};
use dynashard_local::emulator::{Emulator, PartitionLimits};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const TABLE: &str = "StreamLineageTests";
const METADATA: &str = "StreamLineageMetadata";
const ITEMS: u32 = 24;
/// Versions written before the first split, between the splits, and after the second.
const ROUNDS: [std::ops::RangeInclusive<u32>; 3] = [1..=3, 4..=6, 7..=9];
const VERSIONS: u32 = 9;

#[derive(Table)]
#[table(
    name = "StreamLineageTests",
    pk = "pk",
    sk = "sk",
    shard_metadata = "StreamLineageMetadata",
    stream = "new_image"
)]
struct Ledger;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[entity(table = Ledger, pk = "item#{item}", sk = "revision")]
struct Revision {
    item: u32,
    version: u32,
}

/// What the handlers saw, in the order they saw it: (shard, item, version).
type Seen = Arc<Mutex<Vec<(String, u32, u32)>>>;

fn revisions(page: &ChangePage) -> Vec<Revision> {
    let decoded = page.records.iter().map(|record| record.decode::<Revision>());
    decoded
        .filter_map(|change| if let Ok(Change::Item(change)) = change { change.new } else { None })
        .collect()
}

async fn write(db: &Db, versions: std::ops::RangeInclusive<u32>) {
    for version in versions {
        for item in 0..ITEMS {
            db.put(&Revision { item, version }).await.expect("a put");
        }
    }
}

/// Reads `feed` until `versions` versions of every item were seen; counts its passes in `passes`.
async fn read(feed: ChangeFeed, seen: Seen, passes: Arc<AtomicU64>, versions: u32) {
    loop {
        passes.fetch_add(1, Ordering::Relaxed);
        if seen.lock().unwrap().len() >= (ITEMS * versions) as usize {
            return;
        }
        let handler = |page: ChangePage| {
            let seen = seen.clone();
            async move {
                let mut seen = seen.lock().unwrap();
                seen.extend(
                    revisions(&page)
                        .into_iter()
                        .map(|revision| (page.shard.clone(), revision.item, revision.version)),
                );
                Ok(())
            }
        };
        feed.catch_up(handler).await.expect("a pass");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_feed_reads_a_splitting_stream_each_version_once_and_each_item_in_order() {
    let own = crate::own().await;
    let writer = own.db().with_shard_metadata(ShardMetadata::new(METADATA));
    writer.create_table::<Ledger>().await.expect("create the table");
    writer.create_shard_metadata_table().await.expect("create the metadata table");
    let emulator = Emulator::start(own.endpoint(), PartitionLimits::dynamodb()).expect("the emulator");
    // Every Streams request the readers send, counted by operation.
    let requests = dynashard_local::faults::FaultInjector::new(0);
    let streams = dynashard::client::streams_client_for_endpoint(emulator.endpoint());
    let streams = streams.config().to_builder().interceptor(requests.interceptor()).build();
    let reader = Db::new(dynashard::client_for_endpoint(own.endpoint()))
        .with_streams_client(aws_sdk_dynamodbstreams::Client::from_conf(streams))
        .with_shard_metadata(ShardMetadata::new(METADATA));
    let feed = |worker: &str| {
        let feed = reader.change_feed::<Ledger>("lineage").expect("a feed");
        feed.lease(Duration::from_secs(2)).page_size(10).worker(worker)
    };
    feed("a").begin().await.expect("the feed begins");
    write(&writer, ROUNDS[0].clone()).await;
    emulator.split_stream(TABLE, 4);
    let (seen, passes): (Seen, Arc<AtomicU64>) = Default::default();
    let workers: Vec<_> = ["a", "b", "c"]
        .iter()
        .map(|worker| tokio::spawn(read(feed(worker), seen.clone(), passes.clone(), VERSIONS)))
        .collect();
    write(&writer, ROUNDS[1].clone()).await;
    emulator.split_stream(TABLE, 2);
    write(&writer, ROUNDS[2].clone()).await;
    for worker in workers {
        tokio::time::timeout(Duration::from_secs(120), worker)
            .await
            .expect("the workers read every version within two minutes")
            .expect("a worker");
    }

    // The stream as the emulator lists it: one parent, four children, eight grandchildren.
    let streams = dynashard::client::streams_client_for_endpoint(emulator.endpoint());
    let arn = writer.client().describe_table().table_name(TABLE).send().await.expect("the table");
    let arn = arn.table.and_then(|table| table.latest_stream_arn).expect("a stream");
    let described = streams.describe_stream().stream_arn(arn).send().await.expect("the stream");
    let shards =
        described.stream_description.map(|stream| stream.shards.unwrap_or_default()).unwrap_or_default();
    let closed = shards.iter().filter(|shard| {
        shard.sequence_number_range().and_then(|range| range.ending_sequence_number()).is_some()
    });
    assert_eq!((shards.len(), closed.count()), (13, 5), "{shards:#?}");

    // The stream is listed when the feed begins, at each worker's first pass, and again only
    // where a pass could miss a shard without a new listing: a shard in it ended (5 did), or
    // another worker's listing recorded shards this one lacks (2 splits).
    let (listed, passes) =
        (requests.stats().operation("DescribeStream").attempts, passes.load(Ordering::Relaxed));
    assert!(listed <= 1 + 3 * (1 + 5 + 2), "{listed} listings in {passes} passes");

    let seen = seen.lock().unwrap();
    let shards_read: BTreeSet<&str> = seen.iter().map(|(shard, _, _)| shard.as_str()).collect();
    assert!(shards_read.len() > 5, "records came from the children and the grandchildren: {shards_read:?}");
    let mut by_item: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for (_, item, version) in seen.iter() {
        by_item.entry(*item).or_default().push(*version);
    }
    let written: Vec<u32> = (1..=VERSIONS).collect();
    for (item, versions) in by_item {
        assert_eq!(versions, written, "item {item}: each version once, in the order written");
    }
}

/// The workers of a feed in one process (one `Db`) that find a split at once list the stream
/// once between them, not once each: a pass that finds the kept listing wanting (its shard
/// ended) waits for the listing under way and plans from it. Each listing takes a while here
/// (a round trip of 100 ms a request), and 16 workers pass every 20 ms.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_workers_of_one_process_list_a_split_stream_once_between_them() {
    let own = crate::own().await;
    let writer = own.db().with_shard_metadata(ShardMetadata::new(METADATA));
    writer.create_table::<Ledger>().await.expect("create the table");
    writer.create_shard_metadata_table().await.expect("create the metadata table");
    let limits = PartitionLimits::dynamodb().round_trip(Duration::from_millis(100));
    let emulator = Emulator::start(own.endpoint(), limits).expect("the emulator");
    let requests = dynashard_local::faults::FaultInjector::new(0);
    let streams = dynashard::client::streams_client_for_endpoint(emulator.endpoint());
    let streams = streams.config().to_builder().interceptor(requests.interceptor()).build();
    let reader = Db::new(dynashard::client_for_endpoint(own.endpoint()))
        .with_streams_client(aws_sdk_dynamodbstreams::Client::from_conf(streams))
        .with_shard_metadata(ShardMetadata::new(METADATA));
    let feed = |worker: usize| {
        let feed = reader.change_feed::<Ledger>("one listing").expect("a feed");
        feed.concurrency(1).worker(format!("w{worker}"))
    };
    feed(0).begin().await.expect("the feed begins");
    write(&writer, ROUNDS[0].clone()).await;
    emulator.split_stream(TABLE, 16);
    let began = requests.stats().operation("DescribeStream").attempts;
    let (seen, passes): (Seen, Arc<AtomicU64>) = Default::default();
    let workers: Vec<_> =
        (0..16).map(|worker| tokio::spawn(read(feed(worker), seen.clone(), passes.clone(), 6))).collect();
    write(&writer, ROUNDS[1].clone()).await;
    for worker in workers {
        tokio::time::timeout(Duration::from_secs(120), worker)
            .await
            .expect("the workers read every version within two minutes")
            .expect("a worker");
    }
    // The parent ended once: one listing, and one more at most for a pass that planned from
    // the kept listing while the first was under way and found it wanting after.
    let listed = requests.stats().operation("DescribeStream").attempts - began;
    let passes = passes.load(Ordering::Relaxed);
    assert!(listed <= 2, "{listed} listings by 16 workers in {passes} passes after the split");
    assert!(passes > 32, "the workers passed while the listing was under way: {passes} passes");
}

/// A child of a split holds a share of the endpoint's records: its pages are filled to the limit
/// asked for from as many of the endpoint's pages as that takes, as DynamoDB fills a page from
/// the shard's own records, and its records are its own, each in one child.
#[tokio::test]
async fn a_child_page_holds_as_many_of_its_records_as_asked() {
    let own = crate::own().await;
    let writer = own.db();
    writer.create_table::<Ledger>().await.expect("create the table");
    let emulator = Emulator::start(own.endpoint(), PartitionLimits::dynamodb()).expect("the emulator");
    let streams = dynashard::client::streams_client_for_endpoint(emulator.endpoint());
    let arn = writer.client().describe_table().table_name(TABLE).send().await.expect("the table");
    let arn = arn.table.and_then(|table| table.latest_stream_arn).expect("a stream");
    let children = || async {
        let described = streams.describe_stream().stream_arn(&arn).send().await.expect("the stream");
        let shards = described.stream_description.and_then(|stream| stream.shards).unwrap_or_default();
        let ids = shards.iter().filter(|shard| shard.parent_shard_id().is_some());
        ids.filter_map(|shard| shard.shard_id().map(str::to_owned)).collect::<Vec<_>>()
    };
    emulator.split_stream(TABLE, 4);
    assert_eq!(children().await.len(), 4, "the split is made at the first Streams request");
    let items: Vec<Revision> = (0..400).map(|item| Revision { item, version: 1 }).collect();
    writer.batch_put(&items).await.expect("the items");

    let mut read = Vec::new();
    for child in children().await {
        let iterator = streams.get_shard_iterator().stream_arn(&arn).shard_id(&child);
        let iterator =
            iterator.shard_iterator_type(aws_sdk_dynamodbstreams::types::ShardIteratorType::TrimHorizon);
        let mut at = iterator.send().await.expect("an iterator").shard_iterator;
        let mut pages = Vec::new();
        while let Some(current) = at.take() {
            let page = streams.get_records().shard_iterator(current).limit(30).send().await.expect("a page");
            if page.records().is_empty() {
                break;
            }
            pages.push(page.records().len());
            read.extend(
                page.records().iter().filter_map(|record| record.dynamodb()?.sequence_number.clone()),
            );
            at = page.next_shard_iterator;
        }
        // Read again after its last record: nothing more, however large the page asked.
        let last = read.last().cloned().expect("a record");
        let again = streams.get_shard_iterator().stream_arn(&arn).shard_id(&child).sequence_number(&last);
        let again =
            again.shard_iterator_type(aws_sdk_dynamodbstreams::types::ShardIteratorType::AfterSequenceNumber);
        let again = again.send().await.expect("an iterator").shard_iterator.expect("open");
        let again = streams.get_records().shard_iterator(again).limit(1000).send().await.expect("a page");
        assert!(again.records().is_empty(), "{} records after the last", again.records().len());
        let held: usize = pages.iter().sum();
        assert!(held > 60 && held < 140, "a child holds about a quarter of the items: {pages:?}");
        let (last, full) = pages.split_last().expect("pages");
        assert!(
            full.iter().all(|records| *records == 30) && *last <= 30,
            "pages filled to the limit: {pages:?}"
        );
    }
    read.sort();
    read.dedup();
    assert_eq!(read.len(), 400, "every record in one child");
}

/// DynamoDB Streams describes a stream at most ten times a second, and so does the emulator:
/// past that, `LimitExceededException` (a throttle, which the SDK retries), counted among the
/// requests it throttled.
#[tokio::test]
async fn a_stream_is_described_at_most_ten_times_a_second() {
    use aws_sdk_dynamodb::error::ProvideErrorMetadata;
    let own = crate::own().await;
    let writer = own.db();
    writer.create_table::<Ledger>().await.expect("create the table");
    let emulator = Emulator::start(own.endpoint(), PartitionLimits::dynamodb()).expect("the emulator");
    let streams = dynashard::client::streams_client_for_endpoint(emulator.endpoint());
    let once = aws_sdk_dynamodbstreams::config::retry::RetryConfig::disabled();
    let streams =
        aws_sdk_dynamodbstreams::Client::from_conf(streams.config().to_builder().retry_config(once).build());
    let arn = writer.client().describe_table().table_name(TABLE).send().await.expect("the table");
    let arn = arn.table.and_then(|table| table.latest_stream_arn).expect("a stream");
    let calls = (0..40).map(|_| streams.describe_stream().stream_arn(&arn).send());
    let answers = futures::future::join_all(calls).await;
    let refused: Vec<_> = answers.iter().filter_map(|answer| answer.as_ref().err()).collect();
    assert!(refused.len() >= 25, "{} of 40 at once refused", refused.len());
    for error in &refused {
        assert_eq!(error.code(), Some("LimitExceededException"), "{error:?}");
    }
    assert_eq!(emulator.usage().throttled_requests(), refused.len() as u64);
    tokio::time::sleep(Duration::from_millis(300)).await;
    streams.describe_stream().stream_arn(&arn).send().await.expect("described again once it refilled");
}
