use dynashard::Table;

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(G1(pk = "gsi1pk"))]
struct Music;

fn main() {}
