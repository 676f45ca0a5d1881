//! An index keyed on the entity's own attributes (a multi-attribute key): the table declares
//! attribute lists, the entity maps them to fields, and queries compare numbers as numbers.

use dynashard::query::{Done, Native};
use dynashard::table::ScalarKind;
use dynashard::AttributeValue;
use dynashard::{Entity, Query, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Shipping", pk = "pk", sk = "sk")]
#[gsi(ByStatus(pk = ["carrier"], sk = ["status", "weight:N"]))]
struct Shipping;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Shipping, pk = "shipment#{id}", sk = "shipment")]
#[gsi(ByStatus(pk = [carrier], sk = [status, weight]))]
struct Shipment {
    id: u32,
    carrier: String,
    status: String,
    weight: u32,
}

#[test]
fn accepted() {
    let index = &Shipping::DEFINITION.indexes[0];
    assert_eq!(index.name, "ByStatus");
    assert_eq!((index.partition_key[0].name, index.partition_key[0].kind), ("carrier", ScalarKind::String));
    assert_eq!((index.sort_key[1].name, index.sort_key[1].kind), ("weight", ScalarKind::Number));

    let _heavy: Query<Shipment, Done> = Shipment::query_by_status("ups").eq("sent").gt(10);
    let _all: Query<Shipment, Native<String, Native<u32, Done>>> = Shipment::query_by_status("ups");
    let _sent: Query<Shipment, Done> = Shipment::query_by_status("ups").begins_with("se");

    // The index attributes are the entity's own: a number stays a number.
    let shipment = Shipment { id: 1, carrier: "ups".into(), status: "sent".into(), weight: 12 };
    let item = dynashard::item::to_item(&shipment).unwrap();
    assert_eq!(item.get("weight"), Some(&AttributeValue::N("12".into())));
    assert_eq!(item.get("carrier"), Some(&AttributeValue::S("ups".into())));

    // DynamoDB refuses empty strings in index key attributes.
    let unlabelled = Shipment { id: 2, carrier: String::new(), status: "sent".into(), weight: 1 };
    assert!(dynashard::item::to_item(&unlabelled).is_err());
}
