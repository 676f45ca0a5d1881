//! An item that does not decode (written by another program, an older version, a hand edit) is
//! reported by its key in every read, and every read of many items goes on past it: healthy
//! items are never hidden by it.

use crate::{db, unique};
use dynashard::{AttributeValue, Db, Entity, Error, Table, Undecodable, View};
use futures::StreamExt;
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "UndecodableTests", pk = "pk", sk = "sk")]
#[gsi(Spread(pk = "spread_pk", sk = "spread_sk"))]
#[gsi(Slim(pk = "slim_pk", sk = "slim_sk", projection = "keys_only"))]
struct Readings;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Readings, pk = "site#{site}", sk = "{at}")]
#[gsi(Spread(pk = "{site}", sk = "{at}"))]
#[shard(Spread(hash = 4, by = at))]
#[gsi(Slim(pk = "{site}", sk = "{at}"))]
struct Reading {
    site: String,
    at: u32,
    value: u32,
}

/// What every index holds of a reading, and its value.
#[derive(View, Deserialize, Debug, PartialEq)]
#[view(entity = Reading)]
struct Value {
    at: u32,
    value: u32,
}

/// Readings 0..10 of a new site, reading 4 then made undecodable by a raw write (its `value` a
/// string): the healthy nine, and the bad one's key.
async fn site_with_a_bad_reading(db: &Db) -> (String, Vec<Reading>, dynashard::PrimaryKey) {
    db.create_table::<Readings>().await.unwrap();
    let site = unique("site");
    let readings: Vec<Reading> =
        (0..10).map(|at| Reading { site: site.clone(), at, value: at * 10 }).collect();
    db.batch_put(&readings).await.unwrap();
    let bad = Reading::key(&site, 4u32).unwrap().primary().clone();
    db.client()
        .update_item()
        .table_name("UndecodableTests")
        .key("pk", AttributeValue::S(bad.pk.clone()))
        .key("sk", AttributeValue::S(bad.sk.clone().unwrap()))
        .update_expression("SET #v = :loud")
        .expression_attribute_names("#v", "value")
        .expression_attribute_values(":loud", AttributeValue::S("loud".into()))
        .send()
        .await
        .unwrap();
    let healthy = readings.into_iter().filter(|reading| reading.at != 4).collect();
    (site, healthy, bad)
}

/// Whether `error` reports the item at `key` as undecodable.
fn names(error: &Error, key: &dynashard::PrimaryKey) -> bool {
    matches!(error, Error::Undecodable(bad) if bad.key == *key && bad.reason.starts_with("`value`: "))
}

/// The items of a stream, and its errors, in order.
async fn drained<T>(
    mut stream: impl futures::Stream<Item = dynashard::Result<T>> + Unpin,
) -> (Vec<T>, Vec<Error>) {
    let (mut items, mut errors) = (Vec::new(), Vec::new());
    while let Some(next) = stream.next().await {
        match next {
            Ok(item) => items.push(item),
            Err(error) => errors.push(error),
        }
    }
    (items, errors)
}

#[tokio::test]
async fn queries_and_scans_report_the_item_by_its_key_and_go_on_past_it() {
    let db = db().await;
    let (site, healthy, bad) = site_with_a_bad_reading(&db).await;
    let values: Vec<u32> = healthy.iter().map(|reading| reading.value).collect();

    // The base table, a merge over four hash shards, a hydrated keys-only index, a view.
    let mut stream = db.stream(Reading::query(&site));
    let (items, errors) = drained(&mut stream).await;
    assert_eq!(items, healthy, "every healthy item, in order");
    assert!(errors.len() == 1 && names(&errors[0], &bad), "{errors:?}");
    assert_eq!(stream.stats().undecodable(), 1);
    let (items, errors) = drained(db.stream(Reading::query_spread(&site))).await;
    assert_eq!((items, errors.len()), (healthy.clone(), 1), "merged over shards: {errors:?}");
    let (items, errors) = drained(db.stream(Reading::query_slim(&site).hydrate())).await;
    assert_eq!((items, errors.len()), (healthy.clone(), 1), "hydrated: {errors:?}");
    assert!(names(&errors[0], &bad));
    let (read, errors) = drained(db.stream(Reading::query(&site).view::<Value>())).await;
    assert_eq!(read.iter().map(|view| view.value).collect::<Vec<_>>(), values);
    assert!(matches!(&errors[..], [Error::Undecodable(bad)] if bad.expected.ends_with("Value")));

    // Pages of three: the bad item has its place in the second page, the cursor passes it.
    let query = Reading::query(&site).page_size(3);
    let (mut items, mut undecodable, mut cursor, mut pages) =
        (Vec::new(), Vec::<Undecodable>::new(), None, 0);
    loop {
        let page = db.page(&query, cursor.as_deref()).await.unwrap();
        pages += 1;
        assert_eq!(page.stats.undecodable, page.undecodable.len());
        assert_eq!(page.items.len() + page.undecodable.len(), if page.cursor.is_some() { 3 } else { 1 });
        items.extend(page.items);
        undecodable.extend(page.undecodable);
        cursor = page.cursor;
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!((items, pages), (healthy.clone(), 4), "ten items in pages of three");
    assert!(undecodable.len() == 1 && undecodable[0].key == bad, "{undecodable:?}");

    // A scan, and a limit that counts the bad item as one read.
    // (The table's other sites, of the other test, have a bad reading each too.)
    let mut scanned = db.stream(Reading::scan());
    let (mut items, errors) = drained(&mut scanned).await;
    items.retain(|reading| reading.site == site);
    items.sort_by_key(|reading| reading.at);
    assert_eq!(items, healthy);
    assert_eq!(errors.iter().filter(|error| names(error, &bad)).count(), 1, "{errors:?}");
    assert_eq!(scanned.stats().undecodable(), errors.len());
    let (items, errors) = drained(db.stream(Reading::query(&site).limit(6))).await;
    assert_eq!((items.len(), errors.len()), (5, 1), "six read, one of them the bad one");
}

#[tokio::test]
async fn reads_by_key_name_the_item_and_a_batch_gives_every_other_key() {
    let db = db().await;
    let (site, healthy, bad) = site_with_a_bad_reading(&db).await;
    let error = db.get(Reading::key(&site, 4u32).unwrap()).await.unwrap_err();
    assert!(names(&error, &bad), "{error}");
    assert!(error.to_string().contains(&bad.pk), "the message names the key: {error}");

    let keys: Vec<_> = (0..10u32).chain([99]).map(|at| Reading::key(&site, at).unwrap()).collect();
    let whole = db.batch_get(keys.clone()).await.unwrap_err();
    assert!(names(&whole, &bad), "the whole read fails, naming the key: {whole}");
    let each = db.batch_get(keys).per_key().await.unwrap();
    assert_eq!(each.len(), 11);
    for (at, found) in each.into_iter().enumerate() {
        match (at, found) {
            (4, Err(error)) => assert!(names(&error, &bad)),
            (10, Ok(None)) => {}
            (at, Ok(Some(reading))) => assert_eq!(reading, healthy[if at < 4 { at } else { at - 1 }]),
            (at, other) => panic!("key {at}: {other:?}"),
        }
    }

    let (first, bad_one) = (Reading::key(&site, 0u32).unwrap(), Reading::key(&site, 4u32).unwrap());
    let error = db.transact_get().get(first).get(bad_one).await.unwrap_err();
    assert!(names(&error, &bad), "a transactional read names the item: {error}");
}
