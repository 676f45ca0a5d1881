use dynashard::Table;

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(name = "GSI1", sk = "gsi1sk")]
struct Music;

fn main() {}
