//! Range conditions on an integer placeholder followed by more of the sort key
//! (`sk = "event#{at}#{id}"`): exact at both ends, whatever follows, across the whole `i64` range.

use crate::model::Music;
use crate::{db, unique};
use dynashard::{Db, Entity};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Music, pk = "events#{stream}", sk = "event#{at}#{id}")]
struct Event {
    stream: String,
    at: i64,
    id: String,
}

const TIMES: [i64; 11] =
    [i64::MIN, i64::MIN + 1, -1_000, -1, 0, 1, 999, 1_000, 1_001, i64::MAX - 1, i64::MAX];

/// Several events at each time, with ids that sort before and after the separator and the
/// escape character, so what follows the time varies as much as it can.
async fn written(db: &Db) -> (String, Vec<Event>) {
    let stream = unique("events");
    let mut events = Vec::new();
    for at in TIMES {
        for id in ["!", "#", "$", "a", "zz", "\u{7f}", "日本"] {
            events.push(Event { stream: stream.clone(), at, id: id.into() });
        }
    }
    db.batch_put(&events).await.unwrap();
    (stream, events)
}

async fn listed(db: &Db, query: dynashard::Query<Event, dynashard::query::Done>) -> Vec<(i64, String)> {
    let events: Vec<Event> = db.stream(query).try_collect().await.unwrap();
    events.into_iter().map(|event| (event.at, event.id)).collect()
}

#[tokio::test]
async fn integer_ranges_before_more_of_the_key_are_exact_at_both_ends() {
    let db = db().await;
    let (stream, events) = written(&db).await;
    let query = || Event::query(&stream);
    let expected = |keep: &dyn Fn(i64) -> bool| -> Vec<(i64, String)> {
        let mut ids: Vec<(i64, String)> =
            events.iter().filter(|event| keep(event.at)).map(|event| (event.at, event.id.clone())).collect();
        ids.sort_by_key(|(at, id)| (*at, dynashard::key::escape(id)));
        ids
    };
    for bound in TIMES {
        let context = format!("bound {bound}");
        assert_eq!(listed(&db, query().lt(bound)).await, expected(&|at| at < bound), "lt, {context}");
        assert_eq!(listed(&db, query().le(bound)).await, expected(&|at| at <= bound), "le, {context}");
        assert_eq!(listed(&db, query().gt(bound)).await, expected(&|at| at > bound), "gt, {context}");
        assert_eq!(listed(&db, query().ge(bound)).await, expected(&|at| at >= bound), "ge, {context}");
    }
    for (low, high) in [(-1, 1_000), (i64::MIN, i64::MAX), (0, 0), (999, 1_001)] {
        let got = listed(&db, query().between(low, high)).await;
        assert_eq!(got, expected(&|at| low <= at && at <= high), "between {low} and {high}");
    }
    // A range that ends before it starts is refused, as in filters and time windows.
    for (low, high) in [(1, -1), (i64::MAX, i64::MIN)] {
        let reversed: Result<Vec<Event>, _> = db.stream(query().between(low, high)).try_collect().await;
        assert!(matches!(reversed, Err(dynashard::Error::InvalidQuery { .. })), "{reversed:?}");
    }
    let mut descending = listed(&db, query().between(-1, 1_000).descending()).await;
    descending.reverse();
    assert_eq!(descending, expected(&|at| (-1..=1_000).contains(&at)), "descending is the reverse");
    let limited = listed(&db, query().gt(-1).limit(8)).await;
    assert_eq!(limited, expected(&|at| at > -1)[..8], "a limit cuts in order");
    assert_eq!(db.count(&query().between(-1, 1_000)).await.unwrap(), 7 * 5, "counted alike");
}
