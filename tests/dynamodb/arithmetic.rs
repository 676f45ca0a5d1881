//! Arithmetic within its type, against DynamoDB Local: at every integer width's limits (and
//! `f32`'s), `add` and `subtract` past the limit fail with `Error::Overflow` and store nothing;
//! the item reads back as it was, and arithmetic up to the limit goes through. (The 128-bit
//! widths cannot be stored at all: `serde_dynamo` does not serialize them.)

use crate::model::Music;
use crate::{db, unique};
use dynashard::{Entity, Error};
use serde::{Deserialize, Serialize};

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[entity(table = Music, pk = "counters#{id}", sk = "counters")]
struct Counters {
    id: String,
    small: u8,
    short: u16,
    count: u32,
    large: u64,
    size: usize,
    tiny: i8,
    delta: i16,
    balance: i32,
    offset: i64,
    index: isize,
    ratio: f32,
}

/// At the top and the bottom of a field's range: one step past it is refused and changes
/// nothing; steps back within it go through.
macro_rules! edges {
    ($db:expr, $key:expr, $field:ident: $ty:ty, $min:expr, $max:expr, $one:expr) => {{
        let (db, f) = (&$db, Counters::fields());
        let (min, max, one): ($ty, $ty, $ty) = ($min, $max, $one);
        let overflow = |error: Error| {
            assert!(
                matches!(&error, Error::Overflow { attribute, .. } if attribute == stringify!($field)),
                "{}: {error:?}",
                stringify!($field)
            );
        };
        db.update($key()).set(f.$field, max).await.unwrap();
        overflow(db.update($key()).add(f.$field, one).await.unwrap_err());
        let stored = db.get($key()).await.unwrap().expect("the item reads back").$field;
        assert_eq!(stored, max, "{}: nothing stored", stringify!($field));
        let back = db.update($key()).subtract(f.$field, one).await.unwrap().$field;
        assert_eq!(back, max - one);
        db.update($key()).add(f.$field, one).await.unwrap();

        db.update($key()).set(f.$field, min).await.unwrap();
        overflow(db.update($key()).subtract(f.$field, one).await.unwrap_err());
        assert_eq!(db.get($key()).await.unwrap().unwrap().$field, min);
        assert_eq!(db.update($key()).add(f.$field, one).await.unwrap().$field, min + one);
    }};
}

#[tokio::test]
async fn every_width_refuses_a_step_past_its_limits_and_stores_nothing() {
    let db = db().await;
    let id = unique("counters");
    db.put(&Counters { id: id.clone(), ..Counters::default() }).await.unwrap();
    let key = || Counters::key(&id).unwrap();
    edges!(db, key, small: u8, 0, u8::MAX, 1);
    edges!(db, key, short: u16, 0, u16::MAX, 1);
    edges!(db, key, count: u32, 0, u32::MAX, 1);
    edges!(db, key, large: u64, 0, u64::MAX, 1);
    edges!(db, key, size: usize, 0, usize::MAX, 1);
    edges!(db, key, tiny: i8, i8::MIN, i8::MAX, 1);
    edges!(db, key, delta: i16, i16::MIN, i16::MAX, 1);
    edges!(db, key, balance: i32, i32::MIN, i32::MAX, 1);
    edges!(db, key, offset: i64, i64::MIN, i64::MAX, 1);
    edges!(db, key, index: isize, isize::MIN, isize::MAX, 1);
    // `f32`: its range, not DynamoDB's, bounds it.
    let f = Counters::fields();
    db.update(key()).set(f.ratio, f32::MAX).await.unwrap();
    assert!(matches!(db.update(key()).add(f.ratio, 1e38).await, Err(Error::Overflow { .. })));
    assert_eq!(db.get(key()).await.unwrap().unwrap().ratio, f32::MAX);
    assert!(db.update(key()).subtract(f.ratio, 1e38).await.unwrap().ratio < f32::MAX);
    db.update(key()).set(f.ratio, -f32::MAX).await.unwrap();
    assert!(matches!(db.update(key()).subtract(f.ratio, 1e38).await, Err(Error::Overflow { .. })));
    assert!(db.get(key()).await.unwrap().is_some(), "the item decodes after all of it");
}

#[tokio::test]
async fn negative_amounts_extreme_amounts_and_the_error_text() {
    let db = db().await;
    let id = unique("counters");
    db.put(&Counters { id: id.clone(), count: 4_294_967_294, offset: i64::MIN + 1, ..Counters::default() })
        .await
        .unwrap();
    let (key, f) = (|| Counters::key(&id).unwrap(), Counters::fields());
    let refused = db.update(key()).add(f.count, 5).await.unwrap_err();
    assert_eq!(
        refused.to_string(),
        "`count` holds 4294967294: changing it by +5 would leave the range of `u32`"
    );
    // Adding a negative amount, subtracting a negative one: the same limits.
    assert!(matches!(db.update(key()).add(f.offset, -2).await, Err(Error::Overflow { .. })));
    assert!(matches!(db.update(key()).subtract(f.offset, i64::MAX).await, Err(Error::Overflow { .. })));
    assert!(matches!(db.update(key()).subtract(f.balance, i32::MIN).await, Err(Error::Overflow { .. })));
    assert_eq!(db.update(key()).add(f.offset, -1).await.unwrap().offset, i64::MIN);
    // Several changes at once: one past its limit refuses them all.
    let refused = db.update(key()).add(f.small, 1).add(f.count, 2).await;
    assert!(
        matches!(refused, Err(Error::Overflow { ref attribute, .. }) if attribute == "count"),
        "{refused:?}"
    );
    let stored = db.get(key()).await.unwrap().unwrap();
    assert_eq!((stored.small, stored.count), (0, 4_294_967_294), "nothing of it stored");
}

#[tokio::test]
async fn a_transaction_holding_an_overflow_stores_none_of_its_writes() {
    let db = db().await;
    let (id, other) = (unique("counters"), unique("counters"));
    db.put(&Counters { id: id.clone(), small: u8::MAX, ..Counters::default() }).await.unwrap();
    let f = Counters::fields();
    let refused = db
        .transaction()
        .put(&Counters { id: other.clone(), ..Counters::default() })
        .update(db.update(Counters::key(&id).unwrap()).add(f.small, 1).add(f.count, 1))
        .await
        .unwrap_err();
    assert!(refused.is_conditional_failed(), "{refused:?}");
    // The update's reason says what the update would say on its own.
    let Error::TransactionCanceled { reasons } = &refused else { panic!("{refused:?}") };
    assert!(
        matches!(reasons[1].error.as_deref(), Some(Error::Overflow { attribute, .. }) if attribute == "small"),
        "{reasons:?}"
    );
    assert!(reasons[0].error.is_none(), "the put had no failure of its own: {reasons:?}");
    assert!(db.get(Counters::key(&other).unwrap()).await.unwrap().is_none(), "the put was not stored");
    let stored = db.get(Counters::key(&id).unwrap()).await.unwrap().unwrap();
    assert_eq!((stored.small, stored.count), (u8::MAX, 0));
}
