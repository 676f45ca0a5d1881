use dynashard::Table;

#[derive(Table)]
#[table(name = "Music", sk = "sk")]
struct Music;

fn main() {}
