//! Key encoding as DynamoDB sees it: injective, prefix-safe, numerically ordered.

use crate::crud::song;
use crate::model::*;
use crate::{db, unique};
use aws_sdk_dynamodb::types::AttributeValue;
use dynashard::Db;

async fn sort_keys_with_prefix(db: &Db, pk: &str, prefix: &str) -> Vec<String> {
    let output = db
        .client()
        .query()
        .table_name(db.table_name::<Music>())
        .key_condition_expression("pk = :pk AND begins_with(sk, :prefix)")
        .expression_attribute_values(":pk", AttributeValue::S(pk.into()))
        .expression_attribute_values(":prefix", AttributeValue::S(prefix.into()))
        .send()
        .await
        .unwrap();
    output.items().iter().map(|item| item["sk"].as_s().unwrap().clone()).collect()
}

#[tokio::test]
async fn separators_in_values_never_collide_or_leak_into_prefixes() {
    let db = db().await;
    let artist = unique("Sep#ara$tor");
    let a = song(&artist, "x#y", "z");
    let b = song(&artist, "x", "y#z");
    let c = song(&artist, "x$", "y");
    for item in [&a, &b, &c] {
        db.put(item).await.unwrap();
    }
    assert_eq!(db.get(Song::key(&artist, "x#y", "z").unwrap()).await.unwrap(), Some(a));
    assert_eq!(db.get(Song::key(&artist, "x", "y#z").unwrap()).await.unwrap(), Some(b));
    assert_eq!(db.get(Song::key(&artist, "x$", "y").unwrap()).await.unwrap(), Some(c));

    // The songs of album "x" are exactly those whose key starts with the template prefix.
    let of_x = sort_keys_with_prefix(&db, Song::key(&artist, "x", "y#z").unwrap().pk(), "song#x#").await;
    assert_eq!(of_x, vec!["song#x#y$#z".to_string()]);
}

#[tokio::test]
async fn integer_key_parts_sort_numerically_in_dynamodb() {
    let db = db().await;
    let artist = unique("Numbers");
    let mut expected = Vec::new();
    for day in [10u32, 9, 100, 0] {
        for offset in [5i64, -1, -100, 0, i64::MIN, i64::MAX, 42] {
            db.put(&Play { artist: artist.clone(), day, offset }).await.unwrap();
            expected.push((day, offset));
        }
    }
    expected.sort();
    let keys = sort_keys_with_prefix(&db, &artist, "play#").await;
    let expected_keys: Vec<String> = expected
        .iter()
        .map(|(day, offset)| Play::key(&artist, *day, *offset).unwrap().sk().unwrap().to_owned())
        .collect();
    assert_eq!(keys, expected_keys, "DynamoDB's sort-key order is the numeric order");
}
