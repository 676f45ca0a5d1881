use dynashard::Table;

#[derive(Table)]
#[table(name = "Music", pk = "key", sk = "key")]
struct Music;

fn main() {}
