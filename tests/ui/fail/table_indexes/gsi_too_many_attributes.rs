use dynashard::Table;

#[derive(Table)]
#[table(name = "Shipping", pk = "pk", sk = "sk")]
#[gsi(name = "ByStatus", pk = ["carrier"], sk = ["a", "b", "c", "d", "e"])]
struct Shipping;

fn main() {}
