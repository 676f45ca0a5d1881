//! A sharded base-table partition key: one file's accesses spread over 8 partitions by a hash
//! of the event id (seed 001's calculated write shard), addressed by key and listed in order.

use crate::{db, unique};
use aws_sdk_dynamodb::types::AttributeValue;
use dynashard::shard::hash_shard;
use dynashard::{Db, Entity, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "ShardedTableTests", pk = "pk", sk = "sk")]
#[gsi(ByUser(pk = "user_pk", sk = "user_sk"))]
struct AccessLog;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = AccessLog, pk = "file#{path}", sk = "{at}#{event}")]
#[shard(hash = 8, by = event)]
#[gsi(ByUser(pk = "user#{user}", sk = "{path}#{at}"))]
struct Access {
    path: String,
    at: u64,
    event: String,
    user: String,
    bytes: u32,
}

fn accesses(path: &str, count: u64) -> Vec<Access> {
    (0..count)
        .map(|n| Access {
            path: path.to_owned(),
            at: 1_700_000_000 + n / 3,
            event: format!("ev-{n:05}-é#$"),
            user: format!("user-{}", n % 7),
            bytes: n as u32,
        })
        .collect()
}

async fn stored(db: &Db, pk: &str, sk: &str) -> Option<dynashard::Item> {
    db.client()
        .get_item()
        .table_name("ShardedTableTests")
        .key("pk", AttributeValue::S(pk.to_owned()))
        .key("sk", AttributeValue::S(sk.to_owned()))
        .send()
        .await
        .unwrap()
        .item
}

#[tokio::test]
async fn writes_spread_over_hash_shards_and_keys_name_their_shard() {
    let db = db().await;
    db.create_table::<AccessLog>().await.unwrap();
    let path = unique("/shared/hot file#1");
    let all = accesses(&path, 400);
    db.batch_put(&all).await.unwrap();
    db.put(&all[0]).await.unwrap();

    let key = Access::key(&path, all[5].at, &all[5].event).unwrap();
    let expected_pk =
        format!("file#{}#{}", path.replace('$', "$$").replace('#', "$#"), hash_shard(&all[5].event, 8));
    assert_eq!(key.pk(), expected_pk, "the key builder appends the shard of `event`");
    assert!(stored(&db, key.pk(), key.sk().unwrap()).await.is_some(), "stored under the sharded key");
    assert_eq!(db.get(key.clone()).await.unwrap(), Some(all[5].clone()));

    let mut per_shard = [0usize; 8];
    for access in &all {
        per_shard[hash_shard(&access.event, 8) as usize] += 1;
    }
    assert!(per_shard.iter().all(|&count| count > 20), "400 events spread over 8 shards: {per_shard:?}");
    assert_eq!(Access::BASE_TABLE_SHARDS, 8);
}

#[tokio::test]
async fn a_partition_is_listed_across_its_shards_in_sort_key_order() {
    let db = db().await;
    db.create_table::<AccessLog>().await.unwrap();
    let path = unique("/logs/a");
    let mut all = accesses(&path, 300);
    db.batch_put(&all).await.unwrap();
    all.sort_by(|a, b| (a.at, &a.event).cmp(&(b.at, &b.event)));

    let query = Access::query(&path);
    assert_eq!(query.plan_shards().unwrap().partitions.len(), 8);
    let stream = db.stream(query.page_size(50));
    let stats = stream.stats().clone();
    let listed: Vec<Access> = stream.try_collect().await.unwrap();
    assert_eq!(listed, all, "every item once, in (at, event) order");
    assert!(stats.requests() >= 8, "{} requests", stats.requests());

    let descending: Vec<Access> = db.stream(Access::query(&path).descending()).try_collect().await.unwrap();
    all.reverse();
    assert_eq!(descending, all);
    all.reverse();

    let limited: Vec<Access> = db.stream(Access::query(&path).limit(25)).try_collect().await.unwrap();
    assert_eq!(limited, all[..25]);

    // Resuming page by page across the shards.
    let (mut cursor, mut paged) = (None, Vec::new());
    loop {
        let page = db.page(&Access::query(&path).page_size(37), cursor.as_deref()).await.unwrap();
        paged.extend(page.items);
        match page.cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(paged, all);

    // Both key fields known: the event's one shard.
    let one = Access::query(&path).eq(all[10].at).eq(&all[10].event);
    assert_eq!(one.plan_shards().unwrap().partitions.len(), 1);
    let found: Vec<Access> = db.stream(one).try_collect().await.unwrap();
    assert_eq!(found, [all[10].clone()]);
    let at_one_time: Vec<Access> =
        db.stream(Access::query(&path).eq(all[10].at)).try_collect().await.unwrap();
    assert_eq!(at_one_time, all.iter().filter(|a| a.at == all[10].at).cloned().collect::<Vec<_>>());
}

#[tokio::test]
async fn updates_and_deletes_address_the_sharded_key() {
    let db = db().await;
    db.create_table::<AccessLog>().await.unwrap();
    let path = unique("/logs/b#c");
    let access = accesses(&path, 1).remove(0);
    db.put(&access).await.unwrap();
    let key = Access::key(&path, access.at, &access.event).unwrap();

    // Changing the user recomputes the ByUser key, which reads `path` back from the sharded pk.
    db.update(key.clone()).set(Access::fields().user, "auditor".to_string()).await.unwrap();
    let by_user: Vec<Access> = db.stream(Access::query_by_user("auditor")).try_collect().await.unwrap();
    let mine: Vec<&Access> = by_user.iter().filter(|found| found.path == path).collect();
    assert_eq!(mine.len(), 1);
    assert_eq!(mine[0].user, "auditor");

    let deleted = db.delete(key.clone()).await.unwrap();
    assert_eq!(deleted.map(|old| old.event), Some(access.event.clone()));
    assert_eq!(db.get(key).await.unwrap(), None);
    let left: Vec<Access> = db.stream(Access::query(&path)).try_collect().await.unwrap();
    assert!(left.is_empty());
}

/// Seed 001's calculated shard: a hash of the file path and the access time together.
#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = AccessLog, pk = "upload#{path}", sk = "{at}")]
#[shard(hash = 10, by = (path, at))]
struct Upload {
    path: String,
    at: u64,
    bytes: u32,
}

#[tokio::test]
async fn several_by_fields_hash_their_texts_together() {
    let db = db().await;
    db.create_table::<AccessLog>().await.unwrap();
    let path = unique("/shared/firetvGen2.txt");
    let uploads: Vec<Upload> = (0..60)
        .map(|n| Upload { path: path.clone(), at: 123_456_789_101 + n * 7, bytes: n as u32 })
        .collect();
    db.batch_put(&uploads).await.unwrap();

    let mut shards_used = std::collections::BTreeSet::new();
    for upload in &uploads {
        let key = Upload::key(&upload.path, upload.at).unwrap();
        // Python: int.from_bytes(sha256((path + str(at)).encode()).digest(), "big") % 10
        let shard = hash_shard(&format!("{}{}", upload.path, upload.at), 10);
        assert!(key.pk().ends_with(&format!("#{shard}")), "{} for {}", key.pk(), upload.at);
        shards_used.insert(shard);
    }
    assert!(shards_used.len() >= 8, "60 uploads use most of the 10 shards: {shards_used:?}");
    assert_eq!(db.get(Upload::key(&path, uploads[3].at).unwrap()).await.unwrap(), Some(uploads[3].clone()));

    let listed: Vec<Upload> = db.stream(Upload::query(&path)).try_collect().await.unwrap();
    assert_eq!(listed, uploads, "merged back in time order");
    let window: Vec<Upload> =
        db.stream(Upload::query(&path).between(uploads[10].at, uploads[19].at)).try_collect().await.unwrap();
    assert_eq!(window, uploads[10..20]);
}
