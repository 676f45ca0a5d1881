use dynashard::Table;

#[derive(Table)]
#[table(name = "my music", pk = "pk")]
struct Music;

fn main() {}
