use dynashard::Table;

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk", type_attribute = "sk")]
struct Music;

fn main() {}
