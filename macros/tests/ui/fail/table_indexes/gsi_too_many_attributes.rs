use dynashard::Table;

#[derive(Table)]
#[table(name = "Shipping", pk = "pk", sk = "sk")]
#[gsi(ByStatus(pk = ["carrier"], sk = ["a", "b", "c", "d", "e"]))]
struct Shipping;

fn main() {}
