//! Numbers DynamoDB cannot store are refused before anything is sent, in every write path:
//! `NaN`, infinities, `1e200`, `5e-324`, more than 38 digits; whatever DynamoDB stores goes
//! through and reads back as written.

use crate::model::Music;
use crate::{db, unique};
use dynashard::{Entity, Error};
use serde::{Deserialize, Serialize};

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[entity(table = Music, pk = "scores#{id}", sk = "score")]
struct Score {
    id: String,
    value: f64,
    history: Vec<f64>,
    big: u64,
}

fn score(id: &str, value: f64) -> Score {
    Score { id: id.to_owned(), value, history: vec![1.5, value], big: 7 }
}

/// Whether DynamoDB stores `value`: finite, zero or of a magnitude from 1E-130 below 1E+126.
fn storable(value: f64) -> bool {
    value == 0.0 || (1e-130..1e126).contains(&value.abs())
}

/// Finite and non-finite `f64`s: edges and, from a fixed seed, arbitrary bit patterns.
fn values() -> Vec<f64> {
    let mut values = vec![
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1e200,
        -1e200,
        5e-324,
        -5e-324,
        f64::MAX,
        f64::MIN_POSITIVE,
        1e125,
        f64::from_bits(1e126f64.to_bits() - 1), // the largest f64 below 1E+126
        1e126,
        1e-130,
        1e-131,
        0.0,
        -0.0,
        0.1,
        -12.5,
    ];
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    for _ in 0..30 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        values.push(f64::from_bits(state));
    }
    values
}

fn invalid(result: Result<impl std::fmt::Debug, Error>, value: f64) {
    let error = result.expect_err("refused");
    assert!(matches!(error, Error::InvalidNumber { .. }), "{value:e}: {error:?}");
    assert!(error.is_invalid_input());
}

#[tokio::test]
async fn every_write_path_refuses_what_dynamodb_cannot_store_and_stores_the_rest() {
    let db = db().await;
    let f = Score::fields();
    for (n, value) in values().into_iter().enumerate() {
        let id = unique(&format!("score-{n}"));
        let key = || Score::key(&id).unwrap();
        let put = db.put(&score(&id, value)).await;
        let transaction = db.transaction().put(&score(&format!("{id}-t"), value)).await;
        if storable(value) {
            put.unwrap();
            transaction.unwrap();
            let stored = db.get(key()).await.unwrap().unwrap();
            assert!(stored.value == value, "{value:e} reads back as {}", stored.value);
            db.update(key()).set(f.value, value).append(f.history, [value]).await.unwrap();
            db.update(key()).condition(f.value.eq(value)).set(f.big, 8).await.unwrap();
        } else {
            invalid(put, value);
            invalid(transaction, value);
            assert!(db.get(key()).await.unwrap().is_none(), "{value:e}: nothing stored");
            db.put(&score(&id, 1.0)).await.unwrap();
            invalid(db.update(key()).set(f.value, value).await, value);
            invalid(db.update(key()).append(f.history, [value]).await, value);
            invalid(db.update(key()).add(f.value, value).await, value);
            invalid(db.update(key()).condition(f.value.lt(value)).set(f.big, 8).await, value);
            assert_eq!(db.get(key()).await.unwrap().unwrap(), score(&id, 1.0), "{value:e}: nothing changed");
        }
    }
}

#[tokio::test]
async fn a_batch_with_one_bad_number_sends_nothing_and_names_it() {
    let db = db().await;
    let run = unique("scores");
    let mut scores: Vec<Score> = (0..100).map(|n| score(&format!("{run}-{n}"), n as f64)).collect();
    scores[60].history.push(f64::NAN);
    let error = db.batch_put(&scores).await.unwrap_err();
    assert!(
        matches!(&error, Error::InvalidNumber { attribute, value, .. } if attribute == "history[2]" && value == "NaN"),
        "{error:?}"
    );
    for score in &scores {
        assert!(db.get(Score::key(&score.id).unwrap()).await.unwrap().is_none(), "nothing stored");
    }
}
