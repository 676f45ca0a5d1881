//! Writes that are sent after they were built, during a resharding: a transaction built before
//! dual writes began is refused and goes through when built again, a batch write retrying across
//! the start stops and hands its writes back, and an update inside a transaction moves its item
//! in the new layout too.

use crate::{db, unique};
use dynashard::metadata::ShardMetadata;
use dynashard::reshard::{Backfill, Layout};
use dynashard::{Db, Entity, Error, RetryPolicy, Table};
use dynashard_local::faults::FaultInjector;
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use std::time::Duration;

const METADATA: &str = "ReshardWritesMetadata";
const CACHE: Duration = Duration::from_millis(100);

#[derive(Table)]
#[table(
    name = "ReshardWritesTests",
    pk = "pk",
    sk = "sk",
    shard_metadata = "ReshardWritesMetadata",
    stream = "new_image"
)]
#[gsi(ByShelf(pk = "shelf_pk", sk = "shelf_sk"))]
#[gsi(ByShelfNext(pk = "next_pk", sk = "next_sk"))]
struct Library;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[entity(table = Library, pk = "book#{isbn}", sk = "book")]
#[gsi(ByShelf(pk = "shelf#{shelf}", sk = "{isbn}"))]
#[shard(ByShelf(hash = 4, by = isbn))]
struct Book {
    isbn: String,
    shelf: String,
}

/// A `Db` with a shard metadata cache of its own: another process, as far as caching goes.
async fn process(table: &str) -> Db {
    let db = db()
        .await
        .with_table_name::<Library>(table)
        .expect("a valid table name")
        .with_shard_metadata(ShardMetadata::new(METADATA).cache_for(CACHE));
    db.create_table::<Library>().await.unwrap();
    db.create_shard_metadata_table().await.unwrap();
    db
}

async fn shelf(db: &Db, shelf: &str) -> Vec<Book> {
    db.stream(Book::query_by_shelf(shelf)).try_collect().await.unwrap()
}

#[tokio::test]
async fn a_transaction_built_before_dual_writes_is_refused_then_built_again() {
    let table = unique("ReshardTx");
    let (writer, operator) = (process(&table).await, process(&table).await);
    let book = Book { isbn: unique("isbn"), shelf: unique("shelf") };
    writer.resolve_shards(&book).await.unwrap(); // the writer knows of no resharding
    let built_early = writer.transaction().put(&book);

    operator
        .start_resharding::<Book>(Library::BY_SHELF, Library::BY_SHELF_NEXT, Layout::hash(8))
        .await
        .unwrap();
    tokio::time::sleep(CACHE * 2).await;
    let refused = built_early.await;
    assert!(
        matches!(&refused, Err(Error::Resharding { reason, .. }) if reason.contains("send it again")),
        "{refused:?}"
    );
    writer.transaction().put(&book).await.expect("built again, for dual writes");

    operator.backfill::<Book>(Library::BY_SHELF, Backfill::default()).await.unwrap();
    let state = operator.resharding::<Book>(Library::BY_SHELF).await.unwrap().unwrap();
    assert_eq!(state.backfill_totals(), (1, 0), "the transaction's put was dual-written");
}

#[tokio::test]
async fn an_update_in_a_transaction_moves_its_item_in_the_new_layout() {
    let table = unique("ReshardTxUpdate");
    let db = process(&table).await;
    let (old_shelf, new_shelf) = (unique("shelf"), unique("shelf"));
    let books: Vec<Book> =
        (0..6).map(|n| Book { isbn: format!("{}-{n}", unique("isbn")), shelf: old_shelf.clone() }).collect();
    db.batch_put(&books).await.unwrap();
    db.start_resharding::<Book>(Library::BY_SHELF, Library::BY_SHELF_NEXT, Layout::hash(8)).await.unwrap();
    db.backfill::<Book>(Library::BY_SHELF, Backfill::default()).await.unwrap();

    let moved = &books[2];
    let key = Book::key(&moved.isbn).unwrap();
    db.transaction().update(db.update(key).set(Book::fields().shelf, new_shelf.clone())).await.unwrap();

    assert!(db
        .verify_resharding::<Book>(Library::BY_SHELF, dynashard::reshard::Verify::default())
        .await
        .unwrap()
        .is_clean());

    db.cut_over::<Book>(Library::BY_SHELF).await.unwrap();
    tokio::time::sleep(CACHE * 2).await;
    let expected = Book { isbn: moved.isbn.clone(), shelf: new_shelf.clone() };
    assert_eq!(shelf(&db, &new_shelf).await, [expected], "read from the new layout");
    assert_eq!(shelf(&db, &old_shelf).await.len(), 5, "and no longer at its old place");
}

#[tokio::test]
async fn a_batch_write_retrying_across_a_resharding_step_stops_with_its_writes() {
    let table = unique("ReshardBatch");
    let operator = process(&table).await;
    // Every attempt hands the write back unprocessed, so the batch keeps retrying.
    let faults = FaultInjector::new(7).unprocessed(1.0).only(&["BatchWriteItem"]).without_sdk_retries();
    let endpoint = dynashard_local::shared_endpoint().await.unwrap();
    let writer = Db::new(faults.client_for_endpoint(&endpoint))
        .with_streams_client(dynashard::client::streams_client_for_endpoint(&endpoint))
        .with_table_name::<Library>(&table)
        .expect("a valid table name")
        .with_shard_metadata(ShardMetadata::new(METADATA).cache_for(CACHE))
        .with_retry_policy(RetryPolicy::new(40, Duration::from_millis(50), Duration::from_millis(50)));
    let book = Book { isbn: unique("isbn"), shelf: unique("shelf") };
    let retrying = tokio::spawn(async move { writer.batch_put(std::slice::from_ref(&book)).await });
    tokio::time::sleep(CACHE).await;
    operator
        .start_resharding::<Book>(Library::BY_SHELF, Library::BY_SHELF_NEXT, Layout::hash(8))
        .await
        .unwrap();

    let stopped = retrying.await.unwrap();
    match &stopped {
        Err(Error::BatchIncomplete { unprocessed, last_error, .. }) => {
            assert_eq!(unprocessed.len(), 1, "the write is handed back, to send again");
            assert!(matches!(last_error.as_deref(), Some(Error::Resharding { .. })), "{stopped:?}");
        }
        _ => panic!("a batch stopped by the resharding: {stopped:?}"),
    }
    assert!(faults.stats().total().attempts < 40, "it stopped before its retries ran out");
}

#[tokio::test]
async fn a_process_given_no_shard_metadata_still_dual_writes() {
    let table = unique("ReshardUnconfigured");
    let operator = process(&table).await;
    // Another process, told nothing of shard metadata: the table declares where it lives.
    let writer = db().await.with_table_name::<Library>(&table).expect("a valid table name");
    assert!(matches!(writer.shard_metadata(), Err(Error::ShardMetadataNotConfigured)));
    operator
        .start_resharding::<Book>(Library::BY_SHELF, Library::BY_SHELF_NEXT, Layout::hash(8))
        .await
        .unwrap();
    operator.backfill::<Book>(Library::BY_SHELF, Backfill::default()).await.unwrap();

    // Written after the backfill: only the writer's own dual write places it in the new layout.
    let book = Book { isbn: unique("isbn"), shelf: unique("shelf") };
    writer.put(&book).await.unwrap();
    assert!(operator
        .verify_resharding::<Book>(Library::BY_SHELF, dynashard::reshard::Verify::default())
        .await
        .unwrap()
        .is_clean());
    operator.cut_over::<Book>(Library::BY_SHELF).await.unwrap();
    tokio::time::sleep(CACHE * 2).await;
    assert_eq!(shelf(&operator, &book.shelf).await, [book], "readable from the new layout");
}

#[derive(Table)]
#[table(name = "ReshardUndeclaredTests", pk = "pk", sk = "sk")]
#[gsi(ByShelf(pk = "shelf_pk", sk = "shelf_sk"))]
#[gsi(ByShelfNext(pk = "next_pk", sk = "next_sk"))]
struct Undeclared;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[entity(table = Undeclared, pk = "book#{isbn}", sk = "book")]
#[gsi(ByShelf(pk = "shelf#{shelf}", sk = "{isbn}"))]
#[shard(ByShelf(hash = 4, by = isbn))]
struct LooseBook {
    isbn: String,
    shelf: String,
}

#[tokio::test]
async fn a_table_declaring_no_shard_metadata_cannot_be_resharded() {
    // Even through a `Db` given shard metadata: another process writing the table could not know.
    let db = db().await.with_shard_metadata(ShardMetadata::new(METADATA));
    let refused = db
        .start_resharding::<LooseBook>(Undeclared::BY_SHELF, Undeclared::BY_SHELF_NEXT, Layout::hash(8))
        .await;
    assert!(
        matches!(refused, Err(Error::ShardMetadataUndeclared { table: "ReshardUndeclaredTests" })),
        "{refused:?}"
    );
    let unknown = db.resharding::<LooseBook>(Undeclared::BY_SHELF).await;
    assert!(matches!(unknown, Err(Error::ShardMetadataUndeclared { .. })), "{unknown:?}");
}
