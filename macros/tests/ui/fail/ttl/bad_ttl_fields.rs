use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Sessions", pk = "pk", sk = "sk", ttl = "expires_at")]
struct Sessions;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Sessions, pk = "{id}", sk = "session")]
struct StringTtl {
    id: String,
    #[ttl]
    expires_at: String,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Sessions, pk = "{id}", sk = "twice")]
struct TwoTtls {
    id: String,
    #[ttl]
    expires_at: u64,
    #[ttl]
    also: u64,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Sessions, pk = "{id}", sk = "key")]
struct KeyTtl {
    #[ttl]
    id: u64,
}

fn main() {}
