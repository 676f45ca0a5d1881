//! A provisioned table with its own entity-type attribute.

use dynashard::table::Billing;
use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(
    name = "orders.v2",
    pk = "PK",
    sk = "SK",
    type_attribute = "kind",
    read_capacity = 5,
    write_capacity = 10
)]
#[gsi(by_customer(name = "by-customer", pk = "customer"))]
struct Orders;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Orders, pk = "order#{id}", sk = "order")]
struct Order {
    id: u64,
    customer: String,
}

#[test]
fn accepted() {
    let definition = <Orders as Table>::DEFINITION;
    assert_eq!(definition.name, "orders.v2");
    assert_eq!(definition.partition_key, "PK");
    assert_eq!(definition.type_attribute, "kind");
    assert_eq!(definition.billing, Billing::Provisioned { read: 5, write: 10 });
    assert_eq!(definition.indexes[0].name, "by-customer");
    assert!(definition.indexes[0].sort_key.is_empty());

    assert_eq!(Order::key(7).unwrap().pk(), "order#00000000000000000007");
    assert_eq!(<Order as Entity>::TYPE_NAME, "Order");
    assert_eq!(Order::fields().customer.name(), "customer");
}
