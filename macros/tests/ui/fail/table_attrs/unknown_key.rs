use dynashard::Table;

#[derive(Table)]
#[table(name = "Music", pk = "pk", sort_key = "sk")]
struct Music;

fn main() {}
