//! Stream handlers as AWS Lambda runs them, through the event source mapping played in process
//! (`dynashard_local::lambda`): the documented event JSON, partial batch failures, function
//! errors after work was done, and bisection. A handler that keeps each item's position applies
//! each record once and never an older one after a newer; a resharding's catch-up run from a
//! Lambda function places what writers that bypass dynashard left out.

use crate::{own, unique};
use aws_lambda_events::event::dynamodb::Event;
use aws_lambda_events::event::streams::DynamoDbEventResponse;
use aws_sdk_dynamodb::types::AttributeValue;
use dynashard::changes::{Change, ChangeRecord, StreamBatch};
use dynashard::metadata::ShardMetadata;
use dynashard::reshard::Layout;
use dynashard::{Db, Entity, Error, Table};
use dynashard_local::emulator::{Emulator, PartitionLimits};
use dynashard_local::lambda::EventSourceMapping;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

const METADATA: &str = "LambdaMetadata";
const ITEMS: u32 = 20;
const VERSIONS: u32 = 12;

#[derive(Table)]
#[table(
    name = "LambdaTests",
    pk = "pk",
    sk = "sk",
    shard_metadata = "LambdaMetadata",
    stream = "new_and_old_images"
)]
#[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
#[gsi(ByTitleNext(pk = "next_pk", sk = "next_sk"))]
struct Ledger;

/// An item of the streamed table, rewritten version after version.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[entity(table = Ledger, pk = "item#{item}", sk = "revision")]
struct Revision {
    item: u32,
    version: u32,
}

/// What the handler makes of it downstream, with the position of the record it applied.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[entity(table = Ledger, pk = "view#{item}", sk = "view")]
struct View {
    item: u32,
    version: u32,
    position: String,
}

/// An entity whose index a resharding moves.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[entity(table = Ledger, pk = "{shelf}", sk = "record#{title}")]
#[gsi(ByTitle(pk = "titles#{shelf}", sk = "{title}"))]
#[shard(ByTitle(hash = 16, by = title))]
struct Record {
    shelf: String,
    title: String,
}

async fn ledger(db: Db) -> (Db, String) {
    let table = unique("Lambda");
    let db = db
        .with_table_name::<Ledger>(&table)
        .expect("a valid table name")
        .with_shard_metadata(ShardMetadata::new(METADATA));
    db.create_table::<Ledger>().await.expect("create the ledger");
    db.create_shard_metadata_table().await.expect("create the metadata table");
    (db, table)
}

/// The handler of one record: its item's view, written unless the view holds this record's
/// position or a later one. Returns the revision it wrote, if it did.
async fn apply(db: &Db, record: &ChangeRecord) -> Result<Option<Revision>, Error> {
    let Change::Item(change) = record.decode::<Revision>()? else { return Ok(None) };
    let Some(revision) = change.new else { return Ok(None) };
    let position = record.position()?;
    let view =
        View { item: revision.item, version: revision.version, position: position.as_str().to_owned() };
    match db.put(&view).condition(position.is_after(View::fields().position)).await {
        Ok(_) => Ok(Some(revision)),
        Err(Error::ConditionFailed { .. }) => Ok(None),
        Err(other) => Err(other),
    }
}

#[tokio::test]
async fn retries_partial_failures_and_bisection_apply_each_record_once_in_order() {
    let own = own().await;
    let (db, table) = ledger(own.db()).await;
    for version in 1..=VERSIONS {
        for item in 0..ITEMS {
            db.put(&Revision { item, version }).await.expect("a write");
        }
    }
    // Each item's versions as its view took them, in the order they landed.
    let landed: Arc<Mutex<BTreeMap<u32, Vec<u32>>>> = Arc::default();
    let (handled, invocations) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let mut mapping =
        EventSourceMapping::at(own.endpoint(), &table).batch_size(10).bisect_batch_on_function_error(true);
    let delivery = mapping
        .deliver(|event: Event| {
            let (db, landed, handled) = (db.clone(), landed.clone(), handled.clone());
            let invocation = invocations.fetch_add(1, Ordering::Relaxed) + 1;
            async move {
                let outcome = StreamBatch::from_event(event)
                    .handle(|record| {
                        let (db, landed) = (&db, &landed);
                        // Every ninth record a handler takes fails downstream.
                        let refused = handled.fetch_add(1, Ordering::Relaxed) % 9 == 8;
                        async move {
                            if refused {
                                return Err::<(), BoxError>("downstream refused".into());
                            }
                            if let Some(revision) = apply(db, &record).await? {
                                let mut landed = landed.lock().expect("not poisoned");
                                landed.entry(revision.item).or_default().push(revision.version);
                            }
                            Ok(())
                        }
                    })
                    .await;
                // Every fourth invocation times out after its work was done: Lambda delivers
                // the batch again, split in two, older records of an item after newer ones.
                if invocation % 4 == 0 {
                    return Err::<DynamoDbEventResponse, BoxError>("timed out".into());
                }
                outcome.into_response()
            }
        })
        .await
        .expect("every record delivered");
    eprintln!("{delivery:?}");
    assert!(delivery.partial_failures > 0 && delivery.bisections > 0, "{delivery:?}");
    assert!(delivery.discarded.is_empty());
    assert!(
        delivery.records_handed > u64::from(ITEMS * VERSIONS),
        "records were delivered again: {delivery:?}"
    );
    let landed = landed.lock().expect("not poisoned").clone();
    let expected: Vec<u32> = (1..=VERSIONS).collect();
    for item in 0..ITEMS {
        assert_eq!(landed.get(&item), Some(&expected), "item {item}: each version once, in order");
        let view = db.get(View::key(item).expect("a key")).await.expect("a read").expect("a view");
        assert_eq!(view.version, VERSIONS);
    }
}

#[tokio::test]
async fn a_catch_up_run_by_lambda_places_what_writers_that_bypass_dynashard_left_out() {
    let own = own().await;
    let (db, table) = ledger(own.db()).await;
    let shelf = unique("shelf");
    db.start_resharding::<Record>(Ledger::BY_TITLE, Ledger::BY_TITLE_NEXT, Layout::hash(8))
        .await
        .expect("a resharding starts");
    raw_records(&db, &table, &shelf, 0..30).await;
    let titles: Vec<String> = (0..30).map(|n| format!("t{n:04}")).collect();
    let placed = || async {
        let mut placed = 0;
        for title in &titles {
            let item = db
                .client()
                .get_item()
                .table_name(&table)
                .key("pk", AttributeValue::S(shelf.clone()))
                .key("sk", AttributeValue::S(format!("record#{title}")))
                .consistent_read(true)
                .send()
                .await
                .expect("a raw read");
            placed += usize::from(item.item().is_some_and(|item| item.contains_key("next_pk")));
        }
        placed
    };
    assert_eq!(placed().await, 0, "nothing placed the raw writes yet");
    let mut mapping = EventSourceMapping::at(own.endpoint(), &table).batch_size(7);
    let delivery = mapping
        .deliver(|event: Event| {
            let db = db.clone();
            async move {
                StreamBatch::from_event(event)
                    .handle_all(|records| async move {
                        db.catch_up_records::<Record>(Ledger::BY_TITLE, &records).await.map(drop)
                    })
                    .await
                    .into_response()
            }
        })
        .await
        .expect("every record delivered");
    assert!(delivery.invocations >= 5, "{delivery:?}");
    assert_eq!(placed().await, titles.len(), "every raw write placed in the target layout");
}

/// Whole items of `shelf` written with the raw SDK, in the source layout only.
async fn raw_records(db: &Db, table: &str, shelf: &str, titles: std::ops::Range<usize>) {
    for n in titles {
        let title = format!("t{n:04}");
        let shard = dynashard::shard::hash_shard(&title, 16);
        let item = [
            ("pk", shelf.to_owned()),
            ("sk", format!("record#{title}")),
            ("_type", "Record".to_owned()),
            ("shelf", shelf.to_owned()),
            ("title", title.clone()),
            ("title_pk", format!("titles#{shelf}#{shard}")),
            ("title_sk", title),
        ]
        .map(|(name, value)| (name.to_owned(), AttributeValue::S(value)));
        db.client().put_item().table_name(table).set_item(Some(item.into())).send().await.expect("a raw put");
    }
}

#[tokio::test]
async fn scans_stopped_at_their_deadlines_resume_in_the_next_invocation_until_done() {
    use dynashard::reshard::{Backfill, Phase, Verify};
    use std::time::{Duration, SystemTime};
    let own = own().await;
    // Every request takes at least 50 ms, through the emulator: a page (a scan, a write, a
    // beat) at least 150 ms, so that an invocation of 600 ms reads at most a few pages of each
    // segment, however fast the backend is.
    let round_trip = PartitionLimits::dynamodb().round_trip(Duration::from_millis(50));
    let emulator = Emulator::start(own.endpoint(), round_trip).expect("the emulator");
    let slow = Db::new(dynashard::client_for_endpoint(emulator.endpoint()))
        .with_streams_client(dynashard::client::streams_client_for_endpoint(own.endpoint()));
    let (db, _) = ledger(slow).await;
    let shelf = unique("shelf");
    let records: Vec<Record> =
        (0..400).map(|n| Record { shelf: shelf.clone(), title: format!("t{n:04}") }).collect();
    db.batch_put(&records).await.expect("a preload");
    db.start_resharding::<Record>(Ledger::BY_TITLE, Ledger::BY_TITLE_NEXT, Layout::hash(8))
        .await
        .expect("a resharding starts");
    // An invocation whose deadline has passed begins nothing.
    let past = SystemTime::now() - Duration::from_secs(1);
    let options = Backfill::default().segments(4).page_size(10).stop_by(past);
    let state = db.backfill::<Record>(Ledger::BY_TITLE, options).await.expect("an invocation");
    assert_eq!((state.phase, state.backfill_totals()), (Phase::DualWrites, (0, 0)), "{state:?}");
    // Invocations of 600 ms, pages of 10 items: each segment's 10 pages take several.
    let (mut invocations, mut read) = (0, 0);
    loop {
        invocations += 1;
        let deadline = SystemTime::now() + Duration::from_millis(600);
        let options = Backfill::default().segments(4).page_size(10).stop_by(deadline);
        let state = db.backfill::<Record>(Ledger::BY_TITLE, options).await.expect("an invocation");
        let (scanned, _) = state.backfill_totals();
        assert!(scanned >= read, "progress is kept between invocations: {scanned} after {read}");
        read = scanned;
        if state.phase == Phase::Backfilled {
            break;
        }
        assert!(invocations < 1_000, "the backfill moves on between invocations");
    }
    assert!(invocations >= 3, "the deadlines stopped the backfill {invocations} times");
    assert_eq!(read, 400, "each item scanned once, across the invocations");
    // A verification past its deadline records nothing and says so; the next one finishes.
    let past = SystemTime::now() - Duration::from_secs(1);
    let found = db
        .verify_resharding::<Record>(Ledger::BY_TITLE, Verify::default().stop_by(past))
        .await
        .expect("a run");
    assert!(!found.finished && !found.is_clean(), "{found:?}");
    assert!(
        db.cut_over::<Record>(Ledger::BY_TITLE).await.is_err(),
        "no verification vouches for the cut-over"
    );
    let found = db.verify_resharding::<Record>(Ledger::BY_TITLE, Verify::default()).await.expect("a run");
    assert!(found.finished && found.is_clean() && found.found() == 0, "{found:?}");
    assert_eq!(found.scanned, 800, "each item once a side");
}

#[tokio::test]
async fn a_resharding_run_as_tasks_of_short_invocations_loses_nothing() {
    use dynashard::reshard::{Phase, ReshardStep, ReshardTask};
    use std::time::{Duration, SystemTime};
    let own = own().await;
    let (db, table) = ledger(own.db()).await;
    let shelf = unique("shelf");
    raw_records(&db, &table, &shelf, 0..300).await;
    db.start_resharding::<Record>(Ledger::BY_TITLE, Ledger::BY_TITLE_NEXT, Layout::hash(8))
        .await
        .expect("a resharding starts");
    // Written after the start, bypassing dynashard: placed by the steps' catch-up.
    raw_records(&db, &table, &shelf, 300..340).await;
    let task = |step, worker| ReshardTask { entity: "Record".into(), index: "ByTitle".into(), step, worker };
    let mut invocations = 0u32;
    for step in [ReshardStep::Backfill, ReshardStep::Verify, ReshardStep::CutOver, ReshardStep::Finish] {
        let workers = if matches!(step, ReshardStep::Backfill | ReshardStep::Finish) { 3 } else { 1 };
        let runs = (0..workers).map(|worker| {
            let (db, task) = (db.clone(), task(step, worker));
            async move {
                // Each invocation of a worker until its step is done; every other one has a
                // deadline already past, as a Lambda invocation that starts late would.
                let mut calls = 0u32;
                loop {
                    calls += 1;
                    let deadline = match calls % 2 {
                        0 => SystemTime::now() - Duration::from_millis(1),
                        _ => SystemTime::now() + Duration::from_secs(60),
                    };
                    let outcome =
                        db.run_reshard_task::<Record>(&task, deadline).await.expect("an invocation");
                    assert_eq!(outcome.worker, task.worker);
                    if outcome.done {
                        return (calls, outcome.phase);
                    }
                    assert!(calls < 100, "{step:?} moves on");
                }
            }
        });
        for (calls, phase) in futures::future::join_all(runs).await {
            invocations += calls;
            let expected = match step {
                ReshardStep::Backfill => Phase::Backfilled,
                ReshardStep::Verify => Phase::Backfilled,
                ReshardStep::CutOver | ReshardStep::Finish => Phase::CutOver.max(phase),
            };
            assert!(phase >= expected, "{step:?}: {phase:?}");
        }
    }
    assert!(invocations >= 8, "{invocations}");
    let state = db.resharding::<Record>(Ledger::BY_TITLE).await.expect("a read").expect("a resharding");
    assert_eq!(state.phase, Phase::Done);
    assert!(state.scan_finished(), "the cleanup ran to its end: {state:?}");
    // Every item once, in order, read through the new layout.
    let read: Vec<Record> =
        futures::TryStreamExt::try_collect(db.stream(Record::query_by_title(&shelf))).await.expect("a read");
    let titles: Vec<String> = read.into_iter().map(|record| record.title).collect();
    let expected: Vec<String> = (0..340).map(|n| format!("t{n:04}")).collect();
    assert_eq!(titles, expected);
    // A task for another entity type, or an index the table lacks, is refused.
    let mut wrong = task(ReshardStep::Backfill, 0);
    wrong.entity = "Revision".into();
    assert!(db.run_reshard_task::<Record>(&wrong, SystemTime::now()).await.is_err());
    let mut wrong = task(ReshardStep::Backfill, 0);
    wrong.index = "ByNothing".into();
    assert!(db.run_reshard_task::<Record>(&wrong, SystemTime::now()).await.is_err());
}

#[tokio::test]
async fn a_handler_that_never_succeeds_ends_the_delivery_and_a_retry_limit_gives_records_up() {
    let own = own().await;
    let (db, table) = ledger(own.db()).await;
    for item in 0..5 {
        db.put(&Revision { item, version: 1 }).await.expect("a write");
    }
    // Every answer names the batch's first record failed: without a retry limit, the delivery
    // ends after the set number of invocations instead of hanging.
    let refuse_first = |event: Event| async move {
        let first = event.records.first().and_then(|record| record.change.sequence_number.clone());
        let outcome =
            StreamBatch::from_event(event).handle(|_| async { Err::<(), BoxError>("refused".into()) }).await;
        assert_eq!(outcome.stop.as_ref().and_then(|stop| stop.sequence_number.clone()), first);
        outcome.into_response()
    };
    let mut mapping = EventSourceMapping::at(own.endpoint(), &table).batch_size(2).stuck_after(5);
    match mapping.deliver(refuse_first).await {
        Err(dynashard_local::lambda::MappingError::Stuck { invocations, .. }) => assert_eq!(invocations, 5),
        other => panic!("a stuck delivery ends: {other:?}"),
    }
    // With a limit of 2 retries, each batch is given up after its third failure, in order.
    let mut mapping =
        EventSourceMapping::at(own.endpoint(), &table).batch_size(2).maximum_retry_attempts(Some(2));
    let delivery =
        mapping.deliver(|_: Event| async { Err::<DynamoDbEventResponse, BoxError>("crashed".into()) }).await;
    let delivery = delivery.expect("a delivery that gives records up");
    assert_eq!(delivery.discarded.len(), 5, "{delivery:?}");
    assert_eq!(
        (delivery.invocations, delivery.failed_invocations),
        (9, 9),
        "three invocations a batch of 2, 2, 1"
    );
    let mut sorted = delivery.discarded.clone();
    sorted.sort_by_key(|sequence| format!("{sequence:0>40}"));
    assert_eq!(sorted, delivery.discarded, "given up in the stream's order");
}
