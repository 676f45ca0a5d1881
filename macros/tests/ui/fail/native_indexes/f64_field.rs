use dynashard::{Entity, Table};
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
    weight: f64,
}

fn main() {}
