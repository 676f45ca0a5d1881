//! Multi-attribute index keys: queries on an entity's own attributes, numbers as numbers.

use crate::shop_model::*;
use crate::{db, unique};
use dynashard::{Db, Error};
use futures::TryStreamExt;

async fn ids<F>(db: &Db, query: dynashard::Query<Shipment, F>) -> Vec<u32> {
    let shipments: Vec<Shipment> = db.stream(query).try_collect().await.unwrap();
    shipments.into_iter().map(|shipment| shipment.id).collect()
}

/// A distinct block of shipment ids for each carrier (`unique` ends with a counter).
fn id_base(carrier: &str) -> u32 {
    let counter: u32 = carrier.rsplit('-').next().and_then(|n| n.parse().ok()).unwrap_or(0);
    10_000 + counter * 10
}

async fn fleet(db: &Db) -> String {
    let carrier = unique("carrier");
    let rows = [
        (1, "sent", 9, None),
        (2, "sent", 10, Some(5)),
        (3, "sent", 100, None),
        (4, "held", 50, Some(3)),
        (5, "new", 1, Some(8)),
    ];
    for (id, status, weight, pending_since) in rows {
        let id = id + id_base(&carrier);
        let shipment =
            Shipment { id, carrier: carrier.clone(), status: status.into(), weight, pending_since };
        db.put(&shipment).await.unwrap();
    }
    carrier
}

#[tokio::test]
async fn multi_attribute_keys_order_numbers_as_numbers() {
    let db = db().await;
    let carrier = fleet(&db).await;
    let base = id_base(&carrier);
    let all = ids(&db, Shipment::query_by_status(&carrier)).await;
    assert_eq!(all, [4, 5, 1, 2, 3].map(|id| id + base), "status, then weight 9 < 10 < 100");
    let sent = ids(&db, Shipment::query_by_status(&carrier).eq("sent")).await;
    assert_eq!(sent, [1, 2, 3].map(|id| id + base));
    assert_eq!(
        ids(&db, Shipment::query_by_status(&carrier).eq("sent").between(9, 50)).await,
        [1, 2].map(|id| id + base)
    );
    assert_eq!(ids(&db, Shipment::query_by_status(&carrier).eq("sent").gt(10)).await, [3 + base]);
    assert_eq!(
        ids(&db, Shipment::query_by_status(&carrier).eq("sent").le(10).descending()).await,
        [2, 1].map(|id| id + base)
    );
    assert_eq!(ids(&db, Shipment::query_by_status(&carrier).begins_with("ne")).await, [5 + base]);
    assert_eq!(ids(&db, Shipment::query_by_status(&carrier).lt("sent")).await, [4, 5].map(|id| id + base));
}

#[tokio::test]
async fn sparse_multi_attribute_index_holds_only_present_values() {
    let db = db().await;
    let carrier = fleet(&db).await;
    let base = id_base(&carrier);
    assert_eq!(ids(&db, Shipment::query_pending(&carrier)).await, [4, 2, 5].map(|id| id + base));
    let key = Shipment::key(2 + base).unwrap();
    db.update(key).set(Shipment::fields().pending_since, None).await.unwrap();
    assert_eq!(ids(&db, Shipment::query_pending(&carrier)).await, [4, 5].map(|id| id + base));
}

#[tokio::test]
async fn native_pages_resume_and_empty_keys_are_rejected() {
    let db = db().await;
    let carrier = fleet(&db).await;
    let query = Shipment::query_by_status(&carrier).page_size(2);
    let first = db.page(&query, None).await.unwrap();
    let second = db.page(&query, first.cursor.as_deref()).await.unwrap();
    let third = db.page(&query, second.cursor.as_deref()).await.unwrap();
    assert_eq!(first.items.len() + second.items.len() + third.items.len(), 5);
    assert!(third.cursor.is_none());
    let empty =
        Shipment { id: 9, carrier: String::new(), status: "x".into(), weight: 1, pending_since: None };
    let error = db.put(&empty).await.unwrap_err();
    assert!(matches!(error, Error::InvalidKey { attribute: "carrier", .. }), "{error:?}");
    let error = db.stream(Shipment::query_by_status("")).try_collect::<Vec<_>>().await.unwrap_err();
    assert!(matches!(error, Error::InvalidQuery { .. }), "{error:?}");
}
