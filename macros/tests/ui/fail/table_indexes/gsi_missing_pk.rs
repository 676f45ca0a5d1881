use dynashard::Table;

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(GSI1(sk = "gsi1sk"))]
struct Music;

fn main() {}
