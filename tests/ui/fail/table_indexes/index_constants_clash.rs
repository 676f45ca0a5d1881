use dynashard::Table;

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(name = "ByTitle", pk = "title_pk", sk = "title_sk")]
#[gsi(name = "by_title", pk = "other_pk", sk = "other_sk")]
#[gsi(name = "Definition", pk = "definition_pk")]
struct Music;

fn main() {}
