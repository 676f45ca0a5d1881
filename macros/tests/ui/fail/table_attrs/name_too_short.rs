use dynashard::Table;

#[derive(Table)]
#[table(name = "mu", pk = "pk")]
struct Music;

fn main() {}
