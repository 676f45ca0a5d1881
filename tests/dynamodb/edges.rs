//! What a careless or hostile caller reaches: time windows over the whole range of `i64`, index
//! keys pushed past DynamoDB's limits by shard suffixes, buckets and range sort keys,
//! transactions over 4 MB, pages of nothing.

use crate::{db, unique};
use dynashard::transaction::MAX_TRANSACTION_BYTES;
use dynashard::{Db, Entity, Error, KeyError, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "EdgeTests", pk = "pk", sk = "sk")]
#[gsi(ByDay(pk = "day_pk", sk = "day_sk"))]
#[gsi(ByMinute(pk = "minute_pk", sk = "minute_sk"))]
#[gsi(ByHash(pk = "hash_pk", sk = "hash_sk"))]
#[gsi(ByRange(pk = "range_pk", sk = "range_sk"))]
#[gsi(ByHour(pk = "hour_pk", sk = "hour_sk"))]
pub struct Edges;

/// One event, in every layout whose keys grow past what the event's own fields hold.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Edges, pk = "event#{id}", sk = "event")]
#[gsi(ByDay(pk = "{kind}", sk = "{at}#{id}"))]
#[shard(ByDay(hash = 4, by = id, bucket = "day", at = at))]
#[gsi(ByMinute(pk = "minutes", sk = "{at}#{id}"))]
#[shard(ByMinute(random = 4, bucket = "minute", at = at))]
#[gsi(ByHash(pk = "{kind}", sk = "{id}"))]
#[shard(ByHash(hash = 21, by = id))]
#[gsi(ByRange(pk = "titles", sk = "{title}"))]
#[shard(ByRange(range = "tests/data/album_boundaries_21.json", by = title))]
#[gsi(ByHour(pk = "hours", sk = "{id}#{at}"))]
#[shard(ByHour(hash = 4, by = id, bucket = "hour", at = at))]
pub struct Event {
    pub id: String,
    pub kind: String,
    pub at: i64,
    pub title: String,
    pub body: String,
}

fn event(id: &str, kind: &str, title: &str) -> Event {
    Event { id: id.into(), kind: kind.into(), at: 1_698_419_045, title: title.into(), body: String::new() }
}

/// A `Db` whose endpoint accepts no connection: a typed validation error from it proves that
/// nothing was sent.
fn unreachable_db() -> Db {
    Db::new(dynashard::client_for_endpoint("http://127.0.0.1:9"))
}

async fn edges_db() -> Db {
    let db = db().await;
    db.create_table::<Edges>().await.expect("create EdgeTests");
    db
}

async fn first_error<E: dynashard::query::FromItem + Send + 'static, F>(
    db: &Db,
    query: dynashard::Query<E, F>,
) -> Error {
    let result: Result<Vec<E>, Error> = db.stream(query).try_collect().await;
    result.err().expect("the query fails")
}

#[tokio::test]
async fn windows_over_the_whole_range_of_i64_are_refused_not_planned() {
    let db = unreachable_db();
    let windows =
        [(0, i64::MAX), (i64::MIN, i64::MAX), (i64::MIN, 0), (i64::MIN, i64::MIN + 86_400 * 200_000)];
    for (from, to) in windows {
        let error = first_error(&db, Event::query_by_day("x", from, to)).await;
        assert!(matches!(error, Error::WindowTooWide { max: 100_000, .. }), "{from}..={to}: {error:?}");
        assert!(error.is_invalid_input());
        let paged = db.page(&Event::query_by_day("x", from, to), None).await.expect_err("refused");
        assert!(matches!(paged, Error::WindowTooWide { .. }), "{paged:?}");
        let one = first_error(&db, Event::query_by_day_for("id", "x", from, to)).await;
        assert!(matches!(one, Error::WindowTooWide { .. }), "{one:?}");
    }
    // A year of minute buckets over 4 shards: 2.1 million partitions, counted exactly.
    let year = first_error(&db, Event::query_by_minute(0, 365 * 86_400 - 1)).await;
    assert!(matches!(year, Error::WindowTooWide { partitions: 2_102_400, max: 100_000 }), "{year:?}");
    // The bound is the caller's to set; a window that ends before it starts is refused.
    let narrow = first_error(&db, Event::query_by_minute(0, 86_400 - 1).max_partitions(5_000)).await;
    assert!(matches!(narrow, Error::WindowTooWide { partitions: 5_760, max: 5_000 }), "{narrow:?}");
    let backwards = first_error(&db, Event::query_by_day("x", 10, 5)).await;
    assert!(matches!(backwards, Error::InvalidQuery { .. }), "{backwards:?}");

    // With shard metadata configured, a query reads it before running: not one that cannot run.
    let with_metadata =
        unreachable_db().with_shard_metadata(dynashard::metadata::ShardMetadata::new("ShardMetadata"));
    let error = first_error(&with_metadata, Event::query_by_day("x", i64::MIN, i64::MAX)).await;
    assert!(matches!(error, Error::WindowTooWide { .. }), "{error:?}");
    let paged =
        with_metadata.page(&Event::query_by_day("x", i64::MIN, i64::MAX), None).await.expect_err("refused");
    assert!(matches!(paged, Error::WindowTooWide { .. }), "{paged:?}");
    let nothing =
        with_metadata.page(&Event::query_by_day("x", 0, 10).limit(0), None).await.expect("no request");
    assert!(nothing.items.is_empty() && nothing.cursor.is_none());
}

#[tokio::test]
async fn windows_at_the_ends_of_time_are_read() {
    let db = edges_db().await;
    let kind = unique("ends");
    let mut first = event(&unique("e"), &kind, "First");
    first.at = i64::MIN;
    let mut last = event(&unique("e"), &kind, "Last");
    last.at = i64::MAX;
    db.batch_put(&[first.clone(), last.clone()]).await.expect("stored");
    let read = |from, to| db.stream(Event::query_by_day(&kind, from, to)).try_collect::<Vec<Event>>();
    assert_eq!(read(i64::MIN, i64::MIN + 86_399).await.expect("the first day"), [first]);
    assert_eq!(read(i64::MAX - 86_399, i64::MAX).await.expect("the last day"), [last]);
}

#[tokio::test]
async fn index_keys_are_checked_after_every_suffix() {
    let db = unreachable_db();
    // 2,046 bytes fit a partition key; a shard suffix (`#3`) and a day bucket after them do not.
    let long_kind = "k".repeat(2_046);
    let error = db.put(&event("a", &long_kind, "T")).await.expect_err("refused");
    let too_long = |error: &Error, index: &str, attribute: &str| {
        matches!(error, Error::InvalidIndexKey { index: i, attribute: a, reason: KeyError::TooLong { .. } }
            if *i == index && *a == attribute)
    };
    // The first index in declaration order that breaks the limit is named.
    assert!(too_long(&error, "ByDay", "day_pk"), "{error:?}");
    assert!(error.is_invalid_input());
    // One byte over with both: 2,036 + `#N` + `#2023-10-27` is 2,049 bytes.
    let error = db.put(&event("a", &"k".repeat(2_036), "T")).await.expect_err("refused");
    assert!(too_long(&error, "ByDay", "day_pk"), "{error:?}");

    // A range index's sort key holds the normalized value, the value and the base key.
    let error = db.put(&event("a", "k", &"t".repeat(600))).await.expect_err("refused");
    assert!(too_long(&error, "ByRange", "range_sk"), "{error:?}");
    // U+FDFA is one character of 3 bytes that NFKD turns into 18 characters (33 bytes).
    let error = db.put(&event("a", "k", &"\u{FDFA}".repeat(30))).await.expect_err("refused");
    assert!(too_long(&error, "ByRange", "range_sk"), "{error:?}");
    // An empty range value is refused, as every empty key value is.
    let error = db.put(&event("a", "k", "")).await.expect_err("refused");
    assert!(
        matches!(
            &error,
            Error::InvalidIndexKey { index: "ByRange", reason: KeyError::EmptyValue { field: "title" }, .. }
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_batch_with_one_invalid_index_key_sends_nothing() {
    let db = edges_db().await;
    let kind = unique("batch");
    let mut events: Vec<Event> =
        (0..100).map(|n| event(&unique("e"), &kind, &format!("Title {n}"))).collect();
    events[57].kind = "k".repeat(2_046);
    let error = db.batch_put(&events).await.expect_err("refused");
    assert!(matches!(error, Error::InvalidIndexKey { index: "ByDay", .. }), "{error:?}");
    let keys = events.iter().map(|event| Event::key(&event.id).expect("key"));
    let stored = db.batch_get(keys).consistent().await.expect("read back");
    assert!(stored.iter().all(Option::is_none), "nothing was written");
    // The same batch without the bad item goes through whole.
    events.remove(57);
    db.batch_put(&events).await.expect("stored");
}

#[tokio::test]
async fn the_longest_index_keys_that_fit_are_stored() {
    let db = edges_db().await;
    // Exactly 2,048 bytes in ByDay: the shard suffix `#N` (2 bytes) and the day bucket
    // `#YYYY-MM-DD` (11 bytes); ByHash's `#NN` leaves it shorter.
    let kind = format!("{}-", unique("fit"))
        .chars()
        .chain(std::iter::repeat('k'))
        .take(2_048 - 13)
        .collect::<String>();
    let fits = event(&unique("e"), &kind, &"t".repeat(300));
    db.put(&fits).await.expect("every index key within its limit");
    let read: Vec<Event> = db.stream(Event::query_by_hash(&kind)).try_collect().await.expect("listed");
    assert_eq!(read, [fits]);
}

#[tokio::test]
async fn transactions_over_four_megabytes_are_refused_before_sending() {
    let db = unreachable_db();
    let events: Vec<Event> = (0..11)
        .map(|n| Event { body: "b".repeat(390 * 1024), ..event(&format!("big-{n}"), "k", "T") })
        .collect();
    let transaction = events.iter().fold(db.transaction(), |transaction, event| transaction.put(event));
    let error = transaction.await.expect_err("refused");
    assert!(
        matches!(error, Error::TransactionTooBig { bytes, max: MAX_TRANSACTION_BYTES } if bytes > MAX_TRANSACTION_BYTES),
        "{error:?}"
    );
    assert!(error.is_invalid_input());
}

#[tokio::test]
async fn a_page_of_nothing_reads_nothing() {
    let db = edges_db().await;
    let kind = unique("nothing");
    let events: Vec<Event> = (0..5).map(|n| event(&unique("e"), &kind, &format!("T{n}"))).collect();
    db.batch_put(&events).await.expect("stored");
    let page = db.page(&Event::query_by_hash(&kind).limit(0), None).await.expect("a page");
    assert!(page.items.is_empty() && page.cursor.is_none(), "{page:?}");
    assert_eq!(page.stats.requests, 0);
    let unsharded = Event::query(&events[0].id).limit(0);
    let page = db.page(&unsharded, None).await.expect("a page");
    assert!(page.items.is_empty() && page.cursor.is_none(), "{page:?}");
    let streamed: Vec<Event> =
        db.stream(Event::query_by_hash(&kind).limit(0)).try_collect().await.expect("ok");
    assert!(streamed.is_empty());

    for query in [Event::query_by_hash(&kind).page_size(0)] {
        let error = db.page(&query, None).await.expect_err("refused");
        assert!(matches!(error, Error::InvalidQuery { .. }), "{error:?}");
    }
    let error = first_error(&db, Event::query(&events[0].id).page_size(0)).await;
    assert!(matches!(error, Error::InvalidQuery { .. }), "{error:?}");
}

#[tokio::test]
async fn another_partitions_cursor_is_another_query() {
    let db = edges_db().await;
    let (a, b) = (unique("a"), unique("b"));
    let events: Vec<Event> =
        (0..30).map(|n| event(&unique("e"), if n % 2 == 0 { &a } else { &b }, &format!("T{n}"))).collect();
    db.batch_put(&events).await.expect("stored");
    let cursor =
        db.page(&Event::query_by_hash(&a).page_size(5), None).await.expect("a page").cursor.expect("more");
    let error = db.page(&Event::query_by_hash(&b).page_size(5), Some(&cursor)).await.expect_err("refused");
    assert!(
        matches!(error, Error::InvalidCursor { reason: dynashard::query::CursorError::WrongQuery }),
        "{error:?}"
    );
    // Another time window over the same buckets, on an index not sorted by time (so the sort
    // condition is the same), is another query too.
    let hour = 1_698_418_800; // 2023-10-27T15:00, the hour of every event here
    let (from, to) = (hour + 60, hour + 120);
    let cursor = db.page(&Event::query_by_hour(from, to).page_size(5), None).await.expect("a page").cursor;
    let cursor = cursor.expect("more");
    let same = db.page(&Event::query_by_hour(from, to).page_size(5), Some(&cursor)).await.expect("resumed");
    assert!(!same.items.is_empty());
    let error =
        db.page(&Event::query_by_hour(from, to + 1).page_size(5), Some(&cursor)).await.expect_err("refused");
    assert!(
        matches!(error, Error::InvalidCursor { reason: dynashard::query::CursorError::WrongQuery }),
        "{error:?}"
    );
}
