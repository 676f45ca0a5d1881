//! Online resharding: hash 16 to 32 and new range boundaries, phase by phase, under concurrent
//! writes and reads, with the backfill interrupted and resumed.

use crate::{unique, Own};
use aws_sdk_dynamodb::types::AttributeValue;
use dynashard::metadata::ShardMetadata;
use dynashard::reshard::{Backfill, Layout, Phase, Verify};
use dynashard::shard::{Boundaries, Normalization};
use dynashard::{Db, Entity, Error, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const METADATA: &str = "ReshardMetadataTests";

#[derive(Table)]
#[table(
    name = "ReshardTests",
    pk = "pk",
    sk = "sk",
    shard_metadata = "ReshardMetadataTests",
    stream = "new_image"
)]
#[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
#[gsi(ByTitleNext(pk = "next_pk", sk = "next_sk"))]
#[gsi(ByName(pk = "name_pk", sk = "name_sk"))]
#[gsi(ByNameNext(pk = "name_next_pk", sk = "name_next_sk"))]
struct Catalogue;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[entity(table = Catalogue, pk = "{shelf}", sk = "record#{title}")]
#[gsi(ByTitle(pk = "titles#{shelf}", sk = "{title}"))]
#[shard(ByTitle(hash = 16, by = title))]
#[gsi(ByName(pk = "names#{shelf}", sk = "{name}"))]
#[shard(ByName(range = "tests/data/album_boundaries_21.json", by = name))]
struct Record {
    shelf: String,
    title: String,
    name: String,
}

fn record(shelf: &str, n: usize) -> Record {
    let title = format!("t{n:06}");
    Record { shelf: shelf.to_owned(), name: format!("{} é {n}", ["Zed", "alpha", "Mid"][n % 3]), title }
}

async fn setup(own: &Own) -> Db {
    let db = own.db().with_shard_metadata(ShardMetadata::new(METADATA).cache_for(Duration::from_millis(200)));
    db.create_table::<Catalogue>().await.unwrap();
    db.create_shard_metadata_table().await.unwrap();
    db
}

async fn by_title(db: &Db, shelf: &str) -> Vec<Record> {
    db.stream(Record::query_by_title(shelf)).try_collect().await.unwrap()
}

/// Every item of the test table, or of one of its indexes, read raw.
async fn scan(db: &Db, index: Option<&str>) -> Vec<HashMap<String, AttributeValue>> {
    let request = db.client().scan().table_name("ReshardTests").set_index_name(index.map(str::to_owned));
    request.into_paginator().items().send().try_collect().await.unwrap()
}

/// How many items of `shelf` each index attribute pair holds, read raw.
async fn placed(db: &Db, shelf: &str, attribute: &str) -> usize {
    let items = scan(db, None).await;
    items
        .iter()
        .filter(|item| {
            item.get("pk") == Some(&AttributeValue::S(shelf.to_owned())) && item.contains_key(attribute)
        })
        .count()
}

#[tokio::test]
async fn hash_16_to_32_under_writes_and_reads_with_an_interrupted_backfill() {
    let own = crate::own().await;
    let db = setup(&own).await;
    let shelf = unique("reshard");
    let initial: Vec<Record> = (0..1_500).map(|n| record(&shelf, n)).collect();
    db.batch_put(&initial).await.unwrap();
    let written = Arc::new(Mutex::new(initial.clone()));

    let started = db
        .start_resharding::<Record>(Catalogue::BY_TITLE, Catalogue::BY_TITLE_NEXT, Layout::hash(32))
        .await
        .unwrap();
    assert_eq!(started.phase, Phase::DualWrites);
    let again = db
        .start_resharding::<Record>(Catalogue::BY_TITLE, Catalogue::BY_TITLE_NEXT, Layout::hash(32))
        .await
        .unwrap();
    assert_eq!(again.started, started.started, "starting it again is idempotent");

    // Writers and readers keep going through every phase.
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (db, shelf, written, stop) = (db.clone(), shelf.clone(), written.clone(), stop.clone());
        tokio::spawn(async move {
            let mut n = 1_500;
            while !stop.load(Ordering::Relaxed) {
                let item = record(&shelf, n);
                db.put(&item).await.unwrap();
                written.lock().unwrap().push(item);
                n += 1;
                tokio::time::sleep(Duration::from_millis(3)).await;
            }
        })
    };
    let reads = Arc::new(AtomicUsize::new(0));
    let reader = {
        let (db, shelf, written, stop, reads) =
            (db.clone(), shelf.clone(), written.clone(), stop.clone(), reads.clone());
        tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let before: Vec<Record> = written.lock().unwrap().clone();
                let read = by_title(&db, &shelf).await;
                assert!(read.windows(2).all(|pair| pair[0].title < pair[1].title), "in order, none twice");
                let missing = before
                    .iter()
                    .filter(|item| read.binary_search_by(|r| r.title.cmp(&item.title)).is_err())
                    .count();
                assert_eq!(missing, 0, "every item written before the read is read");
                reads.fetch_add(1, Ordering::Relaxed);
            }
        })
    };

    // A backfill stopped after its first pages, as if its process died, then run again.
    let pages = Arc::new(AtomicUsize::new(0));
    let interrupted = {
        let (db, pages) = (db.clone(), pages.clone());
        tokio::spawn(async move {
            let options = Backfill::default().segments(4).in_flight(4).on_progress(move |_| {
                pages.fetch_add(1, Ordering::Relaxed);
            });
            db.backfill::<Record>(Catalogue::BY_TITLE, options).await
        })
    };
    while pages.load(Ordering::Relaxed) < 2 && !interrupted.is_finished() {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    interrupted.abort();
    let halfway = db.resharding::<Record>(Catalogue::BY_TITLE).await.unwrap().unwrap();
    assert_eq!(halfway.phase, Phase::DualWrites, "interrupted before the end");
    let finished = halfway.segments.values().filter(|segment| segment.done).count();
    assert!(finished < 4, "some segment was cut short: {:?}", halfway.segments);

    let backfilled = db.backfill::<Record>(Catalogue::BY_TITLE, Backfill::default()).await.unwrap();
    assert_eq!(backfilled.phase, Phase::Backfilled);
    assert_eq!(backfilled.segments.len(), 4, "the resumed backfill kept the first run's segments");
    let (scanned, _) = backfilled.backfill_totals();
    assert!(scanned >= 1_500, "{scanned}");
    let (in_source, in_target) =
        (placed(&db, &shelf, "title_pk").await, placed(&db, &shelf, "next_pk").await);
    assert!(
        in_source >= 1_500 && in_target >= in_source,
        "every item has a target place: {in_source} {in_target}"
    );

    let verified = db.verify_resharding::<Record>(Catalogue::BY_TITLE, Verify::default()).await.unwrap();
    assert_eq!(verified.found(), 0, "{verified:?}");
    let cut = db.cut_over::<Record>(Catalogue::BY_TITLE).await.unwrap();
    assert_eq!(cut.phase, Phase::CutOver);
    tokio::time::sleep(Duration::from_millis(300)).await; // every reader sees the cut-over
    let reads_before_finish = reads.load(Ordering::Relaxed);

    let done = db.finish_resharding::<Record>(Catalogue::BY_TITLE, Backfill::default()).await.unwrap();
    assert_eq!(done.phase, Phase::Done);
    tokio::time::sleep(Duration::from_millis(100)).await;
    stop.store(true, Ordering::Relaxed);
    writer.await.unwrap();
    reader.await.unwrap();
    assert!(reads.load(Ordering::Relaxed) > reads_before_finish, "reads went on through the last phases");

    let mut all = written.lock().unwrap().clone();
    all.sort();
    assert_eq!(by_title(&db, &shelf).await, all, "the new layout holds everything, once, in order");
    assert_eq!(placed(&db, &shelf, "title_pk").await, 0, "the source layout was cleaned up");
    assert_eq!(placed(&db, &shelf, "next_pk").await, all.len());

    // The target's partitions are the new layout's 32 shards.
    let mut shards = std::collections::BTreeSet::new();
    let items = scan(&db, Some("ByTitleNext")).await;
    for item in items.iter().filter(|item| item.get("pk") == Some(&AttributeValue::S(shelf.clone()))) {
        let title = item["title"].as_s().unwrap();
        let expected = format!("titles#{shelf}#{}", dynashard::shard::hash_shard(title, 32));
        assert_eq!(item["next_pk"].as_s().unwrap(), &expected);
        shards.insert(expected);
    }
    assert_eq!(shards.len(), 32);
}

#[tokio::test]
async fn range_boundaries_are_replaced_online() {
    let own = crate::own().await;
    let db = setup(&own).await;
    let shelf = unique("reshard-range");
    let records: Vec<Record> = (0..300).map(|n| record(&shelf, n)).collect();
    db.batch_put(&records).await.unwrap();
    let boundaries = Boundaries::from_json(r#"["", "b", "n"]"#).unwrap();
    db.start_resharding::<Record>(Catalogue::BY_NAME, Catalogue::BY_NAME_NEXT, Layout::range(&boundaries))
        .await
        .unwrap();
    let late = record(&shelf, 300);
    db.put(&late).await.unwrap();
    db.update(Record::key(&shelf, &records[0].title).unwrap())
        .set(Record::fields().name, "beta")
        .await
        .unwrap();
    db.backfill::<Record>(Catalogue::BY_NAME, Backfill::default().segments(2)).await.unwrap();
    let paged = Record::query_by_name(&shelf).page_size(10);
    let first = db.page(&paged, None).await.unwrap();
    let before = first.cursor.expect("more pages");
    assert!(db.verify_resharding::<Record>(Catalogue::BY_NAME, Verify::default()).await.unwrap().is_clean());
    db.cut_over::<Record>(Catalogue::BY_NAME).await.unwrap();
    // A cursor of the old layout resumes in the new one, where the old page ended.
    let mut resumed = first.items;
    let mut cursor = Some(before);
    while let Some(at) = cursor {
        let page = db.page(&paged, Some(&at)).await.unwrap();
        resumed.extend(page.items);
        cursor = page.cursor;
    }

    let listed: Vec<Record> = db.stream(Record::query_by_name(&shelf)).try_collect().await.unwrap();
    let mut expected: Vec<Record> = records.iter().cloned().chain([late]).collect();
    expected[0].name = "beta".into();
    expected.sort_by_key(|r| (Normalization::NfkdLower.apply(&r.name), r.name.clone(), r.title.clone()));
    assert_eq!(listed, expected, "read from three new range shards, in order");
    assert_eq!(resumed, expected, "the first page read before the cut-over, the rest after it");
    let items = scan(&db, Some("ByNameNext")).await;
    let ours = items.iter().filter(|item| item.get("pk") == Some(&AttributeValue::S(shelf.clone())));
    for item in ours {
        let name = item["name"].as_s().unwrap();
        let shard = boundaries.shard(name, Normalization::NfkdLower);
        assert_eq!(item["name_next_pk"].as_s().unwrap(), &format!("names#{shelf}#{shard}"), "{name}");
    }
}

#[tokio::test]
async fn steps_out_of_order_and_bad_targets_are_refused() {
    let own = crate::own().await;
    let db = setup(&own).await;
    let refused = |result: Result<_, Error>| matches!(result, Err(Error::Resharding { .. }));
    assert!(refused(
        db.start_resharding::<Record>(Catalogue::BY_TITLE, Catalogue::BY_TITLE, Layout::hash(32)).await
    ));
    assert!(
        refused(
            db.start_resharding::<Record>(Catalogue::BY_NAME, Catalogue::BY_NAME_NEXT, Layout::hash(4)).await
        ),
        "range needs boundaries"
    );
    // A spare index, which `Record` does not map: nothing to reshard from. (An index the table
    // does not declare, or one of another table, does not compile.)
    assert!(refused(
        db.start_resharding::<Record>(Catalogue::BY_TITLE_NEXT, Catalogue::BY_NAME_NEXT, Layout::hash(4))
            .await
    ));
    assert!(refused(db.cut_over::<Record>(Catalogue::BY_TITLE_NEXT).await));
    assert!(refused(db.finish_resharding::<Record>(Catalogue::BY_TITLE_NEXT, Backfill::default()).await));
}
