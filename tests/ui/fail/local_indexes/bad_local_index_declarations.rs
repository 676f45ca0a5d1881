use dynashard::Table;

#[derive(Table)]
#[table(name = "NoSortKey", pk = "pk")]
#[lsi(name = "ByDate", sk = "date_sk")]
struct NoSortKey;

#[derive(Table)]
#[table(name = "Orders", pk = "pk", sk = "sk", warm_reads = 0)]
#[lsi(name = "WithPk", pk = "other", sk = "date_sk")]
#[lsi(name = "NoSk")]
#[lsi(name = "SameSk", sk = "sk")]
#[lsi(name = "TwoSks", sk = ["a", "b"])]
#[lsi(name = "Numbered", sk = "n:N")]
struct Orders;

#[derive(Table)]
#[table(name = "Many", pk = "pk", sk = "sk")]
#[lsi(name = "One", sk = "s1")]
#[lsi(name = "Two", sk = "s2")]
#[lsi(name = "Three", sk = "s3")]
#[lsi(name = "Four", sk = "s4")]
#[lsi(name = "Five", sk = "s5")]
#[lsi(name = "Six", sk = "s6")]
struct Many;

fn main() {}
