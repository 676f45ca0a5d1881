//! A change feed of an orders table (DynamoDB Streams): orders are placed, shipped and
//! cancelled through dynashard, and a consumer reads the table's stream and sees each change as
//! typed orders, old and new, whatever index keys and shard suffixes the items carry.
//!
//! - the table declares its stream (`stream = "new_and_old_images"`), which `create_table` turns on;
//! - orders carry `#[created_at]` and `#[updated_at]`, written by dynashard;
//! - the consumer is a `ChangeFeed`: it reads the DynamoDB Streams API, follows the stream's
//!   shards, and checkpoints in the table's shard metadata table; a Lambda function gets the same
//!   records as its event, and decodes them the same way (`on_lambda_event` below);
//! - items of other types in the table (an invoice) are reported, not errors.
//!
//! ```text
//! cargo run --example change_feed
//! ```

use dynashard::changes::{Change, ChangeKind, ChangeRecord};
use dynashard::{Collection, Entity, Table};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicUsize, Ordering};
use time::OffsetDateTime;

#[derive(Table)]
#[table(
    name = "OrderFeed",
    pk = "pk",
    sk = "sk",
    stream = "new_and_old_images",
    shard_metadata = "OrderFeedMetadata"
)]
#[gsi(ByStatus(pk = "status_pk", sk = "status_sk"))]
struct OrderFeed;

/// `customer#c-042` / `!`
#[derive(Entity, Serialize, Deserialize, Debug)]
#[entity(table = OrderFeed, pk = "customer#{id}", sk = "!")]
struct Customer {
    id: String,
    name: String,
}

/// `customer#c-042` / `order#0000000007`; listed by status over 4 shards.
#[derive(Entity, Serialize, Deserialize, Debug)]
#[entity(table = OrderFeed, pk = "customer#{customer}", sk = "order#{number}")]
#[gsi(ByStatus(pk = "{status}", sk = "{customer}#{number}"))]
#[shard(ByStatus(hash = 4, by = customer))]
struct Order {
    customer: String,
    number: u32,
    status: String,
    total_cents: u64,
    #[created_at]
    #[serde(with = "time::serde::rfc3339")]
    placed_at: OffsetDateTime,
    #[updated_at]
    #[serde(with = "time::serde::rfc3339")]
    changed_at: OffsetDateTime,
}

/// Stored with the orders, but not what the feed reads.
#[derive(Entity, Serialize, Deserialize, Debug)]
#[entity(table = OrderFeed, pk = "customer#{customer}", sk = "invoice#{number}")]
struct Invoice {
    customer: String,
    number: u32,
    amount_cents: u64,
}

/// What the feed reads: a customer's items.
#[derive(Collection, Debug)]
enum CustomerItems {
    Customer(Customer),
    Order(Order),
}

/// One line of the feed for one change.
fn describe(record: &ChangeRecord) -> dynashard::Result<String> {
    Ok(match record.decode_member::<CustomerItems>()? {
        Change::Item(change) => match (change.kind, change.old, change.new) {
            (ChangeKind::Insert, _, Some(CustomerItems::Customer(customer))) => {
                format!("new customer {} ({})", customer.id, customer.name)
            }
            (ChangeKind::Insert, _, Some(CustomerItems::Order(order))) => format!(
                "order {} placed by {}: {:.2} at {}",
                order.number,
                order.customer,
                order.total_cents as f64 / 100.0,
                order.placed_at.time()
            ),
            (ChangeKind::Modify, Some(CustomerItems::Order(old)), Some(CustomerItems::Order(new))) => {
                format!(
                    "order {} {} -> {} (placed {}, kept)",
                    new.number,
                    old.status,
                    new.status,
                    new.placed_at.time()
                )
            }
            (ChangeKind::Remove, Some(CustomerItems::Order(old)), _) => {
                let how = if change.by_time_to_live { "expired" } else { "deleted" };
                format!("order {} {how} while {}", old.number, old.status)
            }
            (kind, old, new) => format!("{kind:?}: {old:?} -> {new:?}"),
        },
        Change::Unknown { kind, key, type_name } => {
            format!(
                "({kind:?} of an item of type {} at {}, not read here)",
                type_name.as_deref().unwrap_or("?"),
                key.sk.unwrap_or_default()
            )
        }
        other => format!("({other:?})"),
    })
}

/// A Lambda function subscribed to the table's stream gets the same records as its event.
#[allow(dead_code)]
fn on_lambda_event(event: aws_lambda_events::event::dynamodb::Event) -> dynashard::Result<()> {
    for record in event.records {
        println!("{}", describe(&ChangeRecord::try_from(record)?)?);
    }
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let connection = dynashard_local::connect().await?;
    let db = connection.db();
    db.create_table::<OrderFeed>().await?; // and its shard metadata table

    // The writes: a customer, two orders, one shipped and one cancelled, and an invoice.
    let customer = format!("c-{}", OffsetDateTime::now_utc().unix_timestamp_nanos() % 1_000_000);
    db.put(&Customer { id: customer.clone(), name: "Ada".into() }).await?;
    for (number, total_cents) in [(7, 1_250), (8, 4_990)] {
        let order = Order {
            customer: customer.clone(),
            number,
            status: "open".into(),
            total_cents,
            placed_at: OffsetDateTime::UNIX_EPOCH, // written by dynashard
            changed_at: OffsetDateTime::UNIX_EPOCH,
        };
        db.put(&order).await?;
    }
    db.update(Order::key(&customer, 7)?).set(Order::fields().status, "shipped").await?;
    db.delete(Order::key(&customer, 8)?).await?;
    db.put(&Invoice { customer: customer.clone(), number: 7, amount_cents: 1_250 }).await?;

    // The consumer: a change feed named for this run, its checkpoints and leases kept in the
    // shard metadata table, so that a consumer that stops resumes where it stopped, and any
    // number of processes can share one. Here: one pass over everything the stream holds.
    let feed = db.change_feed::<OrderFeed>(format!("printer-{customer}"))?;
    let partition = dynashard::AttributeValue::S(format!("customer#{customer}"));
    let lines = AtomicUsize::new(0);
    feed.catch_up(|page| {
        let (partition, lines) = (&partition, &lines);
        async move {
            for record in page.records.iter().filter(|record| record.keys.get("pk") == Some(partition)) {
                println!("{}", describe(record)?);
                lines.fetch_add(1, Ordering::Relaxed);
            }
            Ok(())
        }
    })
    .await?;
    let lines = lines.into_inner();
    assert_eq!(lines, 6, "every write of this run is in the feed");
    Ok(())
}
