use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Orders", pk = "pk", sk = "sk")]
#[lsi(ByDate(sk = "date_sk"))]
#[gsi(ByCity(pk = "city_pk", sk = "city_sk"))]
struct Orders;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Orders, pk = "customer#{customer}", sk = "order#{id}")]
#[lsi(ByDate(pk = "{customer}", sk = "{date}"))]
struct WithPk {
    customer: String,
    id: u32,
    date: u64,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Orders, pk = "customer#{customer}", sk = "order#{id}")]
#[lsi(ByDate(sk = "{date}"))]
#[shard(ByDate(hash = 4, by = date))]
struct Sharded {
    customer: String,
    id: u32,
    date: u64,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Orders, pk = "customer#{customer}", sk = "order#{id}")]
#[gsi(ByDate(pk = "{customer}", sk = "{date}"))]
struct GlobalMapping {
    customer: String,
    id: u32,
    date: u64,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Orders, pk = "customer#{customer}", sk = "order#{id}")]
#[lsi(ByCity(sk = "{date}"))]
struct LocalMapping {
    customer: String,
    id: u32,
    date: u64,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Orders, pk = "customer#{customer}", sk = "order#{id}")]
#[shard(hash = 4, by = customer)]
#[lsi(ByDate(sk = "{date}"))]
struct BaseSharded {
    customer: String,
    id: u32,
    date: u64,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Orders, pk = "customer#{customer}", sk = "order#{id}")]
#[lsi(ByDate())]
struct WithoutSortKey {
    customer: String,
    id: u32,
}

fn main() {}
