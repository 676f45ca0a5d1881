//! Full listings, limits and sort-key ranges over 21 shards, in both modes and directions.

use super::fixture::{assert_same, datasets, ids, title_of, Dataset, Row};
use super::shard_model::Entry;
use crate::db;
use dynashard::query::Done;
use dynashard::{Db, Query};

pub fn directed<F>(query: Query<Entry, F>, descending: bool) -> Query<Entry, F> {
    if descending {
        query.descending()
    } else {
        query
    }
}

#[tokio::test]
async fn full_listings_equal_the_sorted_input() {
    let db = db().await;
    let (merged, ranged) = datasets(&db).await;
    for data in [merged, ranged] {
        let duplicates = data.rows.windows(2).filter(|pair| pair[0].sk == pair[1].sk).count();
        assert!(duplicates > 10, "{:?}: the data has sort keys on several shards ({duplicates})", data.mode);
        assert!(data.rows.iter().any(|row| !title_of(row).is_ascii()));
        for descending in [false, true] {
            let expected = data.expected(descending, |_| true);
            let got = ids(&db, directed(data.query(), descending)).await;
            assert_same(&got, &expected, &format!("{:?}, descending: {descending}", data.mode));
            let small_pages = ids(&db, directed(data.query().page_size(37).concurrency(5), descending)).await;
            assert_same(&small_pages, &expected, &format!("{:?} in pages of 37", data.mode));
        }
    }
}

#[tokio::test]
async fn limits_cut_the_merged_order() {
    let db = db().await;
    let (merged, ranged) = datasets(&db).await;
    for data in [merged, ranged] {
        for descending in [false, true] {
            let expected = data.expected(descending, |_| true);
            for limit in [1, 10, 777, 10_000, 50_000] {
                let got = ids(&db, directed(data.query().limit(limit), descending)).await;
                let want = &expected[..limit.min(expected.len())];
                assert_same(&got, want, &format!("{:?}, descending: {descending}, limit {limit}", data.mode));
            }
        }
    }
}

/// A title near the middle of the data, stored on more than one shard, without separators.
fn duplicated_title(data: &Dataset) -> String {
    let middle = data.rows.len() / 2;
    let row = data.rows[middle..]
        .windows(2)
        .find(|pair| pair[0].sk == pair[1].sk && !pair[0].sk[2..].contains(['#', '$']))
        .expect("a duplicated title");
    title_of(&row[0])
}

/// Checks one sort-key condition in both directions, whole and limited, against the rows it keeps.
async fn check(
    db: &Db,
    data: &Dataset,
    name: &str,
    query: impl Fn() -> Query<Entry, Done>,
    keep: impl Fn(&Row) -> bool,
) {
    for descending in [false, true] {
        let expected = data.expected(descending, &keep);
        assert!(!expected.is_empty(), "{name} selects something");
        let context = format!("{:?} {name}, descending: {descending}", data.mode);
        assert_same(&ids(db, directed(query(), descending)).await, &expected, &context);
        let limited = ids(db, directed(query().limit(3), descending)).await;
        assert_same(&limited, &expected[..3.min(expected.len())], &format!("{context}, limit 3"));
    }
}

#[tokio::test]
async fn sort_key_ranges_across_shards() {
    let db = db().await;
    let (merged, ranged) = datasets(&db).await;
    for data in [merged, ranged] {
        // Exclusive bounds on a key stored on several shards, so every copy must be dropped.
        let bound = duplicated_title(data);
        let key = format!("t#{bound}");
        check(&db, data, "gt", || data.query().gt(&bound), |r| r.sk > key).await;
        check(&db, data, "ge", || data.query().ge(&bound), |r| r.sk >= key).await;
        check(&db, data, "lt", || data.query().lt(&bound), |r| r.sk < key).await;
        check(&db, data, "le", || data.query().le(&bound), |r| r.sk <= key).await;
        check(&db, data, "eq", || data.query().eq(&bound), |r| r.sk == key).await;
        let (low, high) = ("t#B", "t#m");
        let between = |r: &Row| low <= r.sk.as_str() && r.sk.as_str() <= high;
        check(&db, data, "between", || data.query().between("B", "m"), between).await;
        let prefix = |r: &Row| r.sk.starts_with("t#日本");
        check(&db, data, "begins_with", || data.query().begins_with("日本"), prefix).await;
    }
}
