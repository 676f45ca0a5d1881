//! Index key attributes on put and update, sparse indexes entering and leaving.

use crate::shop_model::*;
use crate::{db, unique};
use dynashard::{Db, Error, Item};
use futures::TryStreamExt;

fn order(customer: &str, id: u32, opened_at: Option<&str>, total: u64, shard: &str) -> Order {
    Order {
        customer: customer.into(),
        id,
        region: "eu".into(),
        placed: "2026-11-22".into(),
        shard: shard.into(),
        opened_at: opened_at.map(str::to_owned),
        total,
    }
}

async fn raw(db: &Db, key: &dynashard::Key<Order>) -> Item {
    db.client()
        .get_item()
        .table_name(db.table_name::<Shop>())
        .key("pk", aws_sdk_dynamodb::types::AttributeValue::S(key.pk().into()))
        .key("sk", aws_sdk_dynamodb::types::AttributeValue::S(key.sk().unwrap().into()))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
        .unwrap()
}

async fn open_ids(db: &Db, shard: &str) -> Vec<u32> {
    let orders: Vec<Order> = db.stream(Order::query_open_orders(shard)).try_collect().await.unwrap();
    orders.into_iter().map(|order| order.id).collect()
}

#[tokio::test]
async fn puts_write_index_keys_and_sparse_indexes_skip_absent_fields() {
    let db = db().await;
    let (customer, shard) = (unique("cust"), unique("shard"));
    db.put(&order(&customer, 1, Some("2026-11-01"), 10, &shard)).await.unwrap();
    db.put(&order(&customer, 2, None, 2000, &shard)).await.unwrap();
    let open = raw(&db, &Order::key(&customer, 1).unwrap()).await;
    assert_eq!(open["region_pk"].as_s().unwrap(), "region#eu");
    assert_eq!(open["open_pk"].as_s().unwrap(), &format!("open#{shard}"));
    assert_eq!(open["open_sk"].as_s().unwrap(), &format!("2026-11-01#{customer}#0000000001"));
    assert!(!open.contains_key("big_pk"), "the `when` predicate is false for small orders");
    let closed = raw(&db, &Order::key(&customer, 2).unwrap()).await;
    assert!(!closed.contains_key("open_pk") && !closed.contains_key("open_sk"));
    assert_eq!(closed["big_sk"].as_s().unwrap(), "00000000000000002000");
    assert_eq!(open_ids(&db, &shard).await, [1]);
    let big: Vec<Order> = db.stream(Order::query_big_orders(&customer)).try_collect().await.unwrap();
    assert_eq!(big.iter().map(|o| o.id).collect::<Vec<_>>(), [2]);
}

#[tokio::test]
async fn sparse_index_enter_and_leave_on_put() {
    let db = db().await;
    let (customer, shard) = (unique("cust"), unique("shard"));
    let mut item = order(&customer, 7, None, 5, &shard);
    db.put(&item).await.unwrap();
    assert!(open_ids(&db, &shard).await.is_empty());
    item.opened_at = Some("2026-11-02".into());
    db.put(&item).await.unwrap();
    assert_eq!(open_ids(&db, &shard).await, [7]);
    item.opened_at = None;
    db.put(&item).await.unwrap();
    assert!(open_ids(&db, &shard).await.is_empty());
}

#[tokio::test]
async fn sparse_index_enter_and_leave_on_update() {
    let db = db().await;
    let (customer, shard) = (unique("cust"), unique("shard"));
    db.put(&order(&customer, 3, None, 5, &shard)).await.unwrap();
    let key = Order::key(&customer, 3).unwrap();
    let fields = Order::fields();
    // Entering needs every non-key field of the index key: `opened_at` and `shard`.
    let incomplete = db.update(key.clone()).set(fields.opened_at, Some("2026-11-03".to_string())).await;
    assert!(matches!(incomplete, Err(Error::IndexKeyIncomplete { index: "OpenOrders", field: "shard", .. })));
    db.update(key.clone())
        .set(fields.opened_at, Some("2026-11-03".to_string()))
        .set(fields.shard, shard.clone())
        .await
        .unwrap();
    assert_eq!(open_ids(&db, &shard).await, [3]);
    let stored = raw(&db, &key).await;
    assert_eq!(stored["open_sk"].as_s().unwrap(), &format!("2026-11-03#{customer}#0000000003"));
    // Leaving: the index attributes are removed.
    db.update(key.clone()).set(fields.opened_at, None).set(fields.shard, shard.clone()).await.unwrap();
    assert!(open_ids(&db, &shard).await.is_empty());
    let stored = raw(&db, &key).await;
    assert!(!stored.contains_key("open_pk") && !stored.contains_key("open_sk"));
    db.update(key.clone()).remove(fields.opened_at).set(fields.shard, shard.clone()).await.unwrap();
    assert!(open_ids(&db, &shard).await.is_empty());
}

#[tokio::test]
async fn updates_recompute_plain_index_keys() {
    let db = db().await;
    let customer = unique("cust");
    db.put(&order(&customer, 4, None, 5, "s")).await.unwrap();
    let key = Order::key(&customer, 4).unwrap();
    let fields = Order::fields();
    db.update(key.clone())
        .set(fields.region, "us".to_string())
        .set(fields.placed, "2026-12-01".to_string())
        .await
        .unwrap();
    let stored = raw(&db, &key).await;
    assert_eq!(stored["region_pk"].as_s().unwrap(), "region#us");
    assert_eq!(stored["region_sk"].as_s().unwrap(), "2026-12-01#0000000004");
    let only_region = db.update(key.clone()).set(fields.region, "ap".to_string()).await;
    assert!(matches!(only_region, Err(Error::IndexKeyIncomplete { index: "ByRegion", field: "placed", .. })));
    let by_predicate = db.update(key.clone()).set(fields.total, 5000u64).await;
    assert!(matches!(by_predicate, Err(Error::IndexKeyIncomplete { index: "BigOrders", .. })));
    let added = db.update(key).add(fields.total, 1).await;
    assert!(matches!(added, Err(Error::IndexKeyIncomplete { index: "BigOrders", .. })), "{added:?}");
}
