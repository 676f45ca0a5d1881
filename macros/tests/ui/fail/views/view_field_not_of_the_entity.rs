use dynashard::{Entity, Table, View};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Shop", pk = "pk", sk = "sk")]
struct Shop;

#[derive(Entity, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[entity(table = Shop, pk = "order#{order_id}", sk = "order")]
struct Order {
    order_id: String,
    total: u64,
}

#[derive(View, Deserialize)]
#[view(entity = Order)]
struct Missing {
    discount: u64,
}

#[derive(View, Deserialize)]
#[view(entity = Order)]
struct OtherType {
    total: u32,
}

// Without the entity's `rename_all`, `order_id` is read from `order_id`, not `orderId`.
#[derive(View, Deserialize)]
#[view(entity = Order)]
struct NotRenamed {
    order_id: String,
}

fn main() {}
