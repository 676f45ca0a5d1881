//! Writes compute their shard: the seed's shard ids land in the stored index keys.

use crate::sharded_album::*;
use crate::{db, unique};
use aws_sdk_dynamodb::types::AttributeValue;
use dynashard::shard::{range_sort_key, Normalization};
use dynashard::Db;

async fn stored(db: &Db, album: &ShardedAlbum) -> dynashard::Item {
    let key = ShardedAlbum::key(&album.artist, &album.title).unwrap();
    db.client()
        .get_item()
        .table_name(db.table_name::<ShardedMusic>())
        .key("pk", AttributeValue::S(key.pk().into()))
        .key("sk", AttributeValue::S(key.sk().unwrap().into()))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
        .unwrap()
}

#[tokio::test]
async fn hash_and_range_shards_match_the_seed() {
    let db = db().await;
    db.create_table::<ShardedMusic>().await.unwrap();
    let artist = unique("Sharded");
    let cases = [
        ("Leaving Home", Some(6), 9),
        ("Heavy Migration", Some(8), 7),
        ("2 Pie Island", None, 0),
        ("Space Cadet", None, 15),
    ];
    for (title, hash_shard, range_shard) in cases {
        let album = ShardedAlbum { artist: artist.clone(), title: title.into(), year: 2007 };
        db.put(&album).await.unwrap();
        let item = stored(&db, &album).await;
        if let Some(hash_shard) = hash_shard {
            assert_eq!(item["hash_pk"].as_s().unwrap(), &format!("album#{hash_shard}"), "{title}");
        }
        assert_eq!(item["hash_sk"].as_s().unwrap(), title, "hash shards keep the template sort key");
        assert_eq!(item["range_pk"].as_s().unwrap(), &format!("albums#{range_shard}"), "{title}");
        let key = ShardedAlbum::key(&artist, title).unwrap();
        let expected_sk =
            range_sort_key(&Normalization::NfkdLower.apply(title), title, &[key.pk(), key.sk().unwrap()]);
        assert_eq!(item["range_sk"].as_s().unwrap(), &expected_sk);
        let random: u32 =
            item["random_pk"].as_s().unwrap().strip_prefix("any_album#").unwrap().parse().unwrap();
        assert!(random < 5);
    }
}

#[tokio::test]
async fn random_shards_spread_writes() {
    let db = db().await;
    db.create_table::<ShardedMusic>().await.unwrap();
    let artist = unique("Spread");
    let mut seen = std::collections::HashSet::new();
    for n in 0..60 {
        let album = ShardedAlbum { artist: artist.clone(), title: format!("title {n}"), year: 2000 };
        db.put(&album).await.unwrap();
        seen.insert(stored(&db, &album).await["random_pk"].as_s().unwrap().clone());
    }
    assert_eq!(seen.len(), 5, "60 random writes touch all 5 shards: {seen:?}");
}

#[test]
fn sharded_queries_read_every_shard() {
    let hash = ShardedAlbum::query_by_title_hash();
    let range = ShardedAlbum::query_by_title_range();
    let random = ShardedAlbum::query_anywhere();
    for (query, count, first) in [
        (hash.plan_shards(), 21, "album#0"),
        (range.plan_shards(), 21, "albums#0"),
        (random.plan_shards(), 5, "any_album#0"),
    ] {
        let shards = query.expect("a sharded query");
        assert_eq!(shards.partitions.len(), count);
        assert_eq!(shards.partitions[0], first);
    }
}

#[tokio::test]
async fn time_buckets_combine_with_a_hash_of_the_entity() {
    use dynashard::shard::{hash_shard, TimeBucket};
    let db = db().await;
    db.create_table::<Sensors>().await.unwrap();
    let sensor = unique("sensor");
    let taken_at = 1_698_419_045; // 2023-10-27T15:04:05Z
    let reading = Reading { sensor: sensor.clone(), taken_at, celsius: 21 };
    db.put(&reading).await.unwrap();
    let key = Reading::key(&sensor, taken_at).unwrap();
    let item = db
        .client()
        .get_item()
        .table_name(db.table_name::<Sensors>())
        .key("pk", AttributeValue::S(key.pk().into()))
        .key("sk", AttributeValue::S(key.sk().unwrap().into()))
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    let shard = hash_shard(&sensor, 16);
    assert_eq!(item["reading_pk"].as_s().unwrap(), &format!("reading#{shard}#2023-10-27T15"));
    assert_eq!(TimeBucket::Hour.label(taken_at), "2023-10-27T15");

    // Three hours across midnight: every shard of every bucket, or one sensor's shard only. The
    // window describes its partitions; they are named when the query runs.
    let from = 1_698_447_000; // 2023-10-27T22:50
    let all = Reading::query_readings(from, from + 2 * 3_600);
    let window = all.plan_shards().unwrap().window.clone().expect("a time window");
    assert_eq!(window.partitions(), 16 * 3);
    let one = Reading::query_readings_for(&sensor, from, from + 2 * 3_600);
    let window = one.plan_shards().unwrap().window.clone().expect("a time window");
    assert_eq!(
        window.partition_keys(100).expect("three partitions"),
        ["2023-10-27T22", "2023-10-27T23", "2023-10-28T00"].map(|hour| format!("reading#{shard}#{hour}"))
    );
}
