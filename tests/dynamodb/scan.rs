//! Parallel scans: whole tables, sparse indexes, filters and limits.

use crate::crud::song;
use crate::model::*;
use crate::shop_model::*;
use crate::tx_model::*;
use crate::{db, unique};
use aws_sdk_dynamodb::types::AttributeValue;
use dynashard::{Condition, Db, Error, RawExpression};
use futures::TryStreamExt;
use std::collections::BTreeSet;

/// The attribute `attribute` equals `value` (for key fields, which have no field handles).
fn attribute_is(attribute: &str, value: &str) -> Condition {
    Condition::raw(
        RawExpression::new("#mine = :mine")
            .name("#mine", attribute)
            .value(":mine", AttributeValue::S(value.into())),
    )
}

async fn collect<T: Send + 'static>(db: &Db, scan: dynashard::Scan<T>) -> Vec<T> {
    db.stream(scan).try_collect().await.unwrap()
}

fn reading_keys(readings: &[Reading]) -> BTreeSet<(String, u32)> {
    let keys: BTreeSet<_> = readings.iter().map(|r| (r.sensor.clone(), r.at)).collect();
    assert_eq!(keys.len(), readings.len(), "no item is yielded twice");
    keys
}

/// Empties the table of its own (left over by an earlier run against a persistent endpoint).
async fn empty_scan_table(db: &Db) {
    db.create_table::<ScanTable>().await.unwrap();
    let readings = collect(db, Reading::scan()).await;
    db.batch_delete(readings.iter().map(|r| Reading::key(&r.sensor, r.at).unwrap())).await.unwrap();
    let notes = collect(db, Note::scan()).await;
    db.batch_delete(notes.iter().map(|n| Note::key(&n.sensor).unwrap())).await.unwrap();
}

#[tokio::test]
async fn a_whole_table_scans_the_same_with_1_and_8_segments() {
    let db = db().await;
    empty_scan_table(&db).await;
    let readings: Vec<Reading> = (0..300)
        .map(|n| Reading { sensor: format!("s{}", n % 10), at: n, value: i64::from(n) * 3 })
        .collect();
    db.batch_put(&readings).await.unwrap();
    let notes: Vec<Note> =
        (0..5).map(|n| Note { sensor: format!("s{n}"), text: "calibrated".into() }).collect();
    db.batch_put(&notes).await.unwrap();
    let written = reading_keys(&readings);

    let one = collect(&db, Reading::scan().segments(1).page_size(17)).await;
    let mut stream = db.stream(Reading::scan().segments(8).page_size(17));
    let mut eight = Vec::new();
    while let Some(reading) = stream.try_next().await.unwrap() {
        eight.push(reading);
    }
    let stats = stream.stats().snapshot();
    assert_eq!(stats.per_shard_requests.len(), 8, "requests are counted per segment: {stats:?}");
    assert!(stats.per_shard_requests.iter().all(|&requests| requests >= 1), "{stats:?}");
    assert_eq!(stats.requests, stats.per_shard_requests.iter().sum::<usize>());
    assert_eq!(stats.items_read, 300, "the readings the pages returned: {stats:?}");
    assert!(stats.capacity_units >= 8.0 * 0.5, "every request costs read units: {stats:?}");
    let throttled = collect(&db, Reading::scan().segments(8).concurrency(2)).await;
    assert_eq!(reading_keys(&one), written, "one segment reads every reading, and nothing else");
    assert_eq!(reading_keys(&eight), written, "eight segments read exactly the same set");
    assert_eq!(reading_keys(&throttled), written);
    let stored: BTreeSet<_> = eight.iter().map(|r| (r.sensor.clone(), r.at, r.value)).collect();
    assert!(stored.iter().all(|(_, at, value)| *value == i64::from(*at) * 3), "items decode whole");

    assert_eq!(collect(&db, Note::scan()).await.len(), 5, "the entity-type filter keeps notes apart");
    let everything = collect(&db, SensorItems::scan().segments(3)).await;
    let (mut readings_seen, mut notes_seen) = (Vec::new(), Vec::new());
    for item in everything {
        match item {
            SensorItems::Reading(reading) => readings_seen.push(reading),
            SensorItems::Note(note) => notes_seen.push(note),
        }
    }
    assert_eq!(reading_keys(&readings_seen), written, "a collection scan decodes each type");
    assert_eq!(notes_seen.len(), 5);
    assert!(notes_seen.iter().all(|note| note.text == "calibrated"));

    assert_eq!(db.count(&Reading::scan().segments(8).page_size(17)).await.unwrap(), 300);
    assert_eq!(db.count(&Note::scan()).await.unwrap(), 5, "a count keeps to the scanned types");
    assert_eq!(db.count(&SensorItems::scan().segments(3)).await.unwrap(), 305);
    assert_eq!(db.count(&Reading::scan().segments(8).limit(25)).await.unwrap(), 25);

    let limited = collect(&db, Reading::scan().segments(8).limit(25)).await;
    assert_eq!(reading_keys(&limited).len(), 25);
    assert!(reading_keys(&limited).is_subset(&written));
}

fn order(customer: &str, id: u32, opened_at: Option<&str>) -> Order {
    Order {
        customer: customer.into(),
        id,
        region: "eu".into(),
        placed: "2026-11-01".into(),
        shard: unique("shard"),
        opened_at: opened_at.map(str::to_owned),
        total: 10,
    }
}

#[tokio::test]
async fn a_scan_of_a_sparse_index_returns_only_open_orders() {
    let db = db().await;
    let customer = unique("ScanCustomer");
    for (id, opened_at) in
        [(1, Some("2026-11-01")), (2, None), (3, Some("2026-11-02")), (4, None), (5, Some("x"))]
    {
        db.put(&order(&customer, id, opened_at)).await.unwrap();
    }
    let mine = || attribute_is("customer", &customer);
    let ids = |orders: Vec<Order>| orders.into_iter().map(|order| order.id).collect::<BTreeSet<_>>();
    let open = collect(&db, Order::scan().index("OpenOrders").segments(8).filter(mine())).await;
    assert!(open.iter().all(|order| order.opened_at.is_some()));
    assert_eq!(ids(open), BTreeSet::from([1, 3, 5]));
    let all = collect(&db, Order::scan().filter(mine())).await;
    assert_eq!(ids(all), BTreeSet::from([1, 2, 3, 4, 5]), "the base table holds closed orders too");
}

#[tokio::test]
async fn filters_and_limits() {
    let db = db().await;
    let artist = unique("ScanFilter");
    for n in 0..20u32 {
        let mut item = song(&artist, "Filtered", &format!("Track {n:02}"));
        item.length_seconds = n * 100;
        db.put(&item).await.unwrap();
    }
    db.put(&Artist { name: artist.clone(), country: None }).await.unwrap();
    let mine = || attribute_is("artist", &artist);

    let long = Song::scan().filter(mine()).filter(Song::fields().length_seconds.gt(1450)).page_size(1000);
    let lengths: BTreeSet<u32> =
        collect(&db, long).await.into_iter().map(|song| song.length_seconds).collect();
    assert_eq!(lengths, (15..20).map(|n| n * 100).collect());

    for segments in [1, 8] {
        let limited =
            collect(&db, Song::scan().segments(segments).filter(mine()).limit(5).page_size(1000)).await;
        let titles: BTreeSet<String> = limited.iter().map(|song| song.title.clone()).collect();
        assert_eq!(titles.len(), 5, "{segments} segments: exactly the limit, no repeats");
        assert!(limited.iter().all(|song| song.artist == artist));
    }
    let none = collect(&db, Song::scan().filter(mine()).limit(0)).await;
    assert!(none.is_empty());
}

#[tokio::test]
async fn invalid_scans_fail_before_sending() {
    let db = db().await;
    let errors = [
        db.stream(Order::scan().index("Nope")).try_collect::<Vec<_>>().await.unwrap_err(),
        db.stream(Order::scan().segments(0)).try_collect::<Vec<_>>().await.unwrap_err(),
        db.stream(Order::scan().index("OpenOrders").consistent()).try_collect::<Vec<_>>().await.unwrap_err(),
    ];
    for error in errors {
        assert!(matches!(error, Error::InvalidQuery { .. }), "{error:?}");
    }
}
