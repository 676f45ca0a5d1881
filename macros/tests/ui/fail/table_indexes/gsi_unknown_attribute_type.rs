use dynashard::Table;

#[derive(Table)]
#[table(name = "Shipping", pk = "pk", sk = "sk")]
#[gsi(ByStatus(pk = ["carrier"], sk = ["status", "weight:n"]))]
struct Shipping;

fn main() {}
