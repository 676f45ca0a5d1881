//! A DynamoDB Streams handler for AWS Lambda: each order's running total kept in a summary item,
//! each record applied once and in order per order, whatever Lambda retries or splits.
//!
//! - Deployed (`AWS_LAMBDA_RUNTIME_API` is set), it is a Lambda function: `lambda_runtime` hands
//!   it the events of an event source mapping on the table's stream (with
//!   `FunctionResponseTypes: ["ReportBatchItemFailures"]`), and it answers which record Lambda
//!   resumes from.
//! - Run here, it plays that event source mapping in process (`dynashard_local::lambda`) on the
//!   embedded DynamoDB, with the failures Lambda retries: a downstream that refuses now and
//!   then, an invocation that times out after its work is done, and batches split in two.
//!
//! The handler is [`handle`]: `StreamBatch` hands it the records one at a time in the stream's
//! order and stops at the first that fails (the answer names it: Lambda resumes there); each
//! write stores the record's position and lands only if the item holds no later one
//! (`StreamPosition::is_after`), so a record delivered again is refused, never applied twice or
//! after a newer one.
//!
//! ```text
//! cargo run --example lambda_stream
//! ```

use aws_lambda_events::event::dynamodb::Event;
use aws_lambda_events::event::streams::DynamoDbEventResponse;
use dynashard::changes::{Change, ChangeRecord, StreamBatch};
use dynashard::{Db, Entity, Error, Table};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

/// A Lambda function's error (`lambda_runtime::Error`).
type BoxError = Box<dyn std::error::Error + Send + Sync>;

#[derive(Table)]
#[table(name = "LambdaOrders", pk = "pk", sk = "sk", stream = "new_image")]
struct LambdaOrders;

/// `order#7` / `state`: rewritten as the order changes.
#[derive(Entity, Serialize, Deserialize, Debug, Clone)]
#[entity(table = LambdaOrders, pk = "order#{number}", sk = "state")]
struct Order {
    number: u32,
    revision: u32,
    total_cents: u64,
}

/// `order#7` / `summary`: what the handler makes of the order's changes, with the position of
/// the record it applied last.
#[derive(Entity, Serialize, Deserialize, Debug, Clone)]
#[entity(table = LambdaOrders, pk = "order#{number}", sk = "summary")]
struct Summary {
    number: u32,
    revision: u32,
    total_cents: u64,
    position: String,
}

/// One record: the order's summary, written unless it holds this record's position or a later
/// one (a record delivered again, or older than one applied).
async fn apply(db: &Db, record: ChangeRecord) -> Result<(), Error> {
    let Change::Item(change) = record.decode::<Order>()? else { return Ok(()) }; // not an order
    let Some(order) = change.new else { return Ok(()) }; // removed: nothing to sum
    let position = record.position()?;
    let summary = Summary {
        number: order.number,
        revision: order.revision,
        total_cents: order.total_cents,
        position: position.as_str().to_owned(),
    };
    match db.put(&summary).condition(position.is_after(Summary::fields().position)).await {
        Ok(_) | Err(Error::ConditionFailed { .. }) => Ok(()),
        Err(other) => Err(other),
    }
}

/// The Lambda function: the event's records in order, up to five seconds before its deadline;
/// the answer names the first record not handled.
async fn handle(
    db: &Db,
    event: Event,
    deadline: Option<SystemTime>,
) -> Result<DynamoDbEventResponse, BoxError> {
    let mut batch = StreamBatch::from_event(event);
    if let Some(deadline) = deadline {
        batch = batch.stop_by(deadline - Duration::from_secs(5));
    }
    batch.handle(|record| apply(db, record)).await.into_response()
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    if std::env::var_os("AWS_LAMBDA_RUNTIME_API").is_some() {
        let db = Db::new(dynashard::client_from_env().await);
        let db = &db;
        let function =
            lambda_runtime::service_fn(move |event: lambda_runtime::LambdaEvent<Event>| async move {
                handle(db, event.payload, Some(event.context.deadline())).await
            });
        return lambda_runtime::run(function).await;
    }

    let connection = dynashard_local::connect().await?;
    let db = connection.db();
    db.create_table::<LambdaOrders>().await?;
    // Ten orders, each revised eight times.
    for revision in 1..=8 {
        for number in 1..=10 {
            db.put(&Order { number, revision, total_cents: u64::from(number * 100 + revision) }).await?;
        }
    }

    // Lambda's event source mapping, with a downstream that refuses every seventh record, and
    // every third invocation timing out after its work is done (Lambda then delivers the batch
    // again, split in two).
    let mut mapping = dynashard_local::lambda::EventSourceMapping::at(connection.url(), "LambdaOrders")
        .batch_size(25)
        .bisect_batch_on_function_error(true);
    let (records, invocations) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let delivery = mapping
        .deliver(|event: Event| {
            let (db, records) = (&db, &records);
            let timed_out = invocations.fetch_add(1, Ordering::Relaxed) % 3 == 2;
            async move {
                let answer = StreamBatch::from_event(event)
                    .handle(|record| async move {
                        if records.fetch_add(1, Ordering::Relaxed) % 7 == 6 {
                            return Err::<(), BoxError>("the downstream refused".into());
                        }
                        Ok(apply(db, record).await?)
                    })
                    .await
                    .into_response()?;
                if timed_out {
                    return Err::<DynamoDbEventResponse, BoxError>("timed out".into());
                }
                Ok(answer)
            }
        })
        .await?;
    println!(
        "{} invocations, {} records handed over for 80 written ({} partial failures, {} failed invocations, {} bisections)",
        delivery.invocations,
        delivery.records_handed,
        delivery.partial_failures,
        delivery.failed_invocations,
        delivery.bisections
    );
    for number in 1..=10 {
        let summary = db.get(Summary::key(number)?).await?.ok_or("a summary")?;
        println!("order {number}: revision {}, {} cents", summary.revision, summary.total_cents);
        assert_eq!(summary.revision, 8, "the last revision, whatever was delivered again");
    }
    Ok(())
}
