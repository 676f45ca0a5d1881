use dynashard::Table;

#[derive(Table)]
struct Music;

fn main() {}
