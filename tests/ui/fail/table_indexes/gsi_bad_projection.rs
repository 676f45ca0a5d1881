use dynashard::Table;

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(name = "ByTitle", pk = "title_pk", projection = "everything")]
#[gsi(name = "ByYear", pk = "year_pk", projection = [])]
#[gsi(name = "ByLabel", pk = "label_pk", projection = ["label", ""])]
#[gsi(name = "ByGenre", pk = "genre_pk", projection = 3)]
struct Music;

fn main() {}
