//! Building keys plus encoding and decoding an item, against the same work written by hand with
//! `format!` and `serde_dynamo`. Target: at most 1.2x.
//!
//! ```text
//! cargo bench --bench item_codec
//! ```

#[path = "support/ratio.rs"]
mod ratio;

use aws_sdk_dynamodb::types::AttributeValue;
use criterion::{criterion_group, Criterion};
use dynashard::{Entity, Item, Table};
use serde::{Deserialize, Serialize};
use std::hint::black_box;

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
struct Music;

#[derive(Entity, Serialize, Deserialize, Clone)]
#[entity(table = Music, pk = "{artist}", sk = "song#{album}#{title}")]
struct Song {
    artist: String,
    album: String,
    title: String,
    track: u8,
    seconds: u32,
    lyrics: Option<String>,
    tags: Vec<String>,
}

fn song() -> Song {
    Song {
        artist: "Solar Fields".into(),
        album: "Leaving Home".into(),
        title: "Air Song".into(),
        track: 1,
        seconds: 334,
        lyrics: Some("Instrumental, drifting synthesizers over a slow pulse.".into()),
        tags: vec!["ambient".into(), "electronic".into(), "downtempo".into()],
    }
}

/// dynashard: typed key builder, item encoding, item decoding.
fn with_dynashard(song: &Song) -> Song {
    let key = Song::key(&song.artist, &song.album, &song.title).expect("valid key");
    black_box(key);
    let item = dynashard::item::to_item(song).expect("encodes");
    dynashard::item::from_item(item).expect("decodes")
}

/// The same work by hand: `format!` keys, `serde_dynamo`, the key and type attributes.
fn by_hand(song: &Song) -> Song {
    let pk = song.artist.clone();
    let sk = format!("song#{}#{}", song.album, song.title);
    black_box((&pk, &sk));
    let mut item: Item = serde_dynamo::to_item(song).expect("encodes");
    item.insert("pk".into(), AttributeValue::S(song.artist.clone()));
    item.insert("sk".into(), AttributeValue::S(format!("song#{}#{}", song.album, song.title)));
    item.insert("_type".into(), AttributeValue::S("Song".into()));
    serde_dynamo::from_item(item).expect("decodes")
}

fn criterion_benches(c: &mut Criterion) {
    let song = song();
    let mut group = c.benchmark_group("item_codec");
    group.bench_function("dynashard", |b| b.iter(|| with_dynashard(black_box(&song))));
    group.bench_function("by_hand", |b| b.iter(|| by_hand(black_box(&song))));
    group.finish();
}

criterion_group!(benches, criterion_benches);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    let song = song();
    let ratio = ratio::compare(41, 2_000, || with_dynashard(&song), || by_hand(&song));
    ratio::report("keys + encode + decode, dynashard vs by hand", &ratio, 1.2);
}
