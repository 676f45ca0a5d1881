//! A change feed of an orders table (DynamoDB Streams): orders are placed, shipped and
//! cancelled through dynashard, and a consumer reads the table's stream and sees each change as
//! typed orders, old and new, whatever index keys and shard suffixes the items carry.
//!
//! - the table declares its stream (`stream = "new_and_old_images"`), which `create_table` turns on;
//! - orders carry `#[created_at]` and `#[updated_at]`, written by dynashard;
//! - the consumer reads the DynamoDB Streams API here; a Lambda function gets the same records as
//!   its event, and decodes them the same way (`on_lambda_event` below);
//! - items of other types in the table (an invoice) are reported, not errors.
//!
//! ```text
//! cargo run --example change_feed
//! ```

use aws_sdk_dynamodbstreams::types::ShardIteratorType;
use dynashard::changes::{Change, ChangeKind, ChangeRecord};
use dynashard::{Collection, Db, Entity, Table};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

#[derive(Table)]
#[table(name = "OrderFeed", pk = "pk", sk = "sk", stream = "new_and_old_images")]
#[gsi(name = "ByStatus", pk = "status_pk", sk = "status_sk")]
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
#[gsi(ByStatus, pk = "{status}", sk = "{customer}#{number}")]
#[shard(ByStatus, hash = 4, by = customer)]
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
    let connection = dynashard::local::connect().await?;
    let db = Db::new(connection.client().clone());
    db.create_table::<OrderFeed>().await?;

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

    // The consumer: every shard of the table's stream, from its start.
    let streams = streams_client(connection.url());
    let listed = streams.list_streams().table_name("OrderFeed").send().await?;
    let arn = listed.streams().last().and_then(|stream| stream.stream_arn()).ok_or("no stream")?;
    let described = streams.describe_stream().stream_arn(arn).send().await?;
    let shards = described.stream_description().map(|stream| stream.shards().to_vec()).unwrap_or_default();
    let partition = dynashard::AttributeValue::S(format!("customer#{customer}"));
    let mut lines = 0;
    for shard in shards {
        let start = streams
            .get_shard_iterator()
            .stream_arn(arn)
            .shard_id(shard.shard_id().unwrap_or_default())
            .shard_iterator_type(ShardIteratorType::TrimHorizon)
            .send()
            .await?;
        let mut iterator = start.shard_iterator().map(str::to_owned);
        while let Some(current) = iterator.take() {
            let page = streams.get_records().shard_iterator(current).send().await?;
            for record in page.records() {
                let record = ChangeRecord::try_from(record)?;
                if record.keys.get("pk") == Some(&partition) {
                    println!("{}", describe(&record)?);
                    lines += 1;
                }
            }
            // An open shard always gives a next iterator: stop at the end of what is there.
            if !page.records().is_empty() {
                iterator = page.next_shard_iterator().map(str::to_owned);
            }
        }
    }
    assert_eq!(lines, 6, "every write of this run is in the feed");
    Ok(())
}

/// A client of the DynamoDB Streams API at DynamoDB Local's endpoint.
fn streams_client(endpoint: &str) -> aws_sdk_dynamodbstreams::Client {
    use aws_sdk_dynamodbstreams::config::{BehaviorVersion, Credentials, Region};
    let config = aws_sdk_dynamodbstreams::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("local", "local", None, None, "example"))
        .endpoint_url(endpoint)
        .build();
    aws_sdk_dynamodbstreams::Client::from_conf(config)
}
