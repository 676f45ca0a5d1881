//! One batch write of several entity types of a table: puts and deletes of each, checked
//! together, leftovers handed back with their types, and resent typed.

use crate::shop_model::*;
use crate::{db, unique};
use dynashard::{Db, Error, Key, RetryPolicy, Unprocessed};
use dynashard_local::faults::FaultInjector;
use std::time::Duration;

fn product(sku: &str) -> Product {
    Product { sku: sku.to_owned(), name: format!("name of {sku}"), description: "a thing".into() }
}

fn stock(sku: &str, in_stock: u32) -> Inventory {
    Inventory { sku: sku.to_owned(), in_stock }
}

/// Products and stock of `n` new skus.
fn catalogue(n: usize) -> (Vec<Product>, Vec<Inventory>) {
    let skus: Vec<String> = (0..n).map(|_| unique("sku")).collect();
    (skus.iter().map(|sku| product(sku)).collect(), skus.iter().map(|sku| stock(sku, 7)).collect())
}

async fn stored(db: &Db, products: &[Product], stock: &[Inventory]) -> (usize, usize) {
    let found = db.batch_get(products.iter().map(|p| Key::of(p).unwrap())).consistent().await.unwrap();
    let counted = db.batch_get(stock.iter().map(|s| Key::of(s).unwrap())).consistent().await.unwrap();
    (found.iter().flatten().count(), counted.iter().flatten().count())
}

#[tokio::test]
async fn products_and_their_stock_are_written_and_deleted_in_one_call() {
    let db = db().await;
    let (products, stock) = catalogue(40);
    db.table_batch::<Shop>().put_all(&products).put_all(&stock).concurrency(4).await.unwrap();
    assert_eq!(stored(&db, &products, &stock).await, (40, 40));
    let read = db.batch_get(products.iter().map(|p| Key::of(p).unwrap())).await.unwrap();
    assert!(read.iter().zip(&products).all(|(read, product)| read.as_ref() == Some(product)));

    // Deletes of one type and puts of another, in one call.
    let restocked: Vec<Inventory> = stock.iter().map(|s| stock_of(s, 9)).collect();
    let gone = products[..10].iter().map(|p| Key::of(p).unwrap());
    db.table_batch::<Shop>().delete_all(gone).put_all(&restocked).await.unwrap();
    assert_eq!(stored(&db, &products, &stock).await, (30, 40));
    let read = db.batch_get(stock.iter().map(|s| Key::of(s).unwrap())).await.unwrap();
    assert!(read.iter().flatten().all(|s| s.in_stock == 9), "replaced");

    // Two writes of one key, whatever their types, are refused before anything is sent.
    let twice = [product(&products[0].sku), product(&products[0].sku)];
    let error = db.table_batch::<Shop>().put(&twice[0]).put_all(&stock).put(&twice[1]).await.unwrap_err();
    assert!(matches!(error, Error::DuplicateBatchKey { .. }), "{error:?}");
    let error =
        db.table_batch::<Shop>().put(&twice[0]).delete(Key::of(&twice[0]).unwrap()).await.unwrap_err();
    assert!(matches!(error, Error::DuplicateBatchKey { .. }), "{error:?}");
}

fn stock_of(stock: &Inventory, in_stock: u32) -> Inventory {
    Inventory { in_stock, ..stock.clone() }
}

#[tokio::test]
async fn leftovers_keep_their_types_and_are_resent_typed() {
    db().await; // creates the tables
    let endpoint = dynashard_local::shared_endpoint().await.unwrap();
    let faults = FaultInjector::new(31).throttling(1.0).without_sdk_retries();
    let tiny = RetryPolicy::new(2, Duration::from_millis(1), Duration::from_millis(1));
    let faulty = Db::new(faults.client_for_endpoint(&endpoint)).with_retry_policy(tiny);
    let db = db().await;
    let (products, stock) = catalogue(20);
    db.batch_put(&products[10..]).await.unwrap();

    let gone = products[10..].iter().map(|p| Key::of(p).unwrap());
    let batch = faulty.table_batch::<Shop>().put_all(&products[..10]).put_all(&stock).delete_all(gone);
    let error = batch.await.unwrap_err();
    let Error::BatchIncomplete { unprocessed, unknown, succeeded, .. } = &error else { panic!("{error:?}") };
    assert!(unknown.is_empty(), "DynamoDB answered every request: {error}");
    let Unprocessed::Writes { puts, deletes } = unprocessed else { panic!("{error:?}") };
    // Every request throttled: nothing written, every write handed back.
    assert_eq!((puts.len(), deletes.len(), *succeeded), (30, 10, 0), "{error}");

    // Typed as one type only, the leftovers of the other are refused, not dropped.
    let refused = db.table_batch::<Shop>().resend::<Product>(unprocessed).map(drop).unwrap_err();
    assert!(
        matches!(refused, Error::UnknownEntityType { found: Some(ref found), .. } if found == "Inventory")
    );
    assert!(matches!(db.resend::<Product>(unprocessed).map(drop), Err(Error::WrongEntityType { .. })));
    assert_eq!(unprocessed.keys_as::<Inventory>(), [], "the deletes are of products only");

    db.table_batch::<Shop>().resend::<(Product, Inventory)>(unprocessed).unwrap().await.unwrap();
    assert_eq!(stored(&db, &products[..10], &stock).await, (10, 20), "every put resent as its type");
    assert_eq!(stored(&db, &products[10..], &[]).await, (0, 0), "and every delete");
}
