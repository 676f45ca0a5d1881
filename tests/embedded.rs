//! The embedded backend (`dynashard_local::Embedded`): the library's reads and writes, a
//! sharded page in order, time to live that expires (on demand and on a schedule), and a server
//! that stops when dropped.

use dynashard::{Db, Entity, Table};
use dynashard_local::{Embedded, EmbeddedOptions};
use serde::{Deserialize, Serialize};
use std::time::{SystemTime, UNIX_EPOCH};

#[derive(Table)]
#[table(name = "EmbeddedTests", pk = "pk", sk = "sk", ttl = "expires_at")]
#[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
struct Records;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Records, pk = "record#{id}", sk = "record")]
#[gsi(ByTitle(pk = "titles", sk = "{title}"))]
#[shard(ByTitle(hash = 8, by = title))]
struct Record {
    id: u32,
    title: String,
    #[ttl]
    expires_at: Option<u64>,
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default()
}

async fn db(embedded: &Embedded) -> Db {
    let db = Db::new(embedded.client());
    db.create_table::<Records>().await.expect("create table");
    db
}

#[tokio::test]
async fn entities_and_a_sharded_page_round_trip() {
    let embedded = Embedded::start().expect("embedded DynamoDB");
    let db = db(&embedded).await;
    let records: Vec<Record> = (0..200)
        .map(|id| Record { id, title: format!("title {:03}", (id * 37) % 200), expires_at: None })
        .collect();
    db.batch_put(&records).await.expect("batch put");
    let stored = db.get(Record::key(7).expect("key")).await.expect("get");
    assert_eq!(stored.as_ref(), records.get(7));
    let page = db.page(&Record::query_by_title().page_size(50), None).await.expect("page");
    let titles: Vec<&str> = page.items.iter().map(|record| record.title.as_str()).collect();
    let expected: Vec<String> = (0..50).map(|n| format!("title {n:03}")).collect();
    assert_eq!(titles, expected, "the first 50 titles, merged from 8 shards in order");
}

#[tokio::test]
async fn a_sweep_deletes_what_has_expired() {
    let embedded = Embedded::start().expect("embedded DynamoDB");
    let db = db(&embedded).await;
    let expired = Record { id: 1, title: "old".into(), expires_at: Some(now() - 60) };
    let live = Record { id: 2, title: "new".into(), expires_at: Some(now() + 3_600) };
    db.put(&expired).await.expect("put");
    db.put(&live).await.expect("put");
    assert_eq!(embedded.sweep_ttl().expect("sweep"), 1);
    assert_eq!(db.get(Record::key(1).expect("key")).await.expect("get"), None);
    assert_eq!(db.get(Record::key(2).expect("key")).await.expect("get"), Some(live));
}

#[test]
fn dropping_it_stops_the_server() {
    let embedded = Embedded::start().expect("embedded DynamoDB");
    let address = embedded.endpoint().trim_start_matches("http://").to_owned();
    assert!(std::net::TcpStream::connect(&address).is_ok(), "served while held");
    drop(embedded);
    assert!(std::net::TcpStream::connect(&address).is_err(), "stopped once dropped");
}

#[tokio::test]
async fn a_schedule_sweeps_without_being_asked() {
    let options = EmbeddedOptions::default().sweep_ttl_every(std::time::Duration::from_millis(20));
    let embedded = Embedded::start_with(&options).expect("embedded DynamoDB");
    let db = db(&embedded).await;
    let expired = Record { id: 1, title: "old".into(), expires_at: Some(now() - 60) };
    db.put(&expired).await.expect("put");
    // However slow the machine, the sweep comes round; without a schedule it never would.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while db.get(Record::key(1).expect("key")).await.expect("get").is_some() {
        assert!(std::time::Instant::now() < deadline, "the expired item was never swept");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn a_connection_to_the_embedded_backend_sweeps_on_demand() {
    let connection = dynashard_local::connect_to(dynashard_local::Backend::Embedded).await.expect("connect");
    assert!(connection.embedded().is_some() && connection.local().is_none());
    let db = connection.db();
    db.create_table::<Records>().await.expect("create table");
    db.put(&Record { id: 1, title: "old".into(), expires_at: Some(now() - 60) }).await.expect("put");
    assert_eq!(connection.sweep_ttl().expect("sweep"), 1);
    let endpoint =
        dynashard_local::connect_to(dynashard_local::Backend::Endpoint(connection.url().to_owned()))
            .await
            .expect("connect to an endpoint");
    assert!(
        matches!(
            endpoint.sweep_ttl(),
            Err(dynashard_local::LocalError::Unsupported { backend: "endpoint", .. })
        ),
        "an endpoint someone else runs is not swept from here"
    );
}

#[derive(Table)]
#[table(
    name = "EmbeddedExpiring",
    pk = "pk",
    sk = "sk",
    ttl = "expires_at",
    stream = "new_and_old_images",
    shard_metadata = "EmbeddedExpiringMetadata"
)]
struct Expiring;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Expiring, pk = "session#{id}", sk = "session")]
struct Session {
    id: u32,
    #[ttl]
    expires_at: Option<u64>,
}

#[tokio::test]
async fn a_deletion_by_time_to_live_reaches_a_change_feed_flagged_as_one() {
    use dynashard::changes::{Change, ChangeKind};
    let embedded = Embedded::start().expect("embedded DynamoDB");
    let db = Db::new(embedded.client())
        .with_streams_client(embedded.streams_client())
        .with_shard_metadata(dynashard::metadata::ShardMetadata::new("EmbeddedExpiringMetadata"));
    db.create_table::<Expiring>().await.expect("create table");
    db.create_shard_metadata_table().await.expect("create metadata table");
    let feed = db.change_feed::<Expiring>("expiry").expect("feed");
    feed.begin().await.expect("begin");
    db.put(&Session { id: 1, expires_at: Some(now() - 60) }).await.expect("put");
    db.put(&Session { id: 2, expires_at: Some(now() + 3_600) }).await.expect("put");
    db.delete(Session::key(2).expect("key")).await.expect("delete");
    assert_eq!(embedded.sweep_ttl().expect("sweep"), 1);
    let removed = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = removed.clone();
    feed.catch_up(move |page| {
        let sink = sink.clone();
        async move {
            for record in &page.records {
                if let Change::Item(change) = record.decode::<Session>()? {
                    if change.kind == ChangeKind::Remove {
                        let id = change.old.map(|session| session.id);
                        sink.lock().expect("lock").push((id, change.by_time_to_live));
                    }
                }
            }
            Ok(())
        }
    })
    .await
    .expect("catch up");
    let mut removed = removed.lock().expect("lock").clone();
    removed.sort();
    assert_eq!(removed, [(Some(1), true), (Some(2), false)], "the expiry flagged, the delete not");
}
