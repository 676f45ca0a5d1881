use dynashard::Table;

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(GSI1(pk, sk = "gsi1sk"))]
struct Music;

fn main() {}
