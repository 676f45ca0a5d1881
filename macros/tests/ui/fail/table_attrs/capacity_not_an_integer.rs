use dynashard::Table;

#[derive(Table)]
#[table(name = "Music", pk = "pk", read_capacity = 5, write_capacity = "5")]
struct Music;

fn main() {}
