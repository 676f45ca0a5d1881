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
    // Whole items written with the raw SDK, in the source layout only.
    let titles: Vec<String> = (0..30).map(|n| format!("t{n:04}")).collect();
    for title in &titles {
        let shard = dynashard::shard::hash_shard(title, 16);
        let item = [
            ("pk", shelf.clone()),
            ("sk", format!("record#{title}")),
            ("_type", "Record".to_owned()),
            ("shelf", shelf.clone()),
            ("title", title.clone()),
            ("title_pk", format!("titles#{shelf}#{shard}")),
            ("title_sk", title.clone()),
        ]
        .map(|(name, value)| (name.to_owned(), AttributeValue::S(value)));
        db.client()
            .put_item()
            .table_name(&table)
            .set_item(Some(item.into()))
            .send()
            .await
            .expect("a raw put");
    }
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
