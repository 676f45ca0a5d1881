use dynashard::Table;

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(name = "GSI1", pk = "gsi1pk", sk = "gsi1sk")]
#[lsi(ByDate)]
struct Music;

fn main() {}
