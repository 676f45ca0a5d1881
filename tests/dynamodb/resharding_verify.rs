//! Verification before the cut-over: seeded faults (an item dropped from the target, an entry of an
//! item the sparse source does not hold, an item in the wrong target shard) are each reported once, by key,
//! block the cut-over until repaired, and are repaired; a verification that was interrupted
//! resumes; the cut-over can be reversed and made again, every item read once and in order.

use crate::{unique, Own};
use aws_sdk_dynamodb::types::AttributeValue;
use dynashard::metadata::ShardMetadata;
use dynashard::reshard::{Backfill, CutOver, Layout, Phase, Verify};
use dynashard::{Db, Entity, Error, PrimaryKey, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use std::time::Duration;

#[derive(Table)]
#[table(
    name = "ReshardVerifyTests",
    pk = "pk",
    sk = "sk",
    shard_metadata = "ReshardVerifyMetadata",
    stream = "new_image"
)]
#[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
#[gsi(ByTitleNext(pk = "next_pk", sk = "next_sk"))]
struct Shelves;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[entity(table = Shelves, pk = "{shelf}", sk = "record#{title}")]
#[sparse_gsi(ByTitle(pk = "titles#{shelf}", sk = "{label}#{title}"))]
#[shard(ByTitle(hash = 16, by = title))]
struct Record {
    shelf: String,
    title: String,
    /// Listed by it while it has one.
    label: Option<String>,
}

async fn backfilled(own: &Own, table: &str, shelf: &str, items: usize) -> (Db, Vec<Record>) {
    let db = own.db().with_table_name::<Shelves>(table).expect("a valid table name").with_shard_metadata(
        ShardMetadata::new("ReshardVerifyMetadata").cache_for(Duration::from_millis(100)),
    );
    db.create_table::<Shelves>().await.unwrap();
    let records: Vec<Record> = (0..items)
        .map(|n| Record {
            shelf: shelf.to_owned(),
            title: format!("t{n:04}"),
            label: Some(format!("t{n:04}")),
        })
        .collect();
    db.batch_put(&records).await.unwrap();
    db.start_resharding::<Record>(Shelves::BY_TITLE, Shelves::BY_TITLE_NEXT, Layout::hash(32)).await.unwrap();
    db.backfill::<Record>(Shelves::BY_TITLE, Backfill::default().segments(2)).await.unwrap();
    (db, records)
}

fn key(shelf: &str, title: &str) -> PrimaryKey {
    PrimaryKey { pk: shelf.to_owned(), sk: Some(format!("record#{title}")) }
}

fn raw_key(shelf: &str, title: &str) -> std::collections::HashMap<String, AttributeValue> {
    [("pk", shelf.to_owned()), ("sk", format!("record#{title}"))]
        .map(|(name, value)| (name.to_owned(), AttributeValue::S(value)))
        .into()
}

async fn listed(db: &Db, shelf: &str) -> Vec<Record> {
    db.stream(Record::query_by_title(shelf)).try_collect().await.unwrap()
}

#[tokio::test]
async fn seeded_faults_are_reported_once_block_the_cut_over_and_are_repaired() {
    let (table, shelf) = (unique("ReshardVerify"), unique("verify"));
    let own = crate::own().await;
    let (db, records) = backfilled(&own, &table, &shelf, 120).await;
    let clean = db.verify_resharding::<Record>(Shelves::BY_TITLE, Verify::default()).await.unwrap();
    assert_eq!((clean.found(), clean.scanned), (0, 240), "each item read once from each index");

    // Three faults, written behind dynashard's back.
    let update =
        |title: &str| db.client().update_item().table_name(&table).set_key(Some(raw_key(&shelf, title)));
    update("t0007").update_expression("REMOVE next_pk, next_sk").send().await.unwrap();
    let wrong = format!("titles#{shelf}#{}", (dynashard::shard::hash_shard("t0042", 32) + 1) % 32);
    update("t0042")
        .update_expression("SET next_pk = :wrong")
        .expression_attribute_values(":wrong", AttributeValue::S(wrong))
        .send()
        .await
        .unwrap();
    // An item whose own fields keep it out of the (sparse) source, still in the target.
    let stray = [
        ("pk", shelf.clone()),
        ("sk", "record#stray".to_owned()),
        ("_type", "Record".to_owned()),
        ("shelf", shelf.clone()),
        ("title", "stray".to_owned()),
        ("next_pk", format!("titles#{shelf}#3")),
        ("next_sk", "stray".to_owned()),
    ]
    .map(|(name, value)| (name.to_owned(), AttributeValue::S(value)));
    db.client().put_item().table_name(&table).set_item(Some(stray.into())).send().await.unwrap();

    let found =
        db.verify_resharding::<Record>(Shelves::BY_TITLE, Verify::default().segments(3)).await.unwrap();
    assert_eq!(found.missing, [key(&shelf, "t0007")]);
    assert_eq!(found.misplaced, [key(&shelf, "t0042")]);
    assert_eq!(found.extra, [key(&shelf, "stray")]);
    assert_eq!((found.repaired, found.is_clean()), (0, false));
    let refused = db.cut_over::<Record>(Shelves::BY_TITLE).await.unwrap_err();
    assert!(
        matches!(&refused, Error::Resharding { reason, .. } if reason.contains("did not repair")),
        "{refused:?}"
    );

    let repaired =
        db.verify_resharding::<Record>(Shelves::BY_TITLE, Verify::default().repair()).await.unwrap();
    assert_eq!((repaired.found(), repaired.repaired), (3, 3), "{repaired:?}");
    assert!(repaired.is_clean());
    let again = db.verify_resharding::<Record>(Shelves::BY_TITLE, Verify::default()).await.unwrap();
    assert_eq!(again.found(), 0, "{again:?}");

    // Cut over, reverse, cut over again: every item once, in order, each time.
    let cut = db.cut_over::<Record>(Shelves::BY_TITLE).await.unwrap();
    assert_eq!(cut.phase, Phase::CutOver);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(listed(&db, &shelf).await, records, "from the target");
    let reversed = db.reverse_cut_over::<Record>(Shelves::BY_TITLE).await.unwrap();
    assert_eq!(reversed.phase, Phase::Backfilled);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(listed(&db, &shelf).await, records, "from the source again");
    let late = Record { shelf: shelf.clone(), title: "t9999".into(), label: Some("t9999".into()) };
    db.put(&late).await.unwrap();
    let refused = db.cut_over::<Record>(Shelves::BY_TITLE).await.unwrap_err();
    assert!(
        matches!(&refused, Error::Resharding { reason, .. } if reason.contains("no verification")),
        "a reverse forgets it"
    );
    assert!(db.verify_resharding::<Record>(Shelves::BY_TITLE, Verify::default()).await.unwrap().is_clean());
    db.cut_over::<Record>(Shelves::BY_TITLE).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut expected = records.clone();
    expected.push(late);
    assert_eq!(listed(&db, &shelf).await, expected, "from the target again, with what was written meanwhile");
}

#[tokio::test]
async fn a_cut_over_needs_a_verification_unless_forced_and_an_interrupted_one_resumes() {
    let (table, shelf) = (unique("ReshardVerifyResume"), unique("resume"));
    let own = crate::own().await;
    let (db, records) = backfilled(&own, &table, &shelf, 200).await;
    let refused = db.cut_over::<Record>(Shelves::BY_TITLE).await.unwrap_err();
    assert!(
        matches!(&refused, Error::Resharding { reason, .. } if reason.contains("no verification")),
        "{refused:?}"
    );

    // A dropped place, then a verification killed after its first pages.
    let raw = db.client().update_item().table_name(&table).set_key(Some(raw_key(&shelf, "t0150")));
    raw.update_expression("REMOVE next_pk, next_sk").send().await.unwrap();
    let interrupted = {
        let db = db.clone();
        tokio::spawn(async move {
            db.verify_resharding::<Record>(Shelves::BY_TITLE, Verify::default().segments(1).page_size(10))
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(150)).await;
    interrupted.abort();
    let resumed = db
        .verify_resharding::<Record>(Shelves::BY_TITLE, Verify::default().segments(1).page_size(10))
        .await
        .unwrap();
    assert_eq!(resumed.scanned, 400 - 1, "each item once per side, over both runs");
    assert_eq!(resumed.missing, [key(&shelf, "t0150")], "reported once");

    let forced = db.cut_over_with::<Record>(Shelves::BY_TITLE, CutOver::default().force()).await.unwrap();
    assert_eq!(forced.phase, Phase::CutOver);
    tokio::time::sleep(Duration::from_millis(200)).await;
    // The fault was itself a write, in the change log: the cut-over's catch-up placed the item.
    assert_eq!(listed(&db, &shelf).await, records);
}

#[tokio::test]
async fn the_catch_up_takes_an_item_that_left_the_sparse_source_out_of_the_target() {
    let (table, shelf) = (unique("ReshardStray"), unique("stray"));
    let own = crate::own().await;
    let (db, _) = backfilled(&own, &table, &shelf, 20).await;
    // A writer that knows nothing of the resharding clears the label: the item leaves the
    // sparse source index, and its place in the target stays behind.
    let raw = db.client().update_item().table_name(&table).set_key(Some(raw_key(&shelf, "t0003")));
    raw.update_expression("REMOVE label, title_pk, title_sk").send().await.unwrap();
    let pass = db.catch_up::<Record>(Shelves::BY_TITLE).await.unwrap();
    assert!(pass.placed >= 1, "{pass:?}");
    let item = db.client().get_item().table_name(&table).set_key(Some(raw_key(&shelf, "t0003")));
    let item = item.consistent_read(true).send().await.unwrap().item.unwrap();
    assert!(!item.contains_key("next_pk") && !item.contains_key("next_sk"), "{item:?}");
    let found = db.verify_resharding::<Record>(Shelves::BY_TITLE, Verify::default()).await.unwrap();
    assert_eq!(found.found(), 0, "{found:?}");
}

/// A verification starts by writing its header alone: the records an earlier run left under the
/// same segment keys are not taken for its own when it resumes. Here the first run's were all
/// done and clean, one of them marked not done by a writer outside dynashard so that the second
/// run resumes rather than starts again: taken for its own, they would hide faults made since.
#[tokio::test]
async fn a_resumed_verification_does_not_take_an_earlier_runs_records_for_its_own() {
    let (table, shelf) = (unique("ReshardVerifyRuns"), unique("runs"));
    let own = crate::own().await;
    let (db, _) = backfilled(&own, &table, &shelf, 100).await;
    let options = || Verify::default().segments(4).page_size(10);
    let first = db.verify_resharding::<Record>(Shelves::BY_TITLE, options()).await.unwrap();
    assert!(first.is_clean() && first.scanned == 200, "{first:?}");

    // Every item loses its place in the target.
    for n in 0..100 {
        let raw =
            db.client().update_item().table_name(&table).set_key(Some(raw_key(&shelf, &format!("t{n:04}"))));
        raw.update_expression("REMOVE next_pk, next_sk").send().await.unwrap();
    }
    // A second run, begun and stopped at once (its deadline passed).
    let past = std::time::SystemTime::now() - Duration::from_secs(1);
    let stopped = db.verify_resharding::<Record>(Shelves::BY_TITLE, options().stop_by(past)).await.unwrap();
    assert!(!stopped.finished && stopped.scanned == 0, "{stopped:?}");
    let scan = db.client().scan().table_name("ReshardVerifyMetadata").into_paginator().items().send();
    let metadata: Vec<_> = scan.collect::<Vec<_>>().await.into_iter().map(Result::unwrap).collect();
    let partition = |item: &std::collections::HashMap<String, AttributeValue>| {
        item.get("partition").and_then(|key| key.as_s().ok()).cloned().unwrap_or_default()
    };
    let first_segment = metadata
        .iter()
        .map(partition)
        .find(|key| key.starts_with("verify/") && key.contains(&table) && key.ends_with("/source/0"));
    let first_segment = first_segment.expect("the first run's record of its first source segment");
    let marked = db.client().update_item().table_name("ReshardVerifyMetadata");
    let marked =
        marked.key("partition", AttributeValue::S(first_segment)).update_expression("SET done = :no");
    marked.expression_attribute_values(":no", AttributeValue::Bool(false)).send().await.unwrap();

    let resumed = db.verify_resharding::<Record>(Shelves::BY_TITLE, options()).await.unwrap();
    assert_eq!(resumed.missing.len(), 100, "every segment read by the second run: {resumed:?}");
}
