use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Sessions", pk = "pk", sk = "sk")]
struct Sessions;

#[derive(Table)]
#[table(name = "Tokens", pk = "pk", sk = "sk", ttl = "valid_until")]
struct Tokens;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Sessions, pk = "{id}", sk = "session")]
struct Session {
    id: String,
    #[ttl]
    expires_at: u64,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Tokens, pk = "{id}", sk = "token")]
struct Token {
    id: String,
    #[ttl]
    expires_at: u64,
}

#[derive(Table)]
#[table(name = "Clash", pk = "pk", sk = "sk", ttl = "sk")]
struct Clash;

fn main() {}
