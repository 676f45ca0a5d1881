use dynashard::Table;

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
#[gsi(by_title(pk = "other_pk", sk = "other_sk"))]
#[gsi(Definition(pk = "definition_pk"))]
struct Music;

fn main() {}
