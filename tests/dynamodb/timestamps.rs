//! `#[created_at]` and `#[updated_at]`: the first write's time kept by puts that replace and by
//! upserts, every write's time, batch writes carrying the entity's creation time, and times in
//! keys sorting as times.

use crate::{db, unique};
use dynashard::{AttributeValue, Db, Entity, Error, Item, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use std::time::Duration as StdDuration;
use time::{Duration, OffsetDateTime};

#[derive(Table)]
#[table(name = "StampTests", pk = "pk", sk = "sk")]
#[gsi(ByTag(pk = "tag_pk", sk = "tag_sk"))]
struct Stamps;

/// Times as RFC 3339 text, renamed by `rename_all`.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Stamps, pk = "doc#{id}", sk = "doc")]
#[sparse_gsi(ByTag(pk = "{tag}", sk = "{id}"))]
#[serde(rename_all = "camelCase")]
struct Document {
    id: String,
    title: String,
    tag: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    #[created_at]
    #[serde(with = "time::serde::rfc3339")]
    created_at: OffsetDateTime,
    #[updated_at]
    #[serde(with = "time::serde::rfc3339")]
    updated_at: OffsetDateTime,
}

/// A versioned entity: creation time as epoch seconds, update time optional and renamed.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Stamps, pk = "ticket#{id}", sk = "ticket")]
struct Ticket {
    id: String,
    state: String,
    #[version]
    version: u64,
    #[created_at]
    #[serde(with = "time::serde::timestamp")]
    opened: OffsetDateTime,
    #[updated_at]
    #[serde(rename = "touched", default, with = "time::serde::rfc3339::option")]
    changed: Option<OffsetDateTime>,
}

/// A time in a sort key.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Stamps, pk = "log#{stream}", sk = "{at}")]
struct LogLine {
    stream: String,
    #[serde(with = "time::serde::rfc3339")]
    at: OffsetDateTime,
    text: String,
}

async fn setup() -> Db {
    let db = db().await;
    db.create_table::<Stamps>().await.expect("create StampTests");
    db
}

fn document(id: &str, title: &str, tag: Option<&str>) -> Document {
    Document {
        id: id.to_owned(),
        title: title.to_owned(),
        tag: tag.map(str::to_owned),
        note: Some("first draft".to_owned()),
        created_at: OffsetDateTime::UNIX_EPOCH,
        updated_at: OffsetDateTime::UNIX_EPOCH,
    }
}

async fn raw(db: &Db, pk: &str, sk: &str) -> Item {
    let key = Item::from([
        ("pk".to_owned(), AttributeValue::S(pk.to_owned())),
        ("sk".to_owned(), AttributeValue::S(sk.to_owned())),
    ]);
    let got = db.client().get_item().table_name("StampTests").set_key(Some(key)).send().await.unwrap();
    got.item.expect("stored")
}

/// A moment later than every time written so far, by the clock's resolution at least.
async fn later() {
    tokio::time::sleep(StdDuration::from_millis(5)).await;
}

#[tokio::test]
async fn a_put_that_replaces_keeps_the_creation_time_and_leaves_what_the_new_value_lacks() {
    let db = setup().await;
    let id = unique("Doc");
    let before = OffsetDateTime::now_utc();
    db.put(&document(&id, "Draft", Some("urgent"))).await.unwrap();
    let first = db.get(Document::key(&id).unwrap()).await.unwrap().expect("stored");
    assert!(first.created_at >= before, "the time of the write, not the value's: {}", first.created_at);
    assert_eq!(first.updated_at, first.created_at, "one time for a new item");
    assert_eq!(db.stream(Document::query_by_tag("urgent")).try_collect::<Vec<_>>().await.unwrap().len(), 1);

    later().await;
    let mut replacement = document(&id, "Final", None);
    replacement.note = None;
    db.put(&replacement).await.unwrap();
    let second = db.get(Document::key(&id).unwrap()).await.unwrap().expect("stored");
    assert_eq!(second.created_at, first.created_at, "kept");
    assert!(second.updated_at > first.updated_at);
    assert_eq!((second.title.as_str(), second.tag.as_deref(), second.note.as_deref()), ("Final", None, None));
    let item = raw(&db, &format!("doc#{id}"), "doc").await;
    for gone in ["note", "tag_pk", "tag_sk"] {
        assert!(!item.contains_key(gone), "{gone} removed as a put would: {item:?}");
    }
    assert!(
        matches!(&item["createdAt"], AttributeValue::S(text) if text.ends_with('Z')),
        "the field's serde module: {item:?}"
    );
    assert!(db
        .stream(Document::query_by_tag("urgent"))
        .try_collect::<Vec<Document>>()
        .await
        .unwrap()
        .is_empty());

    let error = db.put(&replacement).create_only().await.unwrap_err();
    assert!(matches!(error, Error::AlreadyExists), "{error:?}");
}

#[tokio::test]
async fn save_reads_back_the_stored_times_and_versions_still_guard() {
    let db = setup().await;
    let id = unique("Ticket");
    let mut ticket = Ticket {
        id: id.clone(),
        state: "open".into(),
        version: 0,
        opened: OffsetDateTime::UNIX_EPOCH,
        changed: None,
    };
    db.save(&mut ticket).await.unwrap();
    assert_eq!(ticket.version, 1);
    assert!(
        ticket.opened > OffsetDateTime::UNIX_EPOCH + Duration::days(365),
        "the stored creation time: {}",
        ticket.opened
    );
    let opened = ticket.opened;
    let first_change = ticket.changed.expect("the update time");

    later().await;
    ticket.state = "closed".into();
    db.save(&mut ticket).await.unwrap();
    assert_eq!((ticket.version, ticket.opened), (2, opened), "creation time kept");
    assert!(ticket.changed.unwrap() > first_change);
    let stored = db.get(Ticket::key(&id).unwrap()).await.unwrap().unwrap();
    assert_eq!(stored.opened.unix_timestamp(), ticket.opened.unix_timestamp(), "epoch seconds");
    assert_eq!(stored.changed, ticket.changed);
    let item = raw(&db, &format!("ticket#{id}"), "ticket").await;
    assert!(matches!(item["opened"], AttributeValue::N(_)) && item.contains_key("touched"), "{item:?}");

    later().await;
    let touched = db.update(Ticket::key(&id).unwrap()).await.unwrap();
    assert_eq!(touched.version, 3, "an update without actions still raises the version");
    assert!(touched.changed > ticket.changed, "and so writes the update time");
    ticket = touched;

    let mut stale = ticket.clone();
    stale.version = 1;
    let error = db.save(&mut stale).await.unwrap_err();
    assert!(matches!(error, Error::VersionConflict { expected: 1, found: Some(3) }), "{error:?}");
}

#[tokio::test]
async fn upserts_set_the_creation_time_once_and_updates_move_the_update_time() {
    let db = setup().await;
    let id = unique("Upsert");
    let f = Document::fields();
    let created = db.upsert(Document::key(&id).unwrap()).set(f.title, "New").set(f.tag, None).await.unwrap();
    assert_eq!(created.created_at, created.updated_at);
    assert!(created.created_at > OffsetDateTime::UNIX_EPOCH + Duration::days(365));

    later().await;
    let upserted = db.upsert(Document::key(&id).unwrap()).set(f.title, "Again").await.unwrap();
    assert_eq!(upserted.created_at, created.created_at, "kept by an upsert of an existing item");
    assert!(upserted.updated_at > created.updated_at);

    later().await;
    let updated = db.update(Document::key(&id).unwrap()).set(f.note, Some("noted".to_owned())).await.unwrap();
    assert_eq!(updated.created_at, created.created_at);
    assert!(updated.updated_at > upserted.updated_at);

    // A hand-written SET of the update time writes it instead: no second SET of one path.
    let raw_set = dynashard::RawExpression::new("#u = :u")
        .name("#u", "updatedAt")
        .value(":u", AttributeValue::S("2030-01-01T00:00:00Z".into()));
    let by_hand = db.update(Document::key(&id).unwrap()).set(f.title, "Hand").set_raw(raw_set).await.unwrap();
    assert_eq!(by_hand.updated_at, OffsetDateTime::from_unix_timestamp(1_893_456_000).unwrap());
}

#[tokio::test]
async fn batch_writes_store_the_creation_time_the_entity_carries() {
    let db = setup().await;
    let imported_at = OffsetDateTime::from_unix_timestamp(1_500_000_000).unwrap();
    let documents: Vec<Document> = (0..3)
        .map(|n| Document { created_at: imported_at, ..document(&unique("Import"), &format!("n{n}"), None) })
        .collect();
    let before = OffsetDateTime::now_utc();
    db.batch_put(&documents).await.unwrap();
    for original in &documents {
        let stored = db.get(Document::key(&original.id).unwrap()).await.unwrap().unwrap();
        assert_eq!(stored.created_at, imported_at, "an import keeps the source's time");
        assert!(stored.updated_at >= before, "written now");
    }
}

#[tokio::test]
async fn transactions_keep_the_creation_time_and_save_the_update_time() {
    let db = setup().await;
    let id = unique("TxDoc");
    db.put(&document(&id, "One", None)).await.unwrap();
    let first = db.get(Document::key(&id).unwrap()).await.unwrap().unwrap();
    later().await;
    let mut second = document(&id, "Two", Some("tx"));
    db.transaction().save(&mut second).await.unwrap();
    let stored = db.get(Document::key(&id).unwrap()).await.unwrap().unwrap();
    assert_eq!(stored.created_at, first.created_at, "a transaction put keeps it too");
    assert_eq!(second.updated_at, stored.updated_at, "save sets the update time it wrote");
    assert_eq!(
        second.created_at,
        OffsetDateTime::UNIX_EPOCH,
        "and leaves the creation time, which it cannot read"
    );
    assert_eq!(stored.tag.as_deref(), Some("tx"));
    assert_eq!(
        db.stream(Document::query_by_tag("tx")).try_collect::<Vec<Document>>().await.unwrap().len(),
        1
    );
}

#[tokio::test]
async fn times_in_keys_sort_as_times_and_read_back() {
    let db = setup().await;
    let stream = unique("Log");
    let base = OffsetDateTime::from_unix_timestamp(1_764_000_000).unwrap();
    let offset = time::UtcOffset::from_hms(-7, 0, 0).unwrap();
    let times = [
        base + Duration::nanoseconds(1),
        (base - Duration::hours(3)).to_offset(offset),
        base + Duration::seconds(10),
        time::Date::from_calendar_date(1066, time::Month::October, 15).unwrap().midnight().assume_utc(),
        base,
    ];
    let lines: Vec<LogLine> =
        times.iter().map(|at| LogLine { stream: stream.clone(), at: *at, text: at.to_string() }).collect();
    db.batch_put(&lines).await.unwrap();
    let read: Vec<LogLine> = db.stream(LogLine::query(&stream)).try_collect().await.unwrap();
    let mut sorted = times.to_vec();
    sorted.sort();
    assert_eq!(read.iter().map(|line| line.at).collect::<Vec<_>>(), sorted, "key order is time order");
    let key = LogLine::key(&stream, times[1].to_offset(time::UtcOffset::UTC)).unwrap();
    assert_eq!(
        db.get(key).await.unwrap().map(|line| line.text),
        Some(times[1].to_string()),
        "one key per instant"
    );

    // An upsert reads the time back from the key and stores it as the field's serde module does.
    let at = base + Duration::minutes(5) + Duration::nanoseconds(7);
    let upserted =
        db.upsert(LogLine::key(&stream, at).unwrap()).set(LogLine::fields().text, "late").await.unwrap();
    assert_eq!((upserted.at, upserted.text.as_str()), (at, "late"));
    let item = raw(&db, &format!("log#{stream}"), &upserted.primary_key().unwrap().sk.unwrap()).await;
    assert!(
        matches!(&item["at"], AttributeValue::S(text) if text.ends_with('Z')),
        "RFC 3339, as a put writes it: {item:?}"
    );
}
