use dynashard::{Db, Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Shop", pk = "pk", sk = "sk")]
#[gsi(ByCustomer(pk = "gsi1pk", sk = "gsi1sk", projection = "keys_only"))]
#[gsi(Totals(pk = "gsi2pk", sk = "gsi2sk", projection = ["total"]))]
struct Shop;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Shop, pk = "order#{id}", sk = "order")]
#[gsi(ByCustomer(pk = "{customer}", sk = "{id}"))]
#[gsi(Totals(pk = "{customer}", sk = "{id}"))]
struct Order {
    id: String,
    customer: String,
    total: u64,
}

async fn read(db: Db) -> dynashard::Result<()> {
    // Keys only: an order cannot be read from it whole.
    let _ = db.page(&Order::query_by_customer("ada"), None).await?;
    // `id` and `customer` are not projected into `Totals`.
    let _ = db.stream(Order::query_totals("ada"));
    Ok(())
}

fn main() {
    drop(read);
}
