//! The change feed: a consumer killed while it handles a page leaves its shard leased; another
//! process takes the lease over once it expires and resumes from the last checkpoint, so that
//! every change is handed over (at least once), in order, and nothing is skipped.

use crate::unique;
use dynashard::changes::{Change, ChangeFeed, ChangePage};
use dynashard::metadata::ShardMetadata;
use dynashard::{Entity, Error, Table};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Table)]
#[table(
    name = "ChangeFeedTests",
    pk = "pk",
    sk = "sk",
    shard_metadata = "ChangeFeedMetadata",
    stream = "new_and_old_images"
)]
struct Ledger;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[entity(table = Ledger, pk = "account#{account}", sk = "entry#{number}")]
struct Entry {
    account: String,
    number: u32,
}

async fn feed(consumer: &str) -> ChangeFeed {
    let db = crate::db().await.with_shard_metadata(ShardMetadata::new("ChangeFeedMetadata"));
    db.create_table::<Ledger>().await.unwrap();
    db.create_shard_metadata_table().await.unwrap();
    db.change_feed::<Ledger>(consumer).unwrap().lease(Duration::from_secs(1)).page_size(10)
}

/// The numbers of `account`'s entries in `page`, in order.
fn numbers(page: &ChangePage, account: &str) -> Vec<u32> {
    page.records
        .iter()
        .filter_map(|record| match record.decode::<Entry>() {
            Ok(Change::Item(change)) => {
                change.new.filter(|entry| entry.account == account).map(|entry| entry.number)
            }
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_killed_consumer_is_taken_over_and_nothing_is_skipped() {
    let consumer = unique("ledger-feed");
    let first = feed(&consumer).await;
    first.begin().await.unwrap();
    let account = unique("account");
    let writer = crate::db().await;
    for number in 0..95 {
        writer.put(&Entry { account: account.clone(), number }).await.unwrap();
    }

    // The first process handles three pages, then dies in the middle of the fourth.
    let handled = Arc::new(Mutex::new(Vec::<u32>::new()));
    let (dying, killed) = tokio::sync::oneshot::channel::<()>();
    let dying = Arc::new(Mutex::new(Some(dying)));
    let run = {
        let (first, handled, account) = (first.clone(), handled.clone(), account.clone());
        tokio::spawn(async move {
            first
                .catch_up(|page| {
                    let (handled, account, dying) = (handled.clone(), account.clone(), dying.clone());
                    async move {
                        if handled.lock().unwrap().len() >= 30 {
                            if let Some(dying) = dying.lock().unwrap().take() {
                                let _ = dying.send(());
                            }
                            std::future::pending::<()>().await; // killed here: never returns
                        }
                        handled.lock().unwrap().extend(numbers(&page, &account));
                        Ok(())
                    }
                })
                .await
        })
    };
    killed.await.unwrap();
    run.abort();
    let before = handled.lock().unwrap().clone();
    assert_eq!(before, (0..30).collect::<Vec<_>>(), "three pages of ten, in order");

    // Another process finds the shard leased, waits for the lease to expire, takes it over and
    // resumes after the last checkpoint.
    let second = feed(&consumer).await;
    let resumed = Arc::new(Mutex::new(Vec::<u32>::new()));
    let started = Instant::now();
    loop {
        let resumed = resumed.clone();
        let account = account.clone();
        let pass = second
            .catch_up(move |page| {
                let (resumed, account) = (resumed.clone(), account.clone());
                async move {
                    resumed.lock().unwrap().extend(numbers(&page, &account));
                    Ok::<_, Error>(())
                }
            })
            .await
            .unwrap();
        if pass.caught_up {
            break;
        }
        // Bounded only so that a takeover that never comes fails: generous for a loaded machine.
        assert!(started.elapsed() < Duration::from_secs(120), "the lease was never taken over");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let took_over = started.elapsed();
    assert!(took_over >= Duration::from_secs(1), "not before the lease expired: {took_over:?}");
    let resumed = resumed.lock().unwrap().clone();
    assert_eq!(resumed, (30..95).collect::<Vec<_>>(), "from the checkpoint on, nothing skipped, in order");

    // Read to its end, the feed hands over nothing more, and only what is written next.
    let again = second.catch_up(|_| async { Ok(()) }).await.unwrap();
    assert_eq!(again.records, 0);
    writer.put(&Entry { account: account.clone(), number: 95 }).await.unwrap();
    let next = Arc::new(Mutex::new(Vec::new()));
    let sink = next.clone();
    second
        .catch_up(move |page| {
            let (sink, account) = (sink.clone(), account.clone());
            async move {
                sink.lock().unwrap().extend(numbers(&page, &account));
                Ok(())
            }
        })
        .await
        .unwrap();
    assert_eq!(*next.lock().unwrap(), [95]);
}

#[tokio::test]
async fn a_table_without_a_stream_is_refused_with_what_to_do() {
    #[derive(Table)]
    #[table(name = "ChangeFeedNoStream", pk = "pk", sk = "sk", shard_metadata = "ChangeFeedMetadata")]
    struct Plain;
    let db = crate::db().await.with_shard_metadata(ShardMetadata::new("ChangeFeedMetadata"));
    db.create_table::<Plain>().await.unwrap();
    let refused = db.change_feed::<Plain>("any").unwrap().begin().await.unwrap_err();
    assert!(
        matches!(&refused, Error::StreamRequired { table } if table == "ChangeFeedNoStream"),
        "{refused:?}"
    );
    assert!(
        refused.to_string().contains("stream = \\\"new_image\\\"")
            || refused.to_string().contains("stream = \"new_image\"")
    );
    assert!(
        matches!(db.enable_stream::<Plain>().await, Err(Error::StreamRequired { .. })),
        "it declares none"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_feed_outlasts_throttling_and_server_errors() {
    use dynashard_local::faults::FaultInjector;
    let own = crate::own().await;
    let clean = own.db().with_shard_metadata(ShardMetadata::new("ChangeFeedMetadata"));
    clean.create_table::<Ledger>().await.unwrap();
    clean.create_shard_metadata_table().await.unwrap();
    let consumer = unique("faulty");
    clean.change_feed::<Ledger>(consumer.as_str()).unwrap().begin().await.unwrap();
    let account = unique("account");
    for number in 0..100 {
        clean.put(&Entry { account: account.clone(), number }).await.unwrap();
    }
    // Every request to the table and its metadata fails now and then, and the SDK retries none.
    let faults = FaultInjector::new(11).throttling(0.2).server_errors(0.1).without_sdk_retries();
    let faulty = dynashard::Db::new(faults.client_for_endpoint(own.endpoint()))
        .with_streams_client(dynashard::client::streams_client_for_endpoint(own.endpoint()))
        .with_shard_metadata(ShardMetadata::new("ChangeFeedMetadata"));
    let feed =
        faulty.change_feed::<Ledger>(consumer.as_str()).unwrap().lease(Duration::from_secs(1)).page_size(10);
    let handled = Arc::new(Mutex::new(Vec::<u32>::new()));
    let all = Arc::new(tokio::sync::Notify::new());
    let handler = |page: ChangePage| {
        let (handled, all, account) = (handled.clone(), all.clone(), account.clone());
        async move {
            let mut handled = handled.lock().unwrap();
            handled.extend(numbers(&page, &account));
            if handled.iter().collect::<std::collections::BTreeSet<_>>().len() == 100 {
                all.notify_one();
            }
            Ok(())
        }
    };
    let running = feed.run(handler, Duration::from_millis(20), all.notified());
    let ran = tokio::time::timeout(Duration::from_secs(120), running).await;
    assert!(matches!(ran, Ok(Ok(()))), "the feed ended before it handed everything over: {ran:?}");
    let injected = faults.stats().total();
    assert!(injected.throttled + injected.server_errors > 10, "faults were injected: {injected:?}");
    // At least once, in order: a page handed over again repeats what came before it.
    let mut first_seen = Vec::new();
    for number in handled.lock().unwrap().iter() {
        if !first_seen.contains(number) {
            first_seen.push(*number);
        }
    }
    assert_eq!(first_seen, (0..100).collect::<Vec<_>>());
}

/// Turns the stream of `table` off, then on again (a new stream, under a new ARN).
async fn replace_stream(db: &dynashard::Db, table: &str) {
    use aws_sdk_dynamodb::types::{StreamSpecification, StreamViewType};
    for on in [false, true] {
        let mut stream = StreamSpecification::builder().stream_enabled(on);
        if on {
            stream = stream.stream_view_type(StreamViewType::NewAndOldImages);
        }
        let stream = stream.build().unwrap();
        db.client().update_table().table_name(table).stream_specification(stream).send().await.unwrap();
        // Until the table says so (DynamoDB takes a while; the local backends do it at once).
        for _ in 0..100 {
            let described = db.client().describe_table().table_name(table).send().await.unwrap();
            let enabled = described.table().and_then(|table| table.stream_specification());
            if enabled.is_some_and(|spec| spec.stream_enabled()) == on {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

#[tokio::test]
async fn a_feed_whose_stream_was_replaced_fails_with_a_gap() {
    if !crate::backend_has(
        "a replaced stream's shards closed (the embedded one serves the old stream as the new)",
    ) {
        return;
    }
    // A table of its own: the stream is replaced under it.
    let table = unique("ChangeFeedReplaced");
    let db = crate::db()
        .await
        .with_shard_metadata(ShardMetadata::new("ChangeFeedMetadata"))
        .with_table_name::<Ledger>(&table)
        .unwrap();
    db.create_table::<Ledger>().await.unwrap();
    db.create_shard_metadata_table().await.unwrap();
    let feed = db.change_feed::<Ledger>(&unique("replaced")).unwrap().lease(Duration::from_secs(1));
    feed.begin().await.unwrap();
    let account = unique("account");
    db.put(&Entry { account: account.clone(), number: 0 }).await.unwrap();
    let pass = feed.catch_up(|_| async { Ok(()) }).await.unwrap();
    assert_eq!(pass.records, 1);

    // The records written while the stream was off are in neither stream: the feed cannot go
    // on as if it had read them, on the old stream or the new one.
    replace_stream(&db, &table).await;
    db.put(&Entry { account, number: 1 }).await.unwrap();
    let outcome = feed.catch_up(|_| async { Ok(()) }).await;
    assert!(matches!(outcome, Err(Error::ChangeFeedGap { .. })), "{outcome:?}");
    db.delete_table::<Ledger>().await.unwrap();
}
