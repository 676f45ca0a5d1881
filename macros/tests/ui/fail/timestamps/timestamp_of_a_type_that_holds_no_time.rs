use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Docs", pk = "pk", sk = "sk")]
struct Docs;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Docs, pk = "{id}", sk = "doc")]
struct Doc {
    id: String,
    #[updated_at]
    updated: String,
}

fn main() {}
