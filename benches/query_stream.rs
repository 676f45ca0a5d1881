//! Streaming 20,000 items through a typed query, against the same read written by hand with the
//! SDK's `into_paginator()` and `serde_dynamo`. Both read the same partition of the same
//! DynamoDB Local (`AWS_ENDPOINT_URL_DYNAMODB`, or one started here) in alternating rounds; the report is
//! the ratio of the median wall times. Target: at most 1.1x.
//!
//! ```text
//! cargo bench --bench query_stream
//! ```

#[path = "support/ratio.rs"]
#[allow(dead_code)] // the rate report is not used here
mod ratio;

use aws_sdk_dynamodb::types::AttributeValue;
use dynashard::{Db, Entity, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};

const ITEMS: usize = 20_000;
const ROUNDS: usize = 15;

#[derive(Table)]
#[table(name = "QueryStreamBench", pk = "pk", sk = "sk")]
struct Bench;

#[derive(Entity, Serialize, Deserialize, Clone)]
#[entity(table = Bench, pk = "{artist}", sk = "song#{album}#{title}")]
struct Song {
    artist: String,
    album: String,
    title: String,
    track: u8,
    seconds: u32,
    lyrics: Option<String>,
    tags: Vec<String>,
}

async fn with_dynashard(db: &Db, artist: &str) -> usize {
    let songs: Vec<Song> = db.stream(Song::query(artist)).try_collect().await.expect("dynashard read");
    songs.len()
}

async fn by_hand(db: &Db, artist: &str) -> usize {
    let items: Vec<dynashard::Item> = db
        .client()
        .query()
        .table_name("QueryStreamBench")
        .key_condition_expression("pk = :pk AND begins_with(sk, :prefix)")
        .expression_attribute_values(":pk", AttributeValue::S(artist.to_owned()))
        .expression_attribute_values(":prefix", AttributeValue::S("song#".into()))
        .into_paginator()
        .items()
        .send()
        .try_collect()
        .await
        .expect("hand-written read");
    let songs: Vec<Song> =
        items.into_iter().map(|item| serde_dynamo::from_item(item).expect("decodes")).collect();
    songs.len()
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    let connection = runtime
        .block_on(dynashard_local::connect_to(
            dynashard_local::Backend::from_env_or(dynashard_local::Backend::Local).expect("a backend"),
        ))
        .expect("DynamoDB Local");
    let db = Db::new(connection.client().clone());
    let artist = format!("bench-{}", std::process::id());
    runtime.block_on(async {
        db.create_table::<Bench>().await.expect("table");
        let songs: Vec<Song> = (0..ITEMS)
            .map(|i| Song {
                artist: artist.clone(),
                album: format!("album {:02}", i % 17),
                title: format!("title {i:05}"),
                track: (i % 20) as u8,
                seconds: 120 + (i % 300) as u32,
                lyrics: Some("Instrumental, drifting synthesizers over a slow pulse.".into()),
                tags: vec!["ambient".into(), "electronic".into()],
            })
            .collect();
        db.batch_put(&songs).await.expect("import");
        assert_eq!(with_dynashard(&db, &artist).await, ITEMS);
        assert_eq!(by_hand(&db, &artist).await, ITEMS);
    });
    let ratio = ratio::compare(
        ROUNDS,
        1,
        || runtime.block_on(with_dynashard(&db, &artist)),
        || runtime.block_on(by_hand(&db, &artist)),
    );
    ratio::report("stream 20,000 items, dynashard vs into_paginator + serde_dynamo", &ratio, 1.1);
}
