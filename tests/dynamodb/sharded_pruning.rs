//! Conditions on the routing value read only the shards that can hold matches.

use crate::sharded_album::*;
use crate::{db, unique};
use dynashard::shard::Normalization;
use dynashard::Db;
use futures::TryStreamExt;

const TITLES: &[&str] = &[
    "2 Pie Island",
    "Agartha",
    "Heavy Migration",
    "Leaving Home",
    "leaving home",
    "LEAVING HOME",
    "Leaving Homes",
    "Learning",
    "Live in Florence",
    "Notice",
    "Space Cadet",
    "Ѐxtra",
    "Ｃａｆé",
    "Café",
    "Zed",
    "greatest hits",
    "Greatest Hits",
    "голос",
];

async fn catalogue(db: &Db) -> String {
    db.create_table::<ShardedMusic>().await.unwrap();
    let artist = unique("Pruned");
    let albums: Vec<ShardedAlbum> = TITLES
        .iter()
        .map(|title| ShardedAlbum { artist: artist.clone(), title: title.to_string(), year: 2000 })
        .collect();
    db.batch_put(&albums).await.unwrap();
    artist
}

async fn titles_of<F>(
    db: &Db,
    artist: &str,
    query: dynashard::Query<ShardedAlbum, F>,
) -> (Vec<String>, usize) {
    let stream = db.stream(query);
    let stats = stream.stats().clone();
    let albums: Vec<ShardedAlbum> = stream.try_collect().await.unwrap();
    let titles = albums.into_iter().filter(|album| album.artist == artist).map(|album| album.title).collect();
    (titles, stats.requests())
}

fn normalized(title: &str) -> String {
    Normalization::NfkdLower.apply(title)
}

#[tokio::test]
async fn hash_equality_reads_one_shard() {
    let db = db().await;
    let artist = catalogue(&db).await;
    let query = ShardedAlbum::query_by_title_hash().eq("Leaving Home");
    assert_eq!(query.plan_shards().unwrap().partitions, ["album#6"]);
    let (titles, requests) = titles_of(&db, &artist, query).await;
    assert_eq!(titles, ["Leaving Home"], "hash routing is on the exact text");
    assert_eq!(requests, 1);
    let everywhere = ShardedAlbum::query_by_title_hash().begins_with("Lea");
    assert_eq!(everywhere.plan_shards().unwrap().partitions.len(), 21, "prefixes are not routable by hash");
}

#[tokio::test]
async fn range_equality_reads_one_shard_and_matches_normalized_values() {
    let db = db().await;
    let artist = catalogue(&db).await;
    let query = ShardedAlbum::query_by_title_range().eq("leaving HOME");
    assert_eq!(query.plan_shards().unwrap().partitions, ["albums#9"]);
    let (mut titles, requests) = titles_of(&db, &artist, query).await;
    titles.sort();
    assert_eq!(titles, ["LEAVING HOME", "Leaving Home", "leaving home"]);
    assert_eq!(requests, 1);
    let (cafes, _) = titles_of(&db, &artist, ShardedAlbum::query_by_title_range().eq("cafe\u{301}")).await;
    assert_eq!(cafes.len(), 2, "NFKD folds the full-width and composed forms: {cafes:?}");
}

#[tokio::test]
async fn range_conditions_read_only_covering_shards_in_order() {
    let db = db().await;
    let artist = catalogue(&db).await;
    let expected = |keep: &dyn Fn(&str) -> bool| {
        let mut titles: Vec<&str> = TITLES.iter().copied().filter(|title| keep(&normalized(title))).collect();
        titles.sort_by_key(|title| (normalized(title), title.to_string()));
        titles.into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    let between = ShardedAlbum::query_by_title_range().between("h", "l");
    assert_eq!(
        between.plan_shards().unwrap().partitions,
        (7..=9).map(|shard| format!("albums#{shard}")).collect::<Vec<_>>()
    );
    let (titles, _) = titles_of(&db, &artist, between).await;
    assert_eq!(titles, expected(&|n| ("h"..="l").contains(&n)));
    let (prefixed, _) =
        titles_of(&db, &artist, ShardedAlbum::query_by_title_range().begins_with("LEA")).await;
    assert_eq!(prefixed, expected(&|n| n.starts_with("lea")));
    let (below, _) = titles_of(&db, &artist, ShardedAlbum::query_by_title_range().lt("leaving home")).await;
    assert_eq!(below, expected(&|n| n < "leaving home"));
    let (at_most, _) = titles_of(&db, &artist, ShardedAlbum::query_by_title_range().le("leaving home")).await;
    assert_eq!(at_most, expected(&|n| n <= "leaving home"));
    let (above, _) =
        titles_of(&db, &artist, ShardedAlbum::query_by_title_range().gt("leaving home").descending()).await;
    let mut above_expected = expected(&|n| n > "leaving home");
    above_expected.reverse();
    assert_eq!(above, above_expected);
    let (at_least, _) =
        titles_of(&db, &artist, ShardedAlbum::query_by_title_range().ge("leaving home")).await;
    assert_eq!(at_least, expected(&|n| n >= "leaving home"));
}

#[tokio::test]
async fn a_hot_value_spreads_over_overflow_sub_shards_in_order() {
    let db = db().await;
    db.create_table::<ShardedMusic>().await.unwrap();
    let tag = unique("hot");
    let mut albums: Vec<ShardedAlbum> = (0..60)
        .map(|n| ShardedAlbum { artist: format!("{tag}-{n:02}"), title: "Greatest Hits".into(), year: 2000 })
        .collect();
    albums.extend(["Grave Poetry", "Great", "Greatest Hits II", "i live"].iter().map(|title| ShardedAlbum {
        artist: format!("{tag}-x"),
        title: title.to_string(),
        year: 2001,
    }));
    db.batch_put(&albums).await.unwrap();
    let mut sub_shards = std::collections::HashSet::new();
    for album in &albums[..60] {
        let key = ShardedAlbum::key(&album.artist, &album.title).unwrap();
        let item = db
            .client()
            .get_item()
            .table_name(db.table_name::<ShardedMusic>())
            .key("pk", aws_sdk_dynamodb::types::AttributeValue::S(key.pk().into()))
            .key("sk", aws_sdk_dynamodb::types::AttributeValue::S(key.sk().unwrap().into()))
            .send()
            .await
            .unwrap()
            .item
            .unwrap();
        sub_shards.insert(item["hot_pk"].as_s().unwrap().clone());
    }
    let expected: std::collections::HashSet<String> =
        (0..3).map(|sub| format!("hot_album#7#{sub}")).collect();
    assert_eq!(sub_shards, expected, "60 copies of one title spread over the 3 sub-shards of its shard");

    let mine = |albums: Vec<ShardedAlbum>| -> Vec<(String, String)> {
        albums.into_iter().filter(|a| a.artist.starts_with(&tag)).map(|a| (a.title, a.artist)).collect()
    };
    let hits = ShardedAlbum::query_by_title_hot().eq("GREATEST HITS");
    assert_eq!(
        hits.plan_shards().unwrap().partitions.len(),
        3,
        "equality reads the 3 sub-shards of one shard"
    );
    let hits: Vec<ShardedAlbum> = db.stream(hits).try_collect().await.unwrap();
    let hits = mine(hits);
    assert_eq!(hits.len(), 60);
    assert!(hits.windows(2).all(|w| w[0].1 < w[1].1), "ties order by the base key across sub-shards");

    let all: Vec<ShardedAlbum> =
        db.stream(ShardedAlbum::query_by_title_hot().between("gr", "j")).try_collect().await.unwrap();
    let titles: Vec<String> = mine(all).into_iter().map(|(title, _)| title).collect();
    let mut expected_titles = vec!["Grave Poetry".to_string(), "Great".to_string()];
    expected_titles.extend(std::iter::repeat_n("Greatest Hits".to_string(), 60));
    expected_titles.extend(["Greatest Hits II".to_string(), "i live".to_string()]);
    assert_eq!(titles, expected_titles, "sub-shards merge back into one ordered listing");
}
