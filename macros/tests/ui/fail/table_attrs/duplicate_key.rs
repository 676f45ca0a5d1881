use dynashard::Table;

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk", pk = "id")]
struct Music;

fn main() {}
