//! Quickstart: the Music table of artists, albums and songs in one DynamoDB table.
//!
//! Creates the table, writes and reads entities, updates and deletes them, shows an
//! optimistic-locking conflict, and prints one artist's items.
//!
//! ```text
//! cargo run --example quickstart
//! ```
//!
//! Runs against `AWS_ENDPOINT_URL_DYNAMODB` when set; otherwise it installs (once) and starts DynamoDB
//! Local by itself, and stops it on exit.

use dynashard::AttributeValue;
use dynashard::{Db, Entity, Error, Table};
use serde::{Deserialize, Serialize};

/// One table holds every entity; `pk` and `sk` are generic key attributes.
#[derive(Table)]
#[table(name = "Music", pk = "pk", sk = "sk")]
struct Music;

/// `Solar Fields` / `artist`
#[derive(Entity, Serialize, Deserialize, Debug)]
#[entity(table = Music, pk = "{name}", sk = "artist")]
struct Artist {
    name: String,
    country: String,
}

/// `Solar Fields` / `album#Leaving Home`, with optimistic locking.
#[derive(Entity, Serialize, Deserialize, Debug)]
#[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
struct Album {
    artist: String,
    title: String,
    year: u16,
    #[version]
    version: u64,
}

/// `Solar Fields` / `song#Leaving Home#Air Song`
#[derive(Entity, Serialize, Deserialize, Debug)]
#[entity(table = Music, pk = "{artist}", sk = "song#{album}#{title}")]
struct Song {
    artist: String,
    album: String,
    title: String,
    track: u8,
    seconds: u32,
}

const ARTIST: &str = "Solar Fields";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let connection = dynashard_local::connect().await?;
    let db = Db::new(connection.client().clone());
    db.create_table::<Music>().await?;
    remove_artist(&db).await?;
    println!("table `{}` is active", db.table_name::<Music>());

    // Create.
    db.put(&Artist { name: ARTIST.into(), country: "Sweden".into() }).create_only().await?;
    let mut album = Album { artist: ARTIST.into(), title: "Leaving Home".into(), year: 2005, version: 0 };
    db.save(&mut album).await?;
    for (track, (title, seconds)) in
        [("Air Song", 334), ("Monogram", 412), ("Cupola#1", 288)].into_iter().enumerate()
    {
        let song = Song {
            artist: ARTIST.into(),
            album: album.title.clone(),
            title: title.into(),
            track: track as u8 + 1,
            seconds,
        };
        db.put(&song).await?;
    }
    println!("stored an artist, an album (version {}) and three songs", album.version);

    // Read, with typed keys built from the key fields only.
    let key = Song::key(ARTIST, "Leaving Home", "Monogram")?;
    let song = db.get(key.clone()).consistent().await?.ok_or("the song is stored")?;
    println!("read {} (track {}, {} s) under sk {:?}", song.title, song.track, song.seconds, key.sk());

    // Update non-key fields.
    let song = db.update(key).set(Song::fields().seconds, 415u32).await?;
    println!("updated {} to {} s", song.title, song.seconds);

    // Optimistic locking: a stale copy cannot overwrite a newer version.
    let mut stale = db.get(Album::key(ARTIST, "Leaving Home")?).await?.ok_or("the album is stored")?;
    album.year = 2007;
    db.save(&mut album).await?;
    stale.year = 1999;
    match db.save(&mut stale).await {
        Err(error @ Error::VersionConflict { .. }) => println!("stale write refused: {error}"),
        other => return Err(format!("expected a version conflict, got {other:?}").into()),
    }

    // Delete.
    let deleted = db.delete(Song::key(ARTIST, "Leaving Home", "Cupola#1")?).await?;
    println!("deleted {:?}", deleted.map(|song| song.title));

    print_artist(&db).await?;
    Ok(())
}

/// Prints every item of the artist's partition, decoded by entity type.
async fn print_artist(db: &Db) -> Result<(), Box<dyn std::error::Error>> {
    println!("\nitems of {ARTIST}:");
    for item in artist_items(db).await? {
        let sk = item.get("sk").and_then(|v| v.as_s().ok()).cloned().unwrap_or_default();
        let kind = item.get("_type").and_then(|v| v.as_s().ok()).cloned().unwrap_or_default();
        let line = match kind.as_str() {
            "Artist" => {
                let artist: Artist = dynashard::item::from_item(item)?;
                format!("artist  {} ({})", artist.name, artist.country)
            }
            "Album" => {
                let album: Album = dynashard::item::from_item(item)?;
                format!("album   {} ({}, version {})", album.title, album.year, album.version)
            }
            "Song" => {
                let song: Song = dynashard::item::from_item(item)?;
                format!(
                    "song    {}. {} ({}:{:02})",
                    song.track,
                    song.title,
                    song.seconds / 60,
                    song.seconds % 60
                )
            }
            other => format!("unknown entity type {other:?}"),
        };
        println!("  {sk:<30} {line}");
    }
    Ok(())
}

async fn artist_items(db: &Db) -> Result<Vec<dynashard::Item>, Box<dyn std::error::Error>> {
    let pk = Artist::key(ARTIST)?.pk().to_owned();
    let output = db
        .client()
        .query()
        .table_name(db.table_name::<Music>())
        .key_condition_expression("pk = :pk")
        .expression_attribute_values(":pk", AttributeValue::S(pk))
        .consistent_read(true)
        .send()
        .await?;
    Ok(output.items.unwrap_or_default())
}

/// Makes the example repeatable against a persistent endpoint.
async fn remove_artist(db: &Db) -> Result<(), Box<dyn std::error::Error>> {
    for item in artist_items(db).await? {
        db.client()
            .delete_item()
            .table_name(db.table_name::<Music>())
            .key("pk", item["pk"].clone())
            .key("sk", item["sk"].clone())
            .send()
            .await?;
    }
    Ok(())
}
