use dynashard::Table;

#[derive(Table)]
#[table(name = "Music", pk = "pk")]
struct Music<T>(T);

fn main() {}
