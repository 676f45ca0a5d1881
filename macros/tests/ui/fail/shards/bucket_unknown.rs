use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Sensors", pk = "pk", sk = "sk")]
#[gsi(Readings(pk = "reading_pk", sk = "reading_sk"))]
struct Sensors;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Sensors, pk = "sensor#{sensor}", sk = "at#{taken_at}")]
#[gsi(Readings(pk = "reading", sk = "{taken_at}#{sensor}"))]
#[shard(Readings(hash = 16, by = sensor, bucket = "week", at = taken_at))]
struct Reading {
    sensor: String,
    taken_at: i64,
    note: String,
}

fn main() {}
