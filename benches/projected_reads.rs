//! What reading through a projection costs.
//!
//! 2,000 orders of about 500 bytes in one customer's partition, with two copies of an index on
//! the order number: one holding keys only, one holding two attributes (`number`, `total`).
//! Against a page of 100 whole orders from the base table, in the same run (read units as
//! DynamoDB Local reports them):
//!
//! - a view of those two fields from the index that holds them (target: at most half);
//! - the same view from the base table, with a `ProjectionExpression` (DynamoDB charges the
//!   whole item it reads, so about the same units: the view saves bytes on the wire, not units);
//! - the whole orders hydrated from the keys-only index: its query, then one `BatchGetItem`
//!   (target: exactly one), and what both cost together (without a target: `BatchGetItem`
//!   charges each item a unit of its own, rounded up to 4 KB, where a query packs its items into
//!   units, so hydrating small items costs several times a query of whole items).
//!
//! The last line sums it up for scripts: `projected_reads: ...`.
//!
//! ```text
//! cargo bench --bench projected_reads
//! ```

use dynashard::item::item_size;
use dynashard::query::StatsSnapshot;
use dynashard::{Db, Entity, Query, Table, View};
use serde::{Deserialize, Serialize};

const ORDERS: u32 = 2_000;
const PAGE: usize = 100;
const PAGES: usize = 5;

#[derive(Table)]
#[table(name = "ProjectedReadsBench", pk = "pk", sk = "sk")]
#[gsi(Keys(pk = "keys_pk", sk = "keys_sk", projection = "keys_only"))]
#[gsi(Lines(pk = "lines_pk", sk = "lines_sk", projection = ["number", "total"]))]
struct Bench;

#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[entity(table = Bench, pk = "customer#{customer}", sk = "order#{number}")]
#[gsi(Keys(pk = "{customer}", sk = "{number}"))]
#[gsi(Lines(pk = "{customer}", sk = "{number}"))]
struct Order {
    customer: String,
    number: u32,
    total: u64,
    address: String,
    notes: String,
}

/// What an order list shows.
#[derive(View, Deserialize)]
#[view(entity = Order)]
struct Line {
    number: u32,
    total: u64,
}

/// The mean cost of the first `PAGES` pages of `query`.
async fn pages<T: dynashard::query::FromItem, F>(db: &Db, query: Query<T, F>) -> Cost {
    let query = query.page_size(PAGE);
    let (mut cursor, mut total) = (None::<String>, Cost::default());
    for _ in 0..PAGES {
        let page = db.page(&query, cursor.as_deref()).await.expect("a page");
        assert_eq!(page.items.len(), PAGE);
        total.add(&page.stats);
        cursor = Some(page.cursor.expect("more pages"));
    }
    total.per_page(PAGES)
}

#[derive(Default, Debug)]
struct Cost {
    units: f64,
    requests: f64,
    hydration_requests: f64,
}

impl Cost {
    fn add(&mut self, stats: &StatsSnapshot) {
        self.units += stats.capacity_units;
        self.requests += stats.requests as f64;
        self.hydration_requests += stats.hydration_requests as f64;
    }

    fn per_page(self, pages: usize) -> Cost {
        let pages = pages as f64;
        Cost {
            units: self.units / pages,
            requests: self.requests / pages,
            hydration_requests: self.hydration_requests / pages,
        }
    }
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    let connection = runtime
        .block_on(dynashard_local::connect_to(
            dynashard_local::Backend::from_env_or(dynashard_local::Backend::Local).expect("a backend"),
        ))
        .expect("DynamoDB Local");
    // A table of its own per run, so a shared endpoint never holds orders of an earlier run.
    let table_name = format!("ProjectedReadsBench-{}", std::process::id());
    let db = Db::new(connection.client().clone())
        .with_table_name::<Bench>(table_name)
        .expect("a valid table name");
    let orders: Vec<Order> = (0..ORDERS)
        .map(|number| Order {
            customer: "c-042".into(),
            number,
            total: 1_000 + u64::from(number) * 37,
            address: format!("{number} Harbour Street, Flat {}, Gothenburg", number % 40),
            notes: "leave at the door; ring twice ".repeat(11),
        })
        .collect();
    runtime.block_on(async {
        db.create_table::<Bench>().await.expect("table");
        db.batch_put(&orders).await.expect("import");
    });
    let bytes = |order: &Order| item_size(&dynashard::item::to_item(order).expect("an item")) as u64;
    let mean = orders.iter().map(bytes).sum::<u64>() / u64::from(ORDERS);
    println!("{ORDERS} orders of about {mean} bytes, pages of {PAGE}, the mean of {PAGES} pages");

    let (whole, table_view, index_view, hydrated) = runtime.block_on(async {
        (
            pages(&db, Order::query("c-042")).await,
            pages(&db, Order::query("c-042").view::<Line>()).await,
            pages(&db, Order::query_lines("c-042").view::<Line>()).await,
            pages(&db, Order::query_keys("c-042").hydrate()).await,
        )
    });
    let lines = runtime.block_on(db.page(&Order::query_lines("c-042").view::<Line>().limit(3), None));
    let lines = lines.expect("a page of lines").items;
    assert!(lines.iter().all(|line| line.total == 1_000 + u64::from(line.number) * 37), "views decode");
    let ratio = |cost: &Cost| cost.units / whole.units;
    println!("read                                  | requests | BatchGetItem | read units");
    for (name, cost) in [
        ("whole orders, base table", &whole),
        ("view of 2 fields, base table", &table_view),
        ("view of 2 fields, index holding them", &index_view),
        ("hydrated from the keys-only index", &hydrated),
    ] {
        println!(
            "{name:<37} | {:>8.1} | {:>12.1} | {:>6.2} ({:.2}x)",
            cost.requests,
            cost.hydration_requests,
            cost.units,
            ratio(cost)
        );
    }
    let verdict = |holds: bool| if holds { "within" } else { "OVER" };
    println!(
        "a view from the index reads {:.2}x the whole items' units ({} the 0.5x bound); a hydrated page sends {} BatchGetItem ({} the bound of one)",
        ratio(&index_view),
        verdict(ratio(&index_view) <= 0.5),
        hydrated.hydration_requests,
        verdict(hydrated.hydration_requests <= 1.0),
    );
    println!(
        "projected_reads: index_view_units={:.2}x table_view_units={:.2}x hydrate_batch_gets={:.1} hydrate_requests={:.1} hydrate_units={:.2}x",
        ratio(&index_view),
        ratio(&table_view),
        hydrated.hydration_requests,
        hydrated.requests,
        ratio(&hydrated),
    );
}
