use dynashard::{Db, Entity, Key, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "song#{title}")]
struct Song {
    artist: String,
    title: String,
}

async fn thirteen(db: Db, key: impl Fn() -> Key<Song>) {
    let reads = db.transact_get().get(key()).get(key()).get(key()).get(key()).get(key()).get(key());
    let reads = reads.get(key()).get(key()).get(key()).get(key()).get(key()).get(key());
    let _ = reads.get(key()).await;
}

fn main() {}
