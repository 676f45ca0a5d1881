use dynashard::Table;

#[derive(Table)]
#[table(name = "Music", pk = "pk", shard_metadata = "Music")]
struct Music;

#[derive(Table)]
#[table(name = "Albums", pk = "pk", shard_metadata = "shard metadata")]
struct Albums;

fn main() {}
