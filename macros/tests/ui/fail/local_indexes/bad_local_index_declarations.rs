use dynashard::Table;

#[derive(Table)]
#[table(name = "NoSortKey", pk = "pk")]
#[lsi(ByDate(sk = "date_sk"))]
struct NoSortKey;

#[derive(Table)]
#[table(name = "Orders", pk = "pk", sk = "sk", warm_reads = 0)]
#[lsi(WithPk(pk = "other", sk = "date_sk"))]
#[lsi(NoSk())]
#[lsi(SameSk(sk = "sk"))]
#[lsi(TwoSks(sk = ["a", "b"]))]
#[lsi(Numbered(sk = "n:N"))]
struct Orders;

#[derive(Table)]
#[table(name = "Many", pk = "pk", sk = "sk")]
#[lsi(One(sk = "s1"))]
#[lsi(Two(sk = "s2"))]
#[lsi(Three(sk = "s3"))]
#[lsi(Four(sk = "s4"))]
#[lsi(Five(sk = "s5"))]
#[lsi(Six(sk = "s6"))]
struct Many;

fn main() {}
