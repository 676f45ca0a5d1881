//! Sort-key conditions are typed by the template: `.eq` narrows placeholder by placeholder,
//! ranges exist on the final placeholder, and arguments have the field's key type.

use dynashard::query::{Done, End, Next};
use dynashard::{Entity, Query, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "song#{album}#{title}")]
struct Song {
    artist: String,
    album: String,
    title: String,
}

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{user}", sk = "play#{track}#{offset}")]
struct Play {
    user: String,
    track: u32,
    offset: i64,
}

#[test]
fn accepted() {
    let _: Query<Song, Next<String, End<String>>> = Song::query("a");
    let _: Query<Song, End<String>> = Song::query("a").eq("album");
    let _: Query<Song, Done> = Song::query("a").eq("album").between("a", "m");
    let _: Query<Song, Done> = Song::query("a").begins_with("Leav");
    let _: Query<Song, Done> = Song::query("a").eq("album").eq("title").descending().limit(3);

    let _: Query<Play, Next<u32, End<i64>>> = Play::query("a");
    let _: Query<Play, Done> = Play::query("a").eq(3u32).lt(-5i64);
    let _: Query<Play, Done> = Play::query("a").eq(3).between(-10, 10);
}
