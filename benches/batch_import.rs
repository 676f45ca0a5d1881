//! Importing 20,000 items with `Db::batch_put`, against the same import written by hand:
//! `serde_dynamo` plus the key and entity-type attributes, `BatchWriteItem` requests of 25 sent
//! with the same concurrency through `buffer_unordered`, unprocessed items resent. Both run
//! against the same DynamoDB Local (`AWS_ENDPOINT_URL_DYNAMODB`, or one started here), in alternating
//! rounds; the report is the ratio of the median item rates. Target: at least 0.9x.
//!
//! ```text
//! cargo bench --bench batch_import
//! ```

#[path = "support/ratio.rs"]
#[allow(dead_code)] // the time-ratio report is not used here
mod ratio;

use aws_sdk_dynamodb::types::{AttributeValue, PutRequest, WriteRequest};
use aws_sdk_dynamodb::Client;
use dynashard::{Db, Entity, Item, Table};
use futures::stream::{self, StreamExt};
use serde::{Deserialize, Serialize};
use std::cell::Cell;

const ITEMS: usize = 20_000;
const CONCURRENCY: usize = 8;
const ROUNDS: usize = 9;
const WARM_UP_ROUNDS: usize = 2;

#[derive(Table)]
#[table(name = "BatchImportBench", pk = "pk", sk = "sk")]
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

/// The items of one import; every import writes new keys.
fn songs(import: usize) -> Vec<Song> {
    let prefix = std::process::id();
    (0..ITEMS)
        .map(|i| Song {
            artist: format!("artist-{prefix}-{import}-{}", i % 200),
            album: format!("album {}", i % 17),
            title: format!("title {i}"),
            track: (i % 20) as u8,
            seconds: 120 + (i % 300) as u32,
            lyrics: Some("Instrumental, drifting synthesizers over a slow pulse.".into()),
            tags: vec!["ambient".into(), "electronic".into()],
        })
        .collect()
}

async fn with_dynashard(db: &Db, songs: &[Song]) {
    db.batch_put(songs).concurrency(CONCURRENCY).await.expect("dynashard import");
}

async fn by_hand(client: &Client, table: &str, songs: &[Song]) {
    let mut requests = songs.iter().map(|song| {
        let mut item: Item = serde_dynamo::to_item(song).expect("encodes");
        item.insert("pk".into(), AttributeValue::S(song.artist.clone()));
        item.insert("sk".into(), AttributeValue::S(format!("song#{}#{}", song.album, song.title)));
        item.insert("_type".into(), AttributeValue::S("Song".into()));
        let put = PutRequest::builder().set_item(Some(item)).build().expect("item set");
        WriteRequest::builder().put_request(put).build()
    });
    let mut chunks: Vec<Vec<WriteRequest>> = Vec::new();
    loop {
        let chunk: Vec<WriteRequest> = requests.by_ref().take(25).collect();
        if chunk.is_empty() {
            break;
        }
        chunks.push(chunk);
    }
    stream::iter(chunks)
        .map(|mut pending| async move {
            loop {
                let output = client
                    .batch_write_item()
                    .request_items(table, pending)
                    .send()
                    .await
                    .expect("BatchWriteItem");
                pending =
                    output.unprocessed_items.and_then(|mut left| left.remove(table)).unwrap_or_default();
                if pending.is_empty() {
                    return;
                }
            }
        })
        .buffer_unordered(CONCURRENCY)
        .collect::<()>()
        .await;
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    let connection = runtime
        .block_on(dynashard_local::connect_to(
            dynashard_local::Backend::from_env_or(dynashard_local::Backend::Local).expect("a backend"),
        ))
        .expect("DynamoDB Local");
    let db = Db::new(connection.client().clone());
    runtime.block_on(db.create_table::<Bench>()).expect("create table");
    let table = db.table_name::<Bench>().to_owned();

    let imports = Cell::new(0);
    let next = || {
        imports.set(imports.get() + 1);
        songs(imports.get())
    };
    let candidate = || runtime.block_on(with_dynashard(&db, &next()));
    let baseline = || runtime.block_on(by_hand(db.client(), &table, &next()));
    for _ in 0..WARM_UP_ROUNDS {
        candidate();
        baseline();
    }
    let ratio = ratio::compare(ROUNDS, 1, candidate, baseline);
    ratio::report_rate(
        &format!("import of {ITEMS} items, concurrency {CONCURRENCY}, dynashard vs by hand"),
        &ratio,
        ITEMS as f64,
        "items",
        0.9,
    );
    drop(connection);
}
