use dynashard::Table;

#[derive(Table)]
#[table(name = "Music", pk = "_type", sk = "sk")]
struct Music;

fn main() {}
