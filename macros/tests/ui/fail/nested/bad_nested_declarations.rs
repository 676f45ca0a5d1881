use dynashard::Nested;
use serde::{Deserialize, Serialize};

#[derive(Nested, Serialize, Deserialize)]
#[nested(table = "Shop")]
struct UnknownKey {
    city: String,
}

#[derive(Nested, Serialize, Deserialize)]
struct Generic<T> {
    city: T,
}

#[derive(Nested, Serialize, Deserialize)]
struct Flattened {
    city: String,
    #[serde(flatten)]
    rest: std::collections::HashMap<String, String>,
}

#[derive(Nested, Serialize, Deserialize)]
struct Tuple(String);

#[derive(Nested, Serialize, Deserialize)]
enum Choice {
    City(String),
}

fn main() {}
