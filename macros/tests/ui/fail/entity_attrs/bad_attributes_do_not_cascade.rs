//! A bad attribute is reported where it is written, once: the table and the entity still work
//! as a table and an entity where they are used.

use dynashard::{Db, Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk", colour = "blue")]
struct Music;

#[derive(Entity, Serialize, Deserialize)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}", shards = 3)]
struct Album {
    artist: String,
    title: String,
}

async fn store(db: &Db, album: &Album) -> dynashard::Result<()> {
    db.create_table::<Music>().await?;
    db.put(album).await?;
    db.batch_put(std::slice::from_ref(album)).await?;
    let _key = dynashard::Key::<Album>::of(album)?;
    Ok(())
}

fn main() {
    drop(store);
}
