use dynashard::Table;

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
#[gsi(ByTitle(pk = "title_pk", projection = "everything"))]
#[gsi(ByYear(pk = "year_pk", projection = []))]
#[gsi(ByLabel(pk = "label_pk", projection = ["label", ""]))]
#[gsi(ByGenre(pk = "genre_pk", projection = 3))]
struct Music;

fn main() {}
