use dynashard::View;
use serde::Deserialize;

struct Order;

#[derive(View, Deserialize)]
#[view(entity = Order)]
struct Total {
    total: u64,
}

fn main() {}
