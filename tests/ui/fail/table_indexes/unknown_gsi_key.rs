use dynashard::Table;

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(name = "GSI1", pk = "gsi1pk", projection = "ALL")]
struct Music;

fn main() {}
