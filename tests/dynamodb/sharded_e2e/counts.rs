//! `db.count` of every sharded index equals the length of its listing: whole, within sort-key
//! conditions (exclusive bounds on a title stored hundreds of times), limited and filtered.

use super::data::{data, ids, with_query, RECORDS};
use super::model::E2eRecord;
use crate::db;
use dynashard::Error;

#[tokio::test]
async fn counts_of_every_layout_equal_the_listings() {
    let db = db().await;
    let data = data(&db).await;
    for listing in data.listings() {
        let context = format!("{:?}", listing.strategy);
        let whole = with_query!(listing, |query| db.count(&query()).await.unwrap());
        assert_eq!(whole, RECORDS as u64, "{context}: every record once");
        for bound in ["Greatest Hits", "Leaving Home", "M"] {
            let (above, listed_above) = with_query!(listing, |query| (
                db.count(&query().gt(bound)).await.unwrap(),
                ids(&db, query().gt(bound)).await.len()
            ));
            assert_eq!(above, listed_above as u64, "{context}: gt {bound:?}");
            let (below, listed_below) = with_query!(listing, |query| (
                db.count(&query().lt(bound)).await.unwrap(),
                ids(&db, query().lt(bound)).await.len()
            ));
            assert_eq!(below, listed_below as u64, "{context}: lt {bound:?}");
            let (at_least, listed) = with_query!(listing, |query| (
                db.count(&query().ge(bound)).await.unwrap(),
                ids(&db, query().ge(bound)).await.len()
            ));
            assert_eq!(at_least, listed as u64, "{context}: ge {bound:?}");
            assert!(above > 0 && below > 0, "{context}: {bound:?} cuts the listing");
        }
        let greatest = data.records.iter().filter(|record| record.title == "Greatest Hits").count() as u64;
        let (at, above) = with_query!(listing, |query| (
            db.count(&query().ge("Greatest Hits")).await.unwrap(),
            db.count(&query().gt("Greatest Hits")).await.unwrap()
        ));
        // The range index also holds case variants of the title between the two bounds.
        assert!(at - above >= greatest, "{context}: every copy of the bound is dropped by gt");
        for limit in [1, 777, 20_000] {
            let limited = with_query!(listing, |query| db.count(&query().limit(limit)).await.unwrap());
            assert_eq!(limited, limit.min(RECORDS) as u64, "{context}: limit {limit}");
        }
        let low = E2eRecord::fields().n.lt(2_500);
        let (filtered, listed) = with_query!(listing, |query| (
            db.count(&query().filter(low.clone())).await.unwrap(),
            ids(&db, query().filter(low.clone())).await.len()
        ));
        assert_eq!((filtered, listed), (2_500, 2_500), "{context}: the filter applies");
    }
}

#[tokio::test]
async fn a_count_refuses_what_it_cannot_cover() {
    let db = db().await;
    data(&db).await;
    let page = db.page(&E2eRecord::query_title_hash().page_size(10), None).await.unwrap();
    let cursor = page.cursor.expect("more pages");
    let resumed = E2eRecord::query_title_hash().start_after(cursor);
    assert!(matches!(db.count(&resumed).await, Err(Error::InvalidQuery { .. })));
    assert_eq!(db.count(&E2eRecord::query_title_hash().limit(0)).await.unwrap(), 0, "nothing is sent");
}
