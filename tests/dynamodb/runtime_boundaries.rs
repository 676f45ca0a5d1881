//! Range boundaries supplied at run time replace the compiled ones for writes, reads, pruning
//! and cursors. The entity is used by this file alone: boundaries are process-wide.

use crate::{db, unique};
use aws_sdk_dynamodb::types::AttributeValue;
use dynashard::query::CursorError;
use dynashard::shard::{Boundaries, Normalization};
use dynashard::{range_shards, use_boundaries};
use dynashard::{Db, Entity, Error, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "RuntimeBoundaryTests", pk = "pk", sk = "sk")]
#[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
struct Records;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Records, pk = "{shelf}", sk = "record#{title}")]
#[gsi(ByTitle(pk = "records", sk = "{title}"))]
#[shard(ByTitle(range = "tests/data/album_boundaries_21.json", by = title))]
struct Record {
    shelf: String,
    title: String,
}

const TITLES: &[&str] = &[
    "2 Pie Island",
    "Agartha",
    "Heavy Migration",
    "héavy",
    "Leaving Home",
    "Notice",
    "Space Cadet",
    "Zed",
    "голос",
    "ｈｅｌｌｏ",
];

async fn put_shelf(db: &Db, shelf: &str) {
    let records: Vec<Record> =
        TITLES.iter().map(|title| Record { shelf: shelf.to_owned(), title: title.to_string() }).collect();
    db.batch_put(&records).await.unwrap();
}

async fn stored_partition(db: &Db, shelf: &str, title: &str) -> String {
    let key = Record::key(shelf, title).unwrap();
    let item = db
        .client()
        .get_item()
        .table_name("RuntimeBoundaryTests")
        .key("pk", AttributeValue::S(key.pk().to_owned()))
        .key("sk", AttributeValue::S(key.sk().unwrap().to_owned()))
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    item["title_pk"].as_s().unwrap().clone()
}

async fn titles_on_shelf<F>(
    db: &Db,
    shelf: &str,
    query: dynashard::Query<Record, F>,
) -> (Vec<String>, usize) {
    let stream = db.stream(query);
    let stats = stream.stats().clone();
    let records: Vec<Record> = stream.try_collect().await.unwrap();
    let titles = records.into_iter().filter(|record| record.shelf == shelf).map(|record| record.title);
    (titles.collect(), stats.requests())
}

#[tokio::test]
async fn boundaries_replaced_at_run_time_route_writes_and_reads() {
    let db = db().await;
    db.create_table::<Records>().await.unwrap();
    let shards = range_shards::<Record>(Records::BY_TITLE).unwrap();
    let compiled = shards.compiled();
    assert_eq!(compiled.shards(), 21);
    assert_eq!(shards.current(), compiled);

    // Under the compiled boundaries: the seed's shard ids, and a cursor to outlive them.
    let before = unique("compiled");
    put_shelf(&db, &before).await;
    assert_eq!(stored_partition(&db, &before, "Heavy Migration").await, "records#7");
    let old_query = Record::query_by_title().page_size(1);
    assert_eq!(old_query.plan_shards().unwrap().partitions.len(), 21);
    let old_cursor = db.page(&old_query, None).await.unwrap().cursor.expect("more pages");

    let replaced =
        use_boundaries::<Record>(Records::BY_TITLE, Boundaries::from_json(r#"["", "h", "p"]"#).unwrap());
    assert_eq!(replaced.unwrap(), compiled);
    assert_eq!(shards.current().shards(), 3);

    let after = unique("runtime");
    put_shelf(&db, &after).await;
    for (title, partition) in [
        ("2 Pie Island", "records#0"),
        ("Agartha", "records#0"),
        ("Heavy Migration", "records#1"),
        ("ｈｅｌｌｏ", "records#1"),
        ("Space Cadet", "records#2"),
        ("голос", "records#2"),
    ] {
        assert_eq!(stored_partition(&db, &after, title).await, partition, "{title}");
    }

    // A listing reads the three new shards in order.
    let listing = Record::query_by_title();
    assert_eq!(listing.plan_shards().unwrap().partitions, ["records#0", "records#1", "records#2"]);
    let (titles, requests) = titles_on_shelf(&db, &after, listing).await;
    let mut expected: Vec<String> = TITLES.iter().map(|title| title.to_string()).collect();
    expected.sort_by_key(|title| (Normalization::NfkdLower.apply(title), title.clone()));
    assert_eq!(titles, expected);
    assert_eq!(requests, 3);

    // Pruning uses the new boundaries: "h" to "l" lies in shard 1 alone.
    let pruned = Record::query_by_title().between("h", "l");
    assert_eq!(pruned.plan_shards().unwrap().partitions, ["records#1"]);
    let (mut titles, requests) = titles_on_shelf(&db, &after, pruned).await;
    titles.sort();
    assert_eq!(titles, ["Heavy Migration", "héavy", "ｈｅｌｌｏ"], "\"leaving home\" is above \"l\"");
    assert_eq!(requests, 1);

    // A cursor from the compiled layout is refused by a query on the new one.
    let refused = db.page(&Record::query_by_title().page_size(1), Some(&old_cursor)).await;
    assert!(
        matches!(refused, Err(Error::InvalidCursor { reason: CursorError::LayoutChanged })),
        "{refused:?}"
    );

    // Back to the compiled boundaries: the first shelf's items are found where they were written.
    assert_eq!(shards.reset().shards(), 3);
    let (mut titles, _) = titles_on_shelf(&db, &before, Record::query_by_title().between("h", "i")).await;
    titles.sort();
    assert_eq!(titles, ["Heavy Migration", "héavy", "ｈｅｌｌｏ"]);
    let resumed = db.page(&old_query, Some(&old_cursor)).await;
    assert!(resumed.is_ok(), "the compiled layout accepts its own cursor again: {resumed:?}");
}

#[test]
fn only_range_sharded_indexes_have_boundaries() {
    // An index the table does not declare, or one of another table, does not compile.
    let hashed =
        range_shards::<crate::sharded_album::ShardedAlbum>(crate::sharded_album::ShardedMusic::BY_TITLE_HASH);
    assert!(matches!(hashed, Err(Error::NotRangeSharded { ref index, .. }) if index == "ByTitleHash"));
    let replaced = use_boundaries::<crate::model::Song>(
        crate::model::Music::GSI1,
        Boundaries::from_json(r#"[""]"#).unwrap(),
    );
    assert!(matches!(replaced, Err(Error::NotRangeSharded { entity: "Song", ref index }) if index == "GSI1"));
}
