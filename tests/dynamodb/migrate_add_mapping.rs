//! A mapping added to an entity whose items exist: reads refused until the migration cuts over,
//! then every item found exactly once, whatever wrote it (the old declaration, the new one, the
//! raw SDK) and whenever; verification finds seeded faults once each and repairs them.

use crate::{unique, Own};
use aws_sdk_dynamodb::types::AttributeValue;
use dynashard::metadata::ShardMetadata;
use dynashard::reshard::{Backfill, Migration, MigrationKind, Phase, Verify};
use dynashard::{Db, Entity, Error, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const TABLE: &str = "AddMappingTests";

#[derive(Table)]
#[table(
    name = "AddMappingTests",
    pk = "pk",
    sk = "sk",
    shard_metadata = "AddMappingMetaTests",
    stream = "new_image"
)]
#[gsi(ByEmail(pk = "email_pk", sk = "email_sk"))]
#[gsi(ByPlan(pk = "plan_pk", sk = "plan_sk"))]
struct Accounts;

/// The entity as first deployed, without the mappings.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Accounts, name = "User", pk = "org#{org}", sk = "user#{id}")]
struct UserV1 {
    org: String,
    id: String,
    email: String,
    plan: Option<String>,
}

/// The entity with two mappings added: one plain, one sparse and hash-sharded.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Accounts, name = "User", pk = "org#{org}", sk = "user#{id}")]
#[gsi(ByEmail(pk = "email#{email}", sk = "{id}", added))]
#[sparse_gsi(ByPlan(pk = "plan#{org}", sk = "{plan}#{id}", added))]
#[shard(ByPlan(hash = 4, by = id))]
struct User {
    org: String,
    id: String,
    email: String,
    plan: Option<String>,
}

fn user(org: &str, n: usize, round: usize) -> User {
    User {
        org: org.to_owned(),
        id: format!("u{n:05}"),
        email: format!("{org}-{n}-{round}@example.com"),
        plan: (!n.is_multiple_of(3)).then(|| ["free", "pro"][(n + round) % 2].to_owned()),
    }
}

fn old(user: &User) -> UserV1 {
    UserV1 { org: user.org.clone(), id: user.id.clone(), email: user.email.clone(), plan: user.plan.clone() }
}

async fn setup(own: &Own) -> Db {
    let db = own
        .db()
        .with_shard_metadata(ShardMetadata::new("AddMappingMetaTests").cache_for(Duration::from_millis(200)));
    db.create_table::<Accounts>().await.unwrap();
    db.create_shard_metadata_table().await.unwrap();
    db
}

/// What the test wrote last under each id (`None`: deleted).
type Written = Arc<Mutex<BTreeMap<String, Option<User>>>>;

/// One writer of the three kinds, over ids `ids`, until `stop`: puts through the old
/// declaration, through the new one, raw `PutItem`s of the old shape, and deletes.
fn writer(
    db: &Db,
    org: &str,
    ids: std::ops::Range<usize>,
    written: &Written,
    stop: &Arc<AtomicBool>,
) -> tokio::task::JoinHandle<()> {
    let (db, org, written, stop) = (db.clone(), org.to_owned(), written.clone(), stop.clone());
    tokio::spawn(async move {
        let mut round = 1;
        while !stop.load(Ordering::Relaxed) {
            for n in ids.clone() {
                let next = user(&org, n, round);
                let after = match (n + round) % 4 {
                    0 => db.put(&old(&next)).await.map(|_| Some(next)).unwrap(),
                    1 => db.put(&next).await.map(|_| Some(next)).unwrap(),
                    2 => {
                        let item = dynashard::item::to_item(&old(&next)).unwrap();
                        db.client().put_item().table_name(TABLE).set_item(Some(item)).send().await.unwrap();
                        Some(next)
                    }
                    _ => db.delete(User::key(&org, &next.id).unwrap()).await.map(|_| None).unwrap(),
                };
                written.lock().unwrap().insert(format!("u{n:05}"), after);
            }
            round += 1;
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
}

/// The items as written last, in id order.
fn expected(written: &Written) -> Vec<User> {
    written.lock().unwrap().values().flatten().cloned().collect()
}

/// Each user read back by email, and every user of `org` read by plan, checked against what was
/// written: every item exactly once.
async fn check_reads(db: &Db, org: &str, expected: &[User]) {
    for user in expected {
        let found: Vec<User> = db.stream(User::query_by_email(&user.email)).try_collect().await.unwrap();
        assert_eq!(found, vec![user.clone()], "found by its email exactly once");
    }
    let by_plan: Vec<User> = db.stream(User::query_by_plan(org)).try_collect().await.unwrap();
    let mut with_plan: Vec<User> = expected.iter().filter(|user| user.plan.is_some()).cloned().collect();
    with_plan.sort_by(|a, b| (&a.plan, &a.id).cmp(&(&b.plan, &b.id)));
    assert_eq!(by_plan, with_plan, "the sparse index holds exactly the users with a plan, in order");
}

async fn raw_update(db: &Db, org: &str, id: &str, expression: &str, values: &[(&str, &str)]) {
    let mut request = db
        .client()
        .update_item()
        .table_name(TABLE)
        .key("pk", AttributeValue::S(format!("org#{org}")))
        .key("sk", AttributeValue::S(format!("user#{id}")))
        .update_expression(expression);
    for (name, value) in values {
        request = request.expression_attribute_values(*name, AttributeValue::S((*value).to_owned()));
    }
    request.send().await.unwrap();
}

#[tokio::test]
async fn an_added_mapping_reaches_every_item_whatever_wrote_it() {
    let own = crate::own().await;
    let db = setup(&own).await;
    let org = unique("org");
    // Items written before the mapping existed.
    let first: Vec<UserV1> = (0..300).map(|n| old(&user(&org, n, 0))).collect();
    db.batch_put(&first).await.unwrap();
    let written: Written =
        Arc::new(Mutex::new((0..300).map(|n| (format!("u{n:05}"), Some(user(&org, n, 0)))).collect()));

    // Before its migration, a read of the mapping is refused, or partial when asked to be.
    let refused = db.stream(User::query_by_email("a@example.com")).try_collect::<Vec<User>>().await;
    assert!(matches!(refused, Err(Error::MappingIncomplete { index: "ByEmail", .. })), "{refused:?}");
    let partial: Vec<User> =
        db.stream(User::query_by_plan(&org).accept_partial()).try_collect().await.unwrap();
    assert!(partial.is_empty(), "no existing item has its keys yet");

    // `UserV1` declares no mapping `added`.
    let refused = db.start_migration::<UserV1>(Migration::add_mapping(Accounts::BY_EMAIL)).await;
    assert!(
        matches!(&refused, Err(Error::Resharding { reason, .. }) if reason.contains("declares no mapping"))
    );
    for index in [Accounts::BY_EMAIL, Accounts::BY_PLAN] {
        let started = db.start_migration::<User>(Migration::add_mapping(index)).await.unwrap();
        assert_eq!((started.kind, started.phase), (MigrationKind::AddMapping, Phase::DualWrites));
        let again = db.start_migration::<User>(Migration::add_mapping(index)).await.unwrap();
        assert_eq!(again.started, started.started, "starting it again is idempotent");
    }
    let batched = db.backfill::<User>(Accounts::BY_EMAIL, Backfill::default().batched()).await;
    assert!(
        matches!(&batched, Err(Error::Resharding { reason, .. }) if reason.contains("batched")),
        "{batched:?}"
    );
    let stop = Arc::new(AtomicBool::new(false));
    let writers = [writer(&db, &org, 0..40, &written, &stop), writer(&db, &org, 300..340, &written, &stop)];
    for index in [Accounts::BY_EMAIL, Accounts::BY_PLAN] {
        let backfilled = db.backfill::<User>(index, Backfill::default().segments(4)).await.unwrap();
        assert_eq!(backfilled.phase, Phase::Backfilled);
        let refused = db.stream(User::query_by_plan(&org)).try_collect::<Vec<User>>().await;
        assert!(matches!(refused, Err(Error::MappingIncomplete { .. })), "still refused once backfilled");
    }
    stop.store(true, Ordering::Relaxed);
    for writer in writers {
        writer.await.unwrap();
    }
    for index in [Accounts::BY_EMAIL, Accounts::BY_PLAN] {
        while !db.catch_up::<User>(index).await.unwrap().caught_up {}
    }

    // Seeded faults, written past dynashard and read by no catch-up before the verification: an
    // entry missing, a stale one, and an entry in the sparse index of a user without a plan.
    let [missing, stale, stray] = ["u00100", "u00101", "u00102"];
    raw_update(&db, &org, missing, "REMOVE email_pk, email_sk", &[]).await;
    raw_update(&db, &org, stale, "SET email_pk = :pk", &[(":pk", "email#nobody@example.com")]).await;
    raw_update(&db, &org, stray, "SET plan_pk = :pk, plan_sk = :sk", &[(":pk", "plan#x#1"), (":sk", "x")])
        .await;
    let found = db.verify_resharding::<User>(Accounts::BY_EMAIL, Verify::default().repair()).await.unwrap();
    let ids = |keys: &[dynashard::PrimaryKey]| -> Vec<String> {
        keys.iter().filter_map(|key| key.sk.clone()).collect()
    };
    assert_eq!(ids(&found.missing), vec![format!("user#{missing}")]);
    assert_eq!(ids(&found.misplaced), vec![format!("user#{stale}")]);
    assert_eq!((found.extra.len(), found.repaired), (0, 2));
    assert!(found.is_clean());
    let found = db.verify_resharding::<User>(Accounts::BY_PLAN, Verify::default().repair()).await.unwrap();
    assert_eq!(ids(&found.misplaced), vec![format!("user#{stray}")], "{found:?}");
    assert_eq!((found.missing.len(), found.repaired), (0, 1));

    // Writers go on after the verification: what they leave out, the cut-over's catch-up places.
    let stop = Arc::new(AtomicBool::new(false));
    let writers = [writer(&db, &org, 200..260, &written, &stop)];
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, Ordering::Relaxed);
    for writer in writers {
        writer.await.unwrap();
    }
    for index in [Accounts::BY_EMAIL, Accounts::BY_PLAN] {
        assert_eq!(db.cut_over::<User>(index).await.unwrap().phase, Phase::CutOver);
    }
    check_reads(&db, &org, &expected(&written)).await;

    // Reversed, the reads are refused again; cut over again and finished, they answer.
    db.reverse_cut_over::<User>(Accounts::BY_EMAIL).await.unwrap();
    let refused = db.stream(User::query_by_email("a@example.com")).try_collect::<Vec<User>>().await;
    assert!(matches!(refused, Err(Error::MappingIncomplete { .. })), "{refused:?}");
    db.verify_resharding::<User>(Accounts::BY_EMAIL, Verify::default()).await.unwrap();
    db.cut_over::<User>(Accounts::BY_EMAIL).await.unwrap();
    for index in [Accounts::BY_EMAIL, Accounts::BY_PLAN] {
        let done = db.finish_resharding::<User>(index, Backfill::default()).await.unwrap();
        assert_eq!(done.phase, Phase::Done);
    }
    check_reads(&db, &org, &expected(&written)).await;
}
