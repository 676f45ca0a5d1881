//! Stream records decoded into entities and collections: from a Lambda event's JSON, from the
//! `aws_lambda_events` model of it, and from DynamoDB Local's Streams API after real writes.

use crate::{db, unique};
use aws_sdk_dynamodbstreams::types::ShardIteratorType;
use dynashard::changes::{Change, ChangeKind, ChangeRecord, ItemChange};
use dynashard::{AttributeValue, Collection, Db, Entity, Error, Item, Table};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use time::OffsetDateTime;

#[derive(Table)]
#[table(name = "ChangeTests", pk = "pk", sk = "sk", stream = "new_and_old_images")]
#[gsi(ByStatus(pk = "status_pk", sk = "status_sk"))]
struct ChangeTests;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = ChangeTests, pk = "customer#{id}", sk = "!")]
struct Customer {
    id: String,
    name: String,
}

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = ChangeTests, pk = "customer#{customer}", sk = "order#{number}")]
#[gsi(ByStatus(pk = "{status}", sk = "{customer}#{number}"))]
#[shard(ByStatus(hash = 4, by = customer))]
struct Order {
    customer: String,
    number: u32,
    status: String,
    total_cents: u64,
    #[serde(default)]
    tags: BTreeSet<String>,
}

/// Stored in the same partitions, but no member of the collection below.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = ChangeTests, pk = "customer#{customer}", sk = "invoice#{number}")]
struct Invoice {
    customer: String,
    number: u32,
    amount: u64,
}

#[derive(Collection, Debug, Clone, PartialEq)]
enum CustomerItem {
    Customer(Customer),
    Order(Order),
}

fn order(customer: &str, status: &str, tags: &[&str]) -> Order {
    Order {
        customer: customer.to_owned(),
        number: 7,
        status: status.to_owned(),
        total_cents: 1250,
        tags: tags.iter().map(|tag| tag.to_string()).collect(),
    }
}

fn fixture() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/lambda_stream_event.json");
    std::fs::read_to_string(path).expect("the fixture")
}

fn item_change<T: std::fmt::Debug>(change: Change<T>) -> ItemChange<T> {
    match change {
        Change::Item(change) => change,
        other => panic!("not an item change: {other:?}"),
    }
}

#[test]
fn a_lambda_event_decodes_into_entities_and_reports_what_it_does_not_read() {
    let records: Vec<ChangeRecord> =
        ChangeRecord::from_lambda_json(&fixture()).unwrap().into_iter().map(Result::unwrap).collect();
    assert_eq!(records.len(), 6);
    let changes: Vec<Change<Order>> =
        records.iter().map(|record| record.decode::<Order>().unwrap()).collect();

    let insert = item_change(changes[0].clone());
    assert_eq!(insert.kind, ChangeKind::Insert);
    assert_eq!(
        (insert.key.pk.as_str(), insert.key.sk.as_deref()),
        ("customer#c-1", Some("order#0000000007"))
    );
    assert_eq!(
        (insert.old, insert.new),
        (None, Some(order("c-1", "open", &["gift", "express"]))),
        "a set read back"
    );
    assert_eq!(insert.approximate_time, Some(OffsetDateTime::from_unix_timestamp(1_764_044_000).unwrap()));
    assert_eq!((insert.sequence_number.as_deref(), insert.by_time_to_live), (Some("111"), false));

    let modify = item_change(changes[1].clone());
    assert_eq!(modify.kind, ChangeKind::Modify);
    assert_eq!(modify.old.map(|order| order.status).as_deref(), Some("open"));
    assert_eq!(
        modify.new.map(|order| order.status).as_deref(),
        Some("shipped"),
        "shard and resharding keys ignored"
    );

    let expired = item_change(changes[2].clone());
    assert_eq!((expired.kind, expired.by_time_to_live, expired.new), (ChangeKind::Remove, true, None));
    assert_eq!(expired.old.map(|order| order.tags), Some(BTreeSet::new()), "no set attribute: an empty set");

    assert!(
        matches!(&changes[3], Change::Unknown { kind: ChangeKind::Insert, type_name: Some(name), key }
            if name == "Invoice" && key.sk.as_deref() == Some("invoice#9")),
        "{:?}",
        changes[3]
    );
    assert!(
        matches!(&changes[4], Change::KeysOnly { kind: ChangeKind::Modify, key } if key.sk.as_deref() == Some("!"))
    );
    assert!(
        matches!(&changes[5], Change::ShardMetadata { kind: ChangeKind::Modify, keys } if keys.contains_key("partition")),
        "{:?}",
        changes[5]
    );

    let members: Vec<Change<CustomerItem>> =
        records.iter().map(|record| record.decode_member::<CustomerItem>().unwrap()).collect();
    let member = item_change(members[1].clone());
    assert!(matches!(member.new, Some(CustomerItem::Order(Order { ref status, .. })) if status == "shipped"));
    assert!(matches!(&members[3], Change::Unknown { type_name: Some(name), .. } if name == "Invoice"));
}

#[test]
fn the_aws_lambda_events_model_gives_the_same_records() {
    let event: aws_lambda_events::event::dynamodb::Event = serde_json::from_str(&fixture()).unwrap();
    let from_model: Vec<ChangeRecord> =
        event.records.into_iter().map(|record| ChangeRecord::try_from(record).unwrap()).collect();
    let from_json: Vec<ChangeRecord> =
        ChangeRecord::from_lambda_json(&fixture()).unwrap().into_iter().map(Result::unwrap).collect();
    assert_eq!(from_model, from_json);
}

#[test]
fn what_is_not_a_change_of_the_table_is_an_error() {
    let keys = Item::from([
        ("pk".to_owned(), AttributeValue::S("customer#c-1".into())),
        ("sk".to_owned(), AttributeValue::S("order#0000000007".into())),
    ]);
    let mut image = keys.clone();
    image.extend([
        ("_type".to_owned(), AttributeValue::S("Order".into())),
        ("customer".to_owned(), AttributeValue::S("c-1".into())),
        ("number".to_owned(), AttributeValue::S("seven".into())),
    ]);
    let corrupt = ChangeRecord::new(ChangeKind::Insert, keys.clone()).with_new_image(image);
    assert!(
        matches!(corrupt.decode::<Order>(), Err(Error::Undecodable(bad))
            if bad.key.sk.as_deref() == Some("order#0000000007") && bad.expected == "Order"),
        "an image of the type that does not decode, named by its key"
    );
    let foreign =
        ChangeRecord::new(ChangeKind::Insert, Item::from([("id".to_owned(), AttributeValue::S("x".into()))]));
    assert!(matches!(foreign.decode::<Order>(), Err(Error::InvalidChangeRecord { .. })));
    let numeric =
        ChangeRecord::new(ChangeKind::Remove, Item::from([("pk".to_owned(), AttributeValue::N("1".into()))]));
    assert!(matches!(numeric.decode::<Order>(), Err(Error::InvalidChangeRecord { .. })));
    for bad in [r#"{"records": []}"#, "[]", "not json"] {
        assert!(
            matches!(ChangeRecord::from_lambda_json(bad), Err(Error::InvalidChangeRecord { .. })),
            "{bad}"
        );
    }
    // One bad record among good ones: it alone is an error, naming it; the others decode.
    let event = r#"{"Records": [
        {"eventID": "a", "eventName": "INSERT", "dynamodb": {"Keys": {"pk": {"S": "x"}}, "SequenceNumber": "1"}},
        {"eventID": "b", "eventName": "UPSERT", "dynamodb": {"Keys": {"pk": {"S": "y"}}, "SequenceNumber": "2"}},
        {"eventID": "c", "eventName": "MODIFY", "dynamodb": {"Keys": 7, "SequenceNumber": "3"}},
        {"eventID": "d", "eventName": "REMOVE", "dynamodb": {"Keys": {"pk": {"S": "z"}}, "SequenceNumber": "4"}}
    ]}"#;
    let records = ChangeRecord::from_lambda_json(event).unwrap();
    let failed: Vec<(Option<String>, Option<String>)> = records
        .iter()
        .filter_map(|record| match record {
            Err(Error::InvalidChangeRecord { event_id, sequence_number, .. }) => {
                Some((event_id.clone(), sequence_number.clone()))
            }
            _ => None,
        })
        .collect();
    let named = |id: &str, number: &str| (Some(id.to_owned()), Some(number.to_owned()));
    assert_eq!(failed, [named("b", "2"), named("c", "3")]);
    let good: Vec<Option<String>> =
        records.iter().flatten().map(|record| record.sequence_number.clone()).collect();
    assert_eq!(good, [Some("1".to_owned()), Some("4".to_owned())]);
    let message = records[1].as_ref().unwrap_err().to_string();
    assert!(message.contains("event b, sequence number 2"), "{message}");
}

/// Every record the table's stream holds, from each shard's start.
async fn stream_records(table: &str) -> Vec<aws_sdk_dynamodbstreams::types::Record> {
    let endpoint = dynashard_local::shared_endpoint().await.unwrap();
    let config = aws_sdk_dynamodbstreams::Config::builder()
        .behavior_version(aws_sdk_dynamodbstreams::config::BehaviorVersion::latest())
        .region(aws_sdk_dynamodbstreams::config::Region::new("us-east-1"))
        .credentials_provider(aws_sdk_dynamodbstreams::config::Credentials::new(
            "local", "local", None, None, "test",
        ))
        .endpoint_url(endpoint)
        .build();
    let streams = aws_sdk_dynamodbstreams::Client::from_conf(config);
    let listed = streams.list_streams().table_name(table).send().await.unwrap();
    let arn = listed.streams().last().and_then(|stream| stream.stream_arn()).expect("the table has a stream");
    let described = streams.describe_stream().stream_arn(arn).send().await.unwrap();
    let shards = described.stream_description().map(|stream| stream.shards().to_vec()).unwrap_or_default();
    let mut records = Vec::new();
    for shard in shards {
        let iterator = streams
            .get_shard_iterator()
            .stream_arn(arn)
            .shard_id(shard.shard_id().unwrap_or_default())
            .shard_iterator_type(ShardIteratorType::TrimHorizon)
            .send()
            .await
            .unwrap();
        let mut next = iterator.shard_iterator().map(str::to_owned);
        while let Some(iterator) = next.take() {
            let page = streams.get_records().shard_iterator(iterator).send().await.unwrap();
            if page.records().is_empty() {
                break;
            }
            records.extend(page.records().iter().cloned());
            next = page.next_shard_iterator().map(str::to_owned);
        }
    }
    records
}

async fn setup() -> Db {
    let db = db().await;
    db.create_table::<ChangeTests>().await.expect("create ChangeTests");
    db
}

#[tokio::test]
async fn records_of_dynamodb_local_streams_decode_as_the_writes_made_them() {
    let db = setup().await;
    let customer = unique("Feed");
    db.put(&Customer { id: customer.clone(), name: "Ada".into() }).await.unwrap();
    db.put(&order(&customer, "open", &["gift"])).await.unwrap();
    let f = Order::fields();
    db.update(Order::key(&customer, 7).unwrap()).set(f.status, "shipped").await.unwrap();
    db.put(&Invoice { customer: customer.clone(), number: 9, amount: 99 }).await.unwrap();
    db.delete(Order::key(&customer, 7).unwrap()).await.unwrap();

    let partition = AttributeValue::S(format!("customer#{customer}"));
    let mut changes = Vec::new();
    for record in stream_records("ChangeTests").await {
        let record = ChangeRecord::try_from(&record).unwrap();
        if record.keys.get("pk") == Some(&partition) {
            changes.push(record.decode_member::<CustomerItem>().unwrap());
        }
    }
    assert_eq!(changes.len(), 5, "{changes:#?}");
    let created = item_change(changes[0].clone());
    assert_eq!(created.kind, ChangeKind::Insert);
    assert_eq!(
        created.new,
        Some(CustomerItem::Customer(Customer { id: customer.clone(), name: "Ada".into() }))
    );
    assert!(created.approximate_time.is_some() && created.sequence_number.is_some());
    let placed = item_change(changes[1].clone());
    assert_eq!(
        placed.new,
        Some(CustomerItem::Order(order(&customer, "open", &["gift"]))),
        "its shard key ignored"
    );
    let shipped = item_change(changes[2].clone());
    assert_eq!(shipped.kind, ChangeKind::Modify);
    assert_eq!(shipped.old, Some(CustomerItem::Order(order(&customer, "open", &["gift"]))));
    assert_eq!(shipped.new, Some(CustomerItem::Order(order(&customer, "shipped", &["gift"]))));
    assert!(
        matches!(&changes[3], Change::Unknown { kind: ChangeKind::Insert, type_name: Some(name), .. } if name == "Invoice")
    );
    let removed = item_change(changes[4].clone());
    assert_eq!((removed.kind, removed.new, removed.by_time_to_live), (ChangeKind::Remove, None, false));
    assert_eq!(removed.old, Some(CustomerItem::Order(order(&customer, "shipped", &["gift"]))));
}
