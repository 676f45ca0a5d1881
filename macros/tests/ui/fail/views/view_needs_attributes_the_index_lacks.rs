use dynashard::{Entity, Table, View};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Shop", pk = "pk", sk = "sk")]
#[gsi(Totals(pk = "gsi1pk", sk = "gsi1sk", projection = ["total"]))]
#[gsi(ByCustomer(pk = "gsi2pk", sk = "gsi2sk", projection = "keys_only"))]
struct Shop;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Shop, pk = "order#{id}", sk = "order")]
#[gsi(Totals(pk = "{customer}", sk = "{id}"))]
#[gsi(ByCustomer(pk = "{customer}", sk = "{id}"))]
struct Order {
    id: String,
    customer: String,
    total: u64,
    notes: String,
}

#[derive(View, Deserialize)]
#[view(entity = Order)]
struct Total {
    total: u64,
}

#[derive(View, Deserialize)]
#[view(entity = Order)]
struct Line {
    id: String,
    total: u64,
}

fn main() {
    // Held by `Totals`: fine.
    let _ = Order::query_totals("ada").view::<Total>();
    // `id` is not.
    let _ = Order::query_totals("ada").view::<Line>();
    // A keys-only index holds no view (not even the entity type).
    let _ = Order::query_by_customer("ada").view::<Total>();
}
