use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Orders", pk = "pk", sk = "sk", shard_metadata = "Meta", stream = "new_image")]
#[gsi(ByStatus(pk = ["customer"], sk = ["status"]))]
struct Orders;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Orders, pk = "{customer}", sk = "order#{id}")]
#[gsi(ByStatus(pk = [customer], sk = [status], added))]
struct Order {
    customer: String,
    id: String,
    status: String,
}

fn main() {}
