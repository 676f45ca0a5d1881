use dynashard::Table;

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(GSI1(pk = "gsi1pk"))]
#[gsi(GSI1(pk = "gsi2pk"))]
struct Music;

fn main() {}
