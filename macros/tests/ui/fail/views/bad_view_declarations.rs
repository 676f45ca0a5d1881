use dynashard::{Entity, Table, View};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Shop", pk = "pk", sk = "sk")]
struct Shop;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Shop, pk = "order#{id}", sk = "order")]
struct Order {
    id: String,
    total: u64,
}

#[derive(View, Deserialize)]
struct NoEntity {
    total: u64,
}

#[derive(View, Deserialize)]
#[view(entity = Order, table = Shop)]
struct UnknownKey {
    total: u64,
}

#[derive(View, Deserialize)]
#[view(entity = Order, entity = Order)]
struct TwoEntities {
    total: u64,
}

#[derive(View, Deserialize)]
#[view(entity)]
struct EntityWithoutValue {
    total: u64,
}

#[derive(View, Deserialize)]
#[view(entity = Order)]
struct Flattened {
    total: u64,
    #[serde(flatten)]
    rest: std::collections::HashMap<String, String>,
}

#[derive(View, Deserialize)]
#[view(entity = Order)]
struct Generic<T> {
    total: T,
}

#[derive(View, Deserialize)]
#[view(entity = Order)]
struct Nothing {}

#[derive(View, Deserialize)]
#[view(entity = Order)]
struct Tuple(u64);

#[derive(View, Deserialize)]
#[view(entity = Order)]
enum Choice {
    Total(u64),
}

fn main() {}
