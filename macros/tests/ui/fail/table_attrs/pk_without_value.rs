use dynashard::Table;

#[derive(Table)]
#[table(name = "Music", pk, sk = "sk")]
struct Music;

fn main() {}
