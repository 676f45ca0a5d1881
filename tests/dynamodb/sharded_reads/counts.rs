//! Counts over 21 shards whose sort keys have a literal prefix, so exclusive bounds are sent as
//! inclusive `BETWEEN`s and the bound is dropped client-side: a count must drop every copy too.

use super::fixture::{datasets, Row};
use crate::db;

#[tokio::test]
async fn counts_drop_an_exclusive_bound_on_every_shard() {
    let db = db().await;
    let (merged, ranged) = datasets(&db).await;
    for data in [merged, ranged] {
        let context = format!("{:?}", data.mode);
        let count = |keep: &dyn Fn(&Row) -> bool| data.rows.iter().filter(|row| keep(row)).count() as u64;
        assert_eq!(db.count(&data.query()).await.unwrap(), data.rows.len() as u64, "{context}");
        // A title stored on several shards, so the exclusion drops several items.
        let middle = data.rows.len() / 2;
        let pair = data.rows[middle..]
            .windows(2)
            .find(|pair| pair[0].sk == pair[1].sk && !pair[0].sk[2..].contains(['#', '$']))
            .expect("a duplicated title");
        let (key, bound) = (pair[0].sk.clone(), pair[0].sk[2..].to_owned());
        assert!(count(&|row| row.sk == key) > 1, "{context}: {bound:?} is stored more than once");
        assert_eq!(
            db.count(&data.query().gt(&bound)).await.unwrap(),
            count(&|row| row.sk > key),
            "{context}"
        );
        assert_eq!(
            db.count(&data.query().lt(&bound)).await.unwrap(),
            count(&|row| row.sk < key),
            "{context}"
        );
        assert_eq!(
            db.count(&data.query().ge(&bound)).await.unwrap(),
            count(&|row| row.sk >= key),
            "{context}"
        );
        assert_eq!(
            db.count(&data.query().le(&bound)).await.unwrap(),
            count(&|row| row.sk <= key),
            "{context}"
        );
        assert_eq!(db.count(&data.query().gt(&bound).limit(5)).await.unwrap(), 5, "{context}");
    }
}
