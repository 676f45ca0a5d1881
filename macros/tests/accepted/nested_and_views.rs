//! Nested struct handles at any depth, and views read from the table and from an index.
use dynashard::{Entity, Nested, Table, View};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Shop", pk = "pk", sk = "sk")]
#[gsi(Totals(pk = "gsi1pk", sk = "gsi1sk", projection = ["total", "address"]))]
#[gsi(Everything(pk = "gsi2pk", sk = "gsi2sk"))]
struct Shop;

#[derive(Nested, Serialize, Deserialize)]
pub struct Address {
    city: String,
    #[serde(rename = "zip")]
    post_code: String,
    #[serde(skip)]
    cached: Option<u32>,
    geo: Geo,
}

#[derive(Nested, Serialize, Deserialize)]
#[nested(crate = "dynashard")]
pub struct Geo {
    lat: i64,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Shop, pk = "order#{id}", sk = "order")]
#[gsi(Totals(pk = "{customer}", sk = "{id}"))]
#[gsi(Everything(pk = "{customer}", sk = "{id}"))]
struct Order {
    id: String,
    customer: String,
    total: u64,
    address: Address,
    notes: Vec<Address>,
}

#[derive(View, Deserialize)]
#[view(entity = Order)]
struct Shipping {
    total: u64,
    address: Address,
}

#[test]
fn accepted() {
    let f = Order::fields();
    let _ = f.address.clone().fields().geo.fields().lat.gt(59);
    let _ = f.address.fields().post_code.eq("0150");
    let _ = f.notes.at(0).fields().city.eq("Oslo");
    let _ = Order::query_totals("ada").view::<Shipping>();
    let _ = Order::query_everything("ada").view::<Shipping>();
    let _ = Order::query("o-1").view::<Shipping>();
    let _: dynashard::Query<Order, _> = Order::query_totals("ada").hydrate();
}
