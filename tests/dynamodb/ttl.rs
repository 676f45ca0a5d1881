//! Time to live: `create_table` turns it on for the table's `ttl` attribute, a `#[ttl]` field is
//! stored there as epoch seconds (an integer, or a time written by a serde module), and reads can
//! leave out items past their time that DynamoDB has not deleted yet.

use crate::{db, unique};
use dynashard::{Db, Entity, Error, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

#[derive(Table)]
#[table(name = "TtlTests", pk = "pk", sk = "sk", ttl = "expires_at")]
#[gsi(ByUser(pk = "user_pk", sk = "user_sk", projection = ["user", "id", "expires_at"]))]
#[gsi(Keys(pk = "keys_pk", sk = "keys_sk", projection = "keys_only"))]
struct Sessions;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Sessions, pk = "session#{user}", sk = "{id}")]
#[gsi(ByUser(pk = "{user}", sk = "{id}"))]
#[gsi(Keys(pk = "{user}", sk = "{id}"))]
struct Session {
    user: String,
    id: u32,
    #[ttl]
    #[serde(default, with = "time::serde::timestamp::option")]
    expires_at: Option<OffsetDateTime>,
}

/// A `#[ttl]` field written by a serde module that does not store a number.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Sessions, pk = "token#{id}", sk = "token")]
struct Token {
    id: String,
    #[ttl]
    #[serde(with = "as_text")]
    expires_at: OffsetDateTime,
}

/// Stores a time as text: not what time to live reads.
mod as_text {
    use serde::{Deserialize, Deserializer, Serializer};
    use time::OffsetDateTime;

    pub fn serialize<S: Serializer>(time: &OffsetDateTime, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&time.unix_timestamp().to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<OffsetDateTime, D::Error> {
        let text = String::deserialize(deserializer)?;
        let seconds: i64 = text.parse().map_err(serde::de::Error::custom)?;
        OffsetDateTime::from_unix_timestamp(seconds).map_err(serde::de::Error::custom)
    }
}

async fn setup() -> Db {
    let db = db().await;
    db.create_table::<Sessions>().await.expect("create TtlTests");
    db
}

#[tokio::test]
async fn create_table_turns_time_to_live_on() {
    let db = setup().await;
    let described = db.client().describe_time_to_live().table_name("TtlTests").send().await.unwrap();
    let ttl = described.time_to_live_description().expect("a description");
    assert_eq!(ttl.attribute_name(), Some("expires_at"));
    assert_eq!(ttl.time_to_live_status().map(|status| status.as_str()), Some("ENABLED"));
    db.create_table::<Sessions>().await.expect("idempotent, with time to live on already");
    assert_eq!(db.verify_table::<Sessions>().await.unwrap(), [], "time to live as declared");
    let json = Sessions::DEFINITION.time_to_live_json("TtlTests").unwrap();
    assert_eq!(json["TimeToLiveSpecification"]["Enabled"], true);
}

#[tokio::test]
async fn expired_items_are_left_out_when_asked() {
    // A table of its own with time to live turned off after creation: DynamoDB (and DynamoDB
    // Local, at a moment of its choosing) deletes expired items, and this test needs one kept.
    let table = unique("TtlKept");
    let db = db().await.with_table_name::<Sessions>(&table).expect("a valid table name");
    db.create_table::<Sessions>().await.unwrap();
    let off = aws_sdk_dynamodb::types::TimeToLiveSpecification::builder()
        .attribute_name("expires_at")
        .enabled(false)
        .build()
        .unwrap();
    db.client()
        .update_time_to_live()
        .table_name(&table)
        .time_to_live_specification(off)
        .send()
        .await
        .unwrap();
    let user = unique("Ttl");
    let now = OffsetDateTime::now_utc().replace_nanosecond(0).unwrap();
    let session =
        |id: u32, expires_at: Option<OffsetDateTime>| Session { user: user.clone(), id, expires_at };
    let sessions = [
        session(1, Some(now - time::Duration::hours(1))),
        session(2, Some(now + time::Duration::hours(1))),
        session(3, None),
    ];
    db.batch_put(&sessions).await.unwrap();
    let key = dynashard::item::key_item(&Sessions::DEFINITION, Session::key(&user, 1).unwrap().primary());
    let raw = db.client().get_item().table_name(&table).set_key(Some(key)).send().await.unwrap();
    let stored = raw.item.unwrap()["expires_at"].clone();
    assert_eq!(
        stored,
        dynashard::AttributeValue::N((now.unix_timestamp() - 3_600).to_string()),
        "epoch seconds"
    );

    let ids = |found: Vec<Session>| found.into_iter().map(|session| session.id).collect::<Vec<_>>();
    let all: Vec<Session> = db.stream(Session::query(&user)).try_collect().await.unwrap();
    assert_eq!(ids(all), [1, 2, 3], "with time to live off, the expired one is still there");
    let live: Vec<Session> = db.stream(Session::query(&user).unexpired()).try_collect().await.unwrap();
    assert_eq!(live, sessions[1..]);
    let by_user: Vec<Session> =
        db.stream(Session::query_by_user(&user).unexpired()).try_collect().await.unwrap();
    assert_eq!(ids(by_user), [2, 3], "through an index that holds the attribute");
    assert_eq!(db.count(&Session::query(&user).unexpired()).await.unwrap(), 2);
    let scanned: Vec<Session> = db.stream(Session::scan().unexpired()).try_collect().await.unwrap();
    let scanned: Vec<u32> =
        scanned.into_iter().filter(|session| session.user == user).map(|s| s.id).collect();
    assert_eq!(scanned.len(), 2, "{scanned:?}");
    assert!(!scanned.contains(&1));

    let get = |id: u32| db.get(Session::key(&user, id).unwrap());
    assert!(get(1).await.unwrap().is_some(), "a plain get still reads it");
    assert_eq!(get(1).unexpired().await.unwrap(), None, "past its time");
    assert_eq!(get(2).unexpired().await.unwrap(), Some(sessions[1].clone()));
    assert_eq!(get(3).unexpired().await.unwrap(), Some(sessions[2].clone()), "no time to live");
    let scan = db.stream(Session::scan().index("Keys").unexpired()).try_collect::<Vec<_>>().await;
    assert!(matches!(scan, Err(Error::InvalidQuery { .. })), "a scan of an index without it: {scan:?}");
    let keys_only = db.page(&Session::query_keys(&user).hydrate().unexpired(), None).await.unwrap_err();
    assert!(matches!(keys_only, Error::InvalidQuery { .. }), "the index lacks the attribute: {keys_only:?}");
}

#[tokio::test]
async fn a_ttl_that_is_not_a_number_and_a_table_without_ttl_are_refused() {
    let db = setup().await;
    let token = Token { id: unique("Token"), expires_at: OffsetDateTime::now_utc() };
    let error = db.put(&token).await.unwrap_err();
    assert!(
        matches!(&error, Error::InvalidTtl { .. }) && error.to_string().contains("epoch seconds"),
        "{error}"
    );
    let error = db.page(&crate::model::Song::query("x").unexpired(), None).await.unwrap_err();
    assert!(matches!(error, Error::InvalidQuery { .. }), "{error:?}");
}

/// A `#[ttl]` field of raw epoch numbers, as a careless caller fills it.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Sessions, pk = "lease#{id}", sk = "lease")]
struct Lease {
    id: String,
    #[ttl]
    expires_at: i64,
}

#[tokio::test]
async fn milliseconds_negative_and_extreme_times_to_live_are_refused_in_every_write() {
    let db = setup().await;
    let now = OffsetDateTime::now_utc().unix_timestamp();
    for refused in [now * 1_000, -1, i64::MIN, i64::MAX] {
        let lease = Lease { id: unique("Lease"), expires_at: refused };
        let error = db.put(&lease).await.unwrap_err();
        assert!(matches!(error, Error::InvalidTtl { .. }), "{refused}: {error:?}");
        let error = db.batch_put(std::slice::from_ref(&lease)).await.unwrap_err();
        assert!(matches!(error, Error::InvalidTtl { .. }), "{refused}: {error:?}");
        let error = db.transaction().put(&lease).await.unwrap_err();
        assert!(matches!(error, Error::InvalidTtl { .. }), "{refused}: {error:?}");
        assert!(db.get(Lease::key(&lease.id).unwrap()).await.unwrap().is_none(), "nothing stored");
        let stored = Lease { id: unique("Lease"), expires_at: now + 60 };
        db.put(&stored).await.unwrap();
        let key = Lease::key(&stored.id).unwrap();
        let error = db.update(key.clone()).set(Lease::fields().expires_at, refused).await.unwrap_err();
        assert!(matches!(error, Error::InvalidTtl { .. }), "{refused}: {error:?}");
        assert_eq!(db.get(key).await.unwrap().unwrap(), stored);
    }
}
