use dynashard::Table;

#[derive(Table)]
#[table(name = "Music", pk = "")]
struct Music;

fn main() {}
