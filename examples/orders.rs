//! Customers and orders (seed: vertical partitioning, sparse indexes, write sharding).
//!
//! - a customer and their orders form one item collection, read with one query;
//! - open orders also sit in a sparse index that holds keys only: reading them hydrates the
//!   full orders from the table, in the index's order; closing an order takes it out of the index;
//! - a customer's orders by amount sit in an index that holds two attributes, read as a view;
//! - a product is split vertically into a static `!` item and a fast-changing `inventory` item
//!   under one partition key, and read back whole with one query;
//! - orders are imported in bulk with a batch write.
//!
//! ```text
//! cargo run --example orders
//! ```

use dynashard::{Collection, Db, Entity, Table, View};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Shop", pk = "pk", sk = "sk")]
#[gsi(OpenOrders(pk = "open_pk", sk = "open_sk", projection = "keys_only"))]
#[gsi(ByAmount(pk = "amount_pk", sk = "amount_sk", projection = ["number", "total_cents"]))]
struct Shop;

/// `customer#c-042` / `!`
#[derive(Entity, Serialize, Deserialize, Debug)]
#[entity(table = Shop, pk = "customer#{id}", sk = "!")]
struct Customer {
    id: String,
    name: String,
}

/// `customer#c-042` / `order#0000000007`; in `OpenOrders` only while `opened_at` is set, and in
/// `ByAmount` under its customer, by total.
#[derive(Entity, Serialize, Deserialize, Debug)]
#[entity(table = Shop, pk = "customer#{customer}", sk = "order#{number}")]
#[sparse_gsi(OpenOrders(pk = "open", sk = "{opened_at}#{customer}#{number}"))]
#[gsi(ByAmount(pk = "{customer}", sk = "{total_cents}#{number}"))]
struct Order {
    customer: String,
    number: u32,
    total_cents: u64,
    opened_at: Option<String>,
}

/// What a list of a customer's orders shows: the two attributes `ByAmount` holds.
#[derive(View, Deserialize, Debug)]
#[view(entity = Order)]
struct OrderLine {
    number: u32,
    total_cents: u64,
}

/// A customer's collection: the customer item and all their orders.
#[derive(Collection, Debug)]
enum CustomerItems {
    Customer(Customer),
    Order(Order),
}

/// `product#kettle-1` / `!`: details that rarely change.
#[derive(Entity, Serialize, Deserialize, Debug)]
#[entity(table = Shop, pk = "product#{sku}", sk = "!")]
struct Product {
    sku: String,
    name: String,
    description: String,
}

/// `product#kettle-1` / `inventory`: stock that changes all the time, written without
/// rewriting the details.
#[derive(Entity, Serialize, Deserialize, Debug)]
#[entity(table = Shop, pk = "product#{sku}", sk = "inventory")]
struct Inventory {
    sku: String,
    in_stock: i64,
}

#[derive(Collection, Debug)]
enum ProductItems {
    Details(Product),
    Stock(Inventory),
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let connection = dynashard_local::connect().await?;
    let db = Db::new(connection.client().clone());
    db.create_table::<Shop>().await?;

    // Bulk import: 3 customers, 300 orders; every tenth order is still open.
    let customers: Vec<Customer> =
        (1..=3).map(|n| Customer { id: format!("c-{n:03}"), name: format!("Customer {n}") }).collect();
    db.batch_put(&customers).await?;
    let orders: Vec<Order> = (1..=300)
        .map(|number| Order {
            customer: format!("c-{:03}", number % 3 + 1),
            number,
            total_cents: 1_000 + u64::from(number) * 37,
            opened_at: (number % 10 == 0).then(|| format!("2026-11-{:02}T10:00", number % 28 + 1)),
        })
        .collect();
    db.batch_put(&orders).await?;
    println!("imported {} customers and {} orders in batches of 25", customers.len(), orders.len());

    // One query reads a customer and all their orders.
    let collection = CustomerItems::query(&Customer::key("c-002")?);
    let items: Vec<CustomerItems> = db.stream(collection).try_collect().await?;
    let totals: Vec<u64> = items
        .iter()
        .filter_map(|item| match item {
            CustomerItems::Order(order) => Some(order.total_cents),
            CustomerItems::Customer(_) => None,
        })
        .collect();
    if let Some(CustomerItems::Customer(customer)) = items.first() {
        let spent: u64 = totals.iter().sum();
        println!(
            "{} ({}) has {} orders totalling {spent} cents, read with one query",
            customer.name,
            customer.id,
            totals.len()
        );
    }

    // The sparse index holds only open orders, oldest first, and of them only their keys: the
    // read hydrates them, one BatchGetItem for up to 100 orders, in the index's order.
    let open_orders = db.stream(Order::query_open_orders().hydrate());
    let stats = open_orders.stats().clone();
    let open: Vec<Order> = open_orders.try_collect().await?;
    println!(
        "{} open orders ({} query, {} BatchGetItem); the oldest:",
        open.len(),
        stats.requests(),
        stats.hydration_requests()
    );
    for order in open.iter().take(3) {
        println!(
            "  {} order {} ({} cents)",
            order.opened_at.as_deref().unwrap_or("?"),
            order.number,
            order.total_cents
        );
    }

    // Closing an order removes it from the index: the update drops its index keys.
    if let Some(oldest) = open.first() {
        let key = Order::key(&oldest.customer, oldest.number)?;
        db.update(key).set(Order::fields().opened_at, None).await?;
        let still_open: Vec<Order> = db.stream(Order::query_open_orders().hydrate()).try_collect().await?;
        println!("closed order {}; {} remain open", oldest.number, still_open.len());
    }

    // A page of open orders with a cursor, as an API would serve it.
    let query = Order::query_open_orders().hydrate().page_size(10);
    let first_page = db.page(&query, None).await?;
    let second_page = db.page(&query, first_page.cursor.as_deref()).await?;
    println!(
        "pages of open orders: {} + {} items, next cursor: {}",
        first_page.items.len(),
        second_page.items.len(),
        second_page.cursor.as_deref().map_or("none", |c| &c[..c.len().min(24)])
    );

    // A customer's five largest orders, read as a view from the index that holds just that.
    let largest =
        db.page(&Order::query_by_amount("c-001").view::<OrderLine>().descending().limit(5), None).await?;
    let lines: Vec<String> =
        largest.items.iter().map(|line| format!("#{} ({} cents)", line.number, line.total_cents)).collect();
    println!("largest orders of c-001: {}", lines.join(", "));

    // Vertical partitioning: stock changes without rewriting the product details.
    let sku = "kettle-1";
    db.put(&Product { sku: sku.into(), name: "Kettle".into(), description: "1.7 l, brushed steel".into() })
        .await?;
    db.put(&Inventory { sku: sku.into(), in_stock: 40 }).await?;
    for _ in 0..3 {
        db.update(Inventory::key(sku)?).add(Inventory::fields().in_stock, -1).await?;
    }
    let product: Vec<ProductItems> =
        db.stream(ProductItems::query(&Product::key(sku)?)).try_collect().await?;
    for item in &product {
        match item {
            ProductItems::Details(details) => {
                println!("product {}: {} ({})", details.sku, details.name, details.description)
            }
            ProductItems::Stock(stock) => println!("  in stock: {}", stock.in_stock),
        }
    }
    Ok(())
}
