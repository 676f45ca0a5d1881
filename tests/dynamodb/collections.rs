//! Item collections: several entity types of one partition, read with one query.

use crate::crud::{album, song};
use crate::model::*;
use crate::shop_model::*;
use crate::{db, unique};
use dynashard::{Collection, Error};
use futures::TryStreamExt;

#[derive(Collection, Debug)]
enum ArtistItems {
    Artist(Artist),
    Album(Album),
    Song(Song),
}

#[tokio::test]
async fn three_entity_types_in_one_query() {
    let db = db().await;
    let name = unique("Collected");
    db.put(&Artist { name: name.clone(), country: Some("SE".into()) }).await.unwrap();
    let mut stored = album(&name, "Leaving Home");
    db.save(&mut stored).await.unwrap();
    db.put(&song(&name, "Leaving Home", "Air Song")).await.unwrap();
    db.put(&song(&name, "Leaving Home", "Monogram")).await.unwrap();
    let items: Vec<ArtistItems> =
        db.stream(ArtistItems::query(&Artist::key(&name).unwrap())).try_collect().await.unwrap();
    let kinds: Vec<&str> = items
        .iter()
        .map(|item| match item {
            ArtistItems::Artist(_) => "artist",
            ArtistItems::Album(_) => "album",
            ArtistItems::Song(_) => "song",
        })
        .collect();
    assert_eq!(kinds, ["album", "artist", "song", "song"], "sort-key order: album#, artist, song#");
    let ArtistItems::Song(first_song) = &items[2] else { panic!("a song") };
    assert_eq!(first_song.title, "Air Song");
    let ArtistItems::Album(first_album) = &items[0] else { panic!("an album") };
    assert_eq!((first_album.title.as_str(), first_album.version), ("Leaving Home", 1));
    let ArtistItems::Artist(artist) = &items[1] else { panic!("the artist") };
    assert_eq!(artist.country.as_deref(), Some("SE"));
    let backwards: Vec<ArtistItems> = db
        .stream(ArtistItems::query(&Song::key(&name, "x", "y").unwrap()).descending())
        .try_collect()
        .await
        .unwrap();
    assert!(matches!(backwards[0], ArtistItems::Song(_)) && matches!(backwards[3], ArtistItems::Album(_)));
}

#[tokio::test]
async fn unknown_entity_types_are_reported_or_skipped() {
    let db = db().await;
    let name = unique("Stranger");
    db.put(&Artist { name: name.clone(), country: None }).await.unwrap();
    db.put(&Play { artist: name.clone(), day: 1, offset: 0 }).await.unwrap();
    let key = Artist::key(&name).unwrap();
    let error = db.stream(ArtistItems::query(&key)).try_collect::<Vec<_>>().await.unwrap_err();
    assert!(
        matches!(&error, Error::UnknownEntityType { found: Some(found), expected } if found == "Play" && expected.len() == 3),
        "{error:?}"
    );
    let known: Vec<ArtistItems> =
        db.stream(ArtistItems::query(&key).skip_other_types()).try_collect().await.unwrap();
    assert_eq!(known.len(), 1);
    assert_eq!(
        db.count(&ArtistItems::query(&key)).await.unwrap(),
        1,
        "a count keeps to the collection's types"
    );
}

#[tokio::test]
async fn vertical_partitioning_reads_both_halves_at_once() {
    let db = db().await;
    let sku = unique("sku");
    let product = Product { sku: sku.clone(), name: "Kettle".into(), description: "1.7 l, steel".into() };
    db.put(&product).await.unwrap();
    db.put(&Inventory { sku: sku.clone(), in_stock: 12 }).await.unwrap();
    db.update(Inventory::key(&sku).unwrap()).add(Inventory::fields().in_stock, 3).await.unwrap();
    let items: Vec<ProductItems> =
        db.stream(ProductItems::query(&Product::key(&sku).unwrap())).try_collect().await.unwrap();
    assert_eq!(items, [ProductItems::Details(product), ProductItems::Stock(Inventory { sku, in_stock: 15 })]);
}
