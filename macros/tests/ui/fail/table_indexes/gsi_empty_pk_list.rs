use dynashard::Table;

#[derive(Table)]
#[table(name = "Shipping", pk = "pk", sk = "sk")]
#[gsi(ByStatus(pk = [], sk = ["status"]))]
struct Shipping;

fn main() {}
