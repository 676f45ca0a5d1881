use dynashard::{Db, Entity, Table};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{owner}", sk = "{name}")]
struct Playlist {
    owner: String,
    name: String,
    tracks: Vec<String>,
    tags: HashSet<String>,
    cover: String,
}

fn build(db: &Db) {
    let f = Playlist::fields();
    let key = || Playlist::key("ann", "night").unwrap();
    // A set action on a list.
    let _ = db.update(key()).add_to(f.tracks, ["x"]);
    // A list action on a set.
    let _ = db.update(key()).append(f.tags, ["x"]);
    // A number action on a string.
    let _ = db.update(key()).subtract(f.cover, "x".to_owned());
}

fn main() {
    let _ = build;
}
