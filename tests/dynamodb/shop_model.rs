//! A shop table with a sparse index of open orders, for index tests.

use dynashard::{Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "ShopTests", pk = "pk", sk = "sk")]
#[gsi(ByRegion(pk = "region_pk", sk = "region_sk"))]
#[gsi(OpenOrders(pk = "open_pk", sk = "open_sk"))]
#[gsi(BigOrders(pk = "big_pk", sk = "big_sk"))]
#[gsi(ByStatus(pk = ["carrier"], sk = ["status", "weight:N"]))]
#[gsi(Pending(pk = ["carrier"], sk = ["pending_since:N"]))]
pub struct Shop;

/// Orders of a customer; open orders (with `opened_at`) are also in the sparse `OpenOrders`
/// index, big ones in the predicate-sparse `BigOrders` index.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Shop, pk = "customer#{customer}", sk = "order#{id}")]
#[gsi(ByRegion(pk = "region#{region}", sk = "{placed}#{id}"))]
#[sparse_gsi(OpenOrders(pk = "open#{shard}", sk = "{opened_at}#{customer}#{id}"))]
#[sparse_gsi(BigOrders(pk = "big#{customer}", sk = "{total}", when = Order::is_big))]
pub struct Order {
    pub customer: String,
    pub id: u32,
    pub region: String,
    pub placed: String,
    pub shard: String,
    pub opened_at: Option<String>,
    pub total: u64,
}

impl Order {
    fn is_big(&self) -> bool {
        self.total >= 1000
    }
}

/// Vertical partitioning: a product's slowly changing details in the `!` item...
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Shop, pk = "product#{sku}", sk = "!")]
pub struct Product {
    pub sku: String,
    pub name: String,
    pub description: String,
}

/// ...and its fast-changing stock in the `inventory` item, under the same partition key.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Shop, pk = "product#{sku}", sk = "inventory")]
pub struct Inventory {
    pub sku: String,
    pub in_stock: u32,
}

/// Both halves of a product, read with one query.
#[derive(dynashard::Collection, Debug, PartialEq)]
pub enum ProductItems {
    Details(Product),
    Stock(Inventory),
}

/// A shipment, indexed on its own attributes: a multi-attribute key where `weight` stays a
/// number, and a sparse index of pending shipments.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Shop, pk = "shipment#{id}", sk = "shipment")]
#[gsi(ByStatus(pk = [carrier], sk = [status, weight]))]
#[sparse_gsi(Pending(pk = [carrier], sk = [pending_since]))]
pub struct Shipment {
    pub id: u32,
    pub carrier: String,
    pub status: String,
    pub weight: u32,
    pub pending_since: Option<u64>,
}
