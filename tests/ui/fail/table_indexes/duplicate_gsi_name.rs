use dynashard::Table;

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(name = "GSI1", pk = "gsi1pk")]
#[gsi(name = "GSI1", pk = "gsi2pk")]
struct Music;

fn main() {}
