use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

#[derive(Table)]
#[table(name = "Docs", pk = "pk", sk = "sk")]
#[gsi(ByTime(pk = "time_pk", sk = "time_sk"))]
struct Docs;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Docs, pk = "{id}", sk = "twice")]
struct TwoCreatedAt {
    id: String,
    #[created_at]
    created: OffsetDateTime,
    #[created_at]
    also: OffsetDateTime,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Docs, pk = "{id}", sk = "both")]
struct BothOnOneField {
    id: String,
    #[created_at]
    #[updated_at(now)]
    stamped: OffsetDateTime,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Docs, pk = "{id}", sk = "{created}")]
#[gsi(ByTime(pk = "{id}", sk = "{updated}"))]
struct InKeys {
    id: String,
    #[created_at]
    created: OffsetDateTime,
    #[updated_at]
    updated: OffsetDateTime,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Docs, pk = "{id}", sk = "flat")]
struct Flattened {
    id: String,
    #[created_at]
    #[serde(skip)]
    created: Option<OffsetDateTime>,
    #[serde(flatten)]
    rest: std::collections::HashMap<String, String>,
}

fn main() {}
