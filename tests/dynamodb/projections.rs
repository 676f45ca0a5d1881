//! Reading through indexes that hold only some attributes: hydration (the full items by base
//! key, in the index's order, unsharded, merged over hash shards and through range shards, page
//! by page) and views (some fields, from an index that holds them or from the base table).

use crate::{db, unique};
use dynashard::{Db, Entity, Error, Table, View};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "ProjectionReads", pk = "pk", sk = "sk")]
#[gsi(Keys(pk = "keys_pk", sk = "keys_sk", projection = "keys_only"))]
#[gsi(Lines(pk = "lines_pk", sk = "lines_sk", projection = ["title", "n"]))]
#[gsi(Spread(pk = "spread_pk", sk = "spread_sk", projection = "keys_only"))]
#[gsi(Ranged(pk = "ranged_pk", sk = "ranged_sk", projection = "keys_only"))]
#[gsi(Whole(pk = "whole_pk", sk = "whole_sk", projection = ["group", "n", "title", "body"]))]
struct Records;

/// A record of about 500 bytes, indexed five ways by title.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Records, pk = "record#{group}", sk = "{n}")]
#[gsi(Keys(pk = "{group}", sk = "{title}#{n}"))]
#[gsi(Lines(pk = "{group}", sk = "{title}#{n}"))]
#[gsi(Spread(pk = "{group}", sk = "{title}#{n}"))]
#[shard(Spread(hash = 21, by = title))]
#[gsi(Ranged(pk = "{group}", sk = "{title}"))]
#[shard(Ranged(range = "tests/data/album_boundaries_21.json", by = title))]
#[gsi(Whole(pk = "{group}", sk = "{title}#{n}"))]
struct Record {
    group: String,
    n: u32,
    title: String,
    body: String,
}

/// Another type in the same partitions of `Keys`.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Records, pk = "remark#{group}", sk = "{n}")]
#[gsi(Keys(pk = "{group}", sk = "{title}#{n}"))]
struct Remark {
    group: String,
    n: u32,
    title: String,
}

/// What `Lines` holds of a record.
#[derive(View, Deserialize, Debug, PartialEq)]
#[view(entity = Record)]
struct Line {
    title: String,
    n: u32,
}

async fn setup() -> Db {
    let db = db().await;
    db.create_table::<Records>().await.expect("create ProjectionReads");
    db
}

/// `count` records of `group` with distinct lowercase titles (in no order), sorted by title.
async fn records(db: &Db, group: &str, count: u32) -> Vec<Record> {
    let mut records: Vec<Record> = (0..count)
        .map(|n| Record {
            group: group.to_owned(),
            n,
            // Spread over the alphabet, so every range shard holds some.
            title: format!("{}{:04}", (b'a' + (n * 7 % 26) as u8) as char, n * 37 % 1000),
            body: "x".repeat(440),
        })
        .collect();
    db.batch_put(&records).await.unwrap();
    records.sort_by(|a, b| a.title.cmp(&b.title));
    records
}

/// Every page of `query` (pages of 100), checking each costs one `BatchGetItem`.
async fn hydrated_pages<F>(db: &Db, query: dynashard::Query<Record, F>) -> Vec<Record> {
    let (mut all, mut cursor) = (Vec::new(), None);
    loop {
        let page = db.page(&query, cursor.as_deref()).await.unwrap();
        assert!(page.items.len() <= 100);
        assert_eq!(
            page.stats.hydration_requests,
            usize::from(!page.items.is_empty()),
            "one BatchGetItem a page"
        );
        all.extend(page.items);
        match page.cursor {
            Some(next) => cursor = Some(next),
            None => return all,
        }
    }
}

#[tokio::test]
async fn a_keys_only_index_hydrates_page_by_page_in_its_order() {
    let db = setup().await;
    let group = unique("Hydrate");
    let expected = records(&db, &group, 250).await;
    let query = Record::query_keys(&group).hydrate().page_size(100);
    let first = db.page(&query, None).await.unwrap();
    assert_eq!(first.items, expected[..100]);
    assert_eq!(
        (first.stats.requests, first.stats.hydration_requests),
        (1, 1),
        "a query, then one BatchGetItem"
    );
    assert_eq!(hydrated_pages(&db, query.clone()).await, expected);
    let descending: Vec<Record> = db.stream(query.descending()).try_collect().await.unwrap();
    assert_eq!(descending, expected.iter().rev().cloned().collect::<Vec<_>>());
}

#[tokio::test]
async fn hydration_keeps_the_order_of_a_21_shard_merge_and_of_range_shards() {
    let db = setup().await;
    let group = unique("HydrateShards");
    let expected = records(&db, &group, 260).await;
    assert_eq!(hydrated_pages(&db, Record::query_spread(&group).hydrate()).await, expected, "hash shards");
    assert_eq!(hydrated_pages(&db, Record::query_ranged(&group).hydrate()).await, expected, "range shards");
    let listing: Vec<Record> = db.stream(Record::query_spread(&group).hydrate()).try_collect().await.unwrap();
    assert_eq!(listing, expected);
}

#[tokio::test]
async fn a_stream_cursor_resumes_inside_a_hydrated_batch() {
    use futures::StreamExt;
    let db = setup().await;
    let group = unique("HydrateCursor");
    let expected = records(&db, &group, 150).await;
    for query in [Record::query_keys(&group).hydrate(), Record::query_spread(&group).hydrate()] {
        let mut stream = db.stream(query.clone());
        for record in &expected[..30] {
            assert_eq!(&stream.next().await.unwrap().unwrap(), record);
        }
        let cursor = stream.cursor().expect("more to read");
        drop(stream);
        let rest = db.page(&query.clone().page_size(500), Some(&cursor)).await.unwrap();
        let first = rest.items.first().map(|record| record.n);
        assert!(
            rest.items == expected[30..],
            "resumes after the 30th, not after the fetched batch: {} items, the first n = {first:?}",
            rest.items.len()
        );
        let limited: Vec<Record> = db.stream(query.limit(7)).try_collect().await.unwrap();
        assert_eq!(limited, expected[..7]);
    }
}

#[tokio::test]
async fn hydration_tells_entity_types_apart_on_the_full_items() {
    let db = setup().await;
    let group = unique("HydrateTypes");
    let expected = records(&db, &group, 40).await;
    let remarks: Vec<Remark> =
        (0..40).map(|n| Remark { group: group.clone(), n, title: format!("b{n:04}") }).collect();
    db.batch_put(&remarks).await.unwrap();
    let error = db.page(&Record::query_keys(&group).hydrate(), None).await.unwrap_err();
    assert!(matches!(error, Error::WrongEntityType { .. }), "{error:?}");
    let query = Record::query_keys(&group).hydrate().skip_other_types();
    let page = db.page(&query.clone().page_size(10), None).await.unwrap();
    assert_eq!(page.items, expected[..10], "ten records, whatever the remarks among them");
    let all: Vec<Record> = db.stream(query).try_collect().await.unwrap();
    assert_eq!(all, expected);
    // A filter on an attribute the index does not hold would drop every item without a word.
    let filtered = Record::query_keys(&group).hydrate().filter(Record::fields().body.exists());
    let error = db.page(&filtered, None).await.unwrap_err();
    assert!(matches!(&error, Error::InvalidQuery { reason } if reason.contains("`body`")), "{error:?}");
    let on_key = Record::query_keys(&group).hydrate().skip_other_types();
    let on_key = on_key.filter(dynashard::Condition::exists("pk"));
    assert_eq!(
        db.stream(on_key).try_collect::<Vec<_>>().await.unwrap(),
        expected,
        "the table's keys are held"
    );
    let error = db.count(&Record::query_keys(&group).hydrate()).await.unwrap_err();
    assert!(matches!(error, Error::InvalidQuery { .. }), "keys only: no entity type to count by, {error:?}");
}

#[tokio::test]
async fn views_read_only_their_attributes() {
    let db = setup().await;
    let group = unique("Views");
    let expected = records(&db, &group, 120).await;
    let lines: Vec<Line> = expected.iter().map(|r| Line { title: r.title.clone(), n: r.n }).collect();
    let from_index: Vec<Line> =
        db.stream(Record::query_lines(&group).view::<Line>()).try_collect().await.unwrap();
    assert_eq!(from_index, lines);
    let page = db.page(&Record::query_lines(&group).view::<Line>().page_size(50), None).await.unwrap();
    assert_eq!(page.items, lines[..50]);
    assert_eq!(db.count(&Record::query_lines(&group).view::<Line>()).await.unwrap(), 120);

    // The base table, in `n` order, with a projection: the view decodes what comes back.
    let mut by_n = lines;
    by_n.sort_by_key(|line| line.n);
    let from_table: Vec<Line> = db.stream(Record::query(&group).view::<Line>()).try_collect().await.unwrap();
    assert_eq!(from_table, by_n);

    // An index that holds every attribute reads whole entities, no hydration needed.
    let whole: Vec<Record> = db.stream(Record::query_whole(&group)).try_collect().await.unwrap();
    assert_eq!(whole, expected);
}
