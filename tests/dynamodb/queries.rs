//! Every typed query form, ascending and descending, against DynamoDB Local.

use crate::crud::{album, song};
use crate::model::*;
use crate::{db, unique};
use dynashard::{Db, Error, Query};
use futures::TryStreamExt;

async fn titles<F>(db: &Db, query: Query<Song, F>) -> Vec<String> {
    let songs: Vec<Song> = db.stream(query).try_collect().await.unwrap();
    songs.into_iter().map(|song| song.title).collect()
}

/// An artist with two albums (one a prefix of the other, one containing `#`) and an artist item.
async fn catalogue(db: &Db) -> String {
    let artist = unique("Catalogue");
    db.put(&Artist { name: artist.clone(), country: None }).await.unwrap();
    let mut stored = album(&artist, "Leaving Home");
    db.save(&mut stored).await.unwrap();
    for (album, title) in [
        ("Leaving Home", "Air Song"),
        ("Leaving Home", "Breathe"),
        ("Leaving Home", "Cupola"),
        ("Leaving Home", "Daybreak"),
        ("Leaving Home", "Emerald"),
        ("Leaving", "Zed"),
        ("Leaving#Home", "Hash"),
    ] {
        db.put(&song(&artist, album, title)).await.unwrap();
    }
    artist
}

#[tokio::test]
async fn all_items_of_one_entity_in_a_partition() {
    let db = db().await;
    let artist = catalogue(&db).await;
    // Sort-key order: "song#Leaving#Zed" < "song#Leaving Home#..." < "song#Leaving$#Home#Hash"
    // ('#' is 0x23, ' ' is 0x20, '$' is 0x24): values group by album, in encoded byte order.
    let all = titles(&db, Song::query(&artist)).await;
    assert_eq!(all, ["Air Song", "Breathe", "Cupola", "Daybreak", "Emerald", "Zed", "Hash"]);
    let reversed = titles(&db, Song::query(&artist).descending()).await;
    assert_eq!(reversed, ["Hash", "Zed", "Emerald", "Daybreak", "Cupola", "Breathe", "Air Song"]);
    let albums: Vec<Album> = db.stream(Album::query(&artist)).try_collect().await.unwrap();
    assert_eq!(albums.len(), 1, "the album query does not see songs or the artist item");
}

#[tokio::test]
async fn equality_narrows_field_by_field() {
    let db = db().await;
    let artist = catalogue(&db).await;
    let of_album = titles(&db, Song::query(&artist).eq("Leaving Home")).await;
    assert_eq!(of_album, ["Air Song", "Breathe", "Cupola", "Daybreak", "Emerald"]);
    assert_eq!(titles(&db, Song::query(&artist).eq("Leaving")).await, ["Zed"], "prefix-safe");
    assert_eq!(titles(&db, Song::query(&artist).eq("Leaving#Home")).await, ["Hash"]);
    let one = titles(&db, Song::query(&artist).eq("Leaving Home").eq("Cupola")).await;
    assert_eq!(one, ["Cupola"]);
    assert!(titles(&db, Song::query(&artist).eq("Leaving Home").eq("Nope")).await.is_empty());
}

#[tokio::test]
async fn range_conditions_on_the_last_field() {
    let db = db().await;
    let artist = catalogue(&db).await;
    let album = || Song::query(&artist).eq("Leaving Home");
    assert_eq!(titles(&db, album().lt("Cupola")).await, ["Air Song", "Breathe"]);
    assert_eq!(titles(&db, album().le("Cupola")).await, ["Air Song", "Breathe", "Cupola"]);
    assert_eq!(titles(&db, album().gt("Cupola")).await, ["Daybreak", "Emerald"]);
    assert_eq!(titles(&db, album().ge("Cupola")).await, ["Cupola", "Daybreak", "Emerald"]);
    assert_eq!(titles(&db, album().between("B", "D")).await, ["Breathe", "Cupola"]);
    let reversed: Result<Vec<Song>, Error> = db.stream(album().between("D", "B")).try_collect().await;
    assert!(matches!(reversed, Err(Error::InvalidQuery { .. })), "a reversed range is refused: {reversed:?}");
    assert_eq!(titles(&db, album().begins_with("Da")).await, ["Daybreak"]);
    assert_eq!(titles(&db, album().gt("Breathe").descending()).await, ["Emerald", "Daybreak", "Cupola"]);
    assert_eq!(
        titles(&db, album().lt("Emerald").descending()).await,
        ["Daybreak", "Cupola", "Breathe", "Air Song"]
    );
    assert_eq!(titles(&db, Song::query(&artist).begins_with("Leaving ")).await.len(), 5);
}

#[tokio::test]
async fn limit_filter_and_consistent_reads() {
    let db = db().await;
    let artist = catalogue(&db).await;
    assert_eq!(titles(&db, Song::query(&artist).limit(2)).await, ["Air Song", "Breathe"]);
    assert_eq!(titles(&db, Song::query(&artist).descending().limit(2)).await, ["Hash", "Zed"]);
    assert_eq!(
        titles(&db, Song::query(&artist).eq("Leaving Home").gt("Air Song").limit(1)).await,
        ["Breathe"]
    );
    let short = Song::fields().length_seconds.lt(300);
    assert!(titles(&db, Song::query(&artist).filter(short)).await.is_empty());
    assert_eq!(titles(&db, Song::query(&artist).consistent().page_size(2)).await.len(), 7);
}

#[tokio::test]
async fn numeric_sort_key_ranges() {
    let db = db().await;
    let artist = unique("Plays");
    for day in [1u32, 2] {
        for offset in -5i64..=5 {
            db.put(&Play { artist: artist.clone(), day, offset }).await.unwrap();
        }
    }
    let offsets = |plays: Vec<Play>| plays.into_iter().map(|p| p.offset).collect::<Vec<_>>();
    let q = || Play::query(&artist).eq(2);
    let between: Vec<Play> = db.stream(q().between(-2, 1)).try_collect().await.unwrap();
    assert_eq!(offsets(between), [-2, -1, 0, 1]);
    let below: Vec<Play> = db.stream(q().lt(-3)).try_collect().await.unwrap();
    assert_eq!(offsets(below), [-5, -4]);
    let above: Vec<Play> = db.stream(q().gt(3).descending()).try_collect().await.unwrap();
    assert_eq!(offsets(above), [5, 4]);
    let all: Vec<Play> = db.stream(Play::query(&artist)).try_collect().await.unwrap();
    assert_eq!(all.len(), 22);
    assert!(all.windows(2).all(|w| (w[0].day, w[0].offset) < (w[1].day, w[1].offset)));
}

#[tokio::test]
async fn index_queries_in_index_order() {
    let db = db().await;
    let tag = unique("idx");
    let artist = unique("IndexArtist");
    for title in ["Gamma", "Alpha", "Beta", "Delta"] {
        let mut stored = album(&artist, &format!("{tag} {title}"));
        db.save(&mut stored).await.unwrap();
    }
    let by_title: Vec<Album> = db.stream(Album::query_gsi1().begins_with(&tag)).try_collect().await.unwrap();
    let names: Vec<&str> = by_title.iter().map(|a| a.title.rsplit(' ').next().unwrap()).collect();
    assert_eq!(names, ["Alpha", "Beta", "Delta", "Gamma"]);
    let one: Vec<Album> =
        db.stream(Album::query_gsi1().eq(&format!("{tag} Beta"))).try_collect().await.unwrap();
    assert_eq!(one.len(), 1);
    let range = Album::query_gsi1().between(&format!("{tag} B"), &format!("{tag} E")).descending();
    let range: Vec<Album> = db.stream(range).try_collect().await.unwrap();
    assert_eq!(
        range.iter().map(|a| a.title.rsplit(' ').next().unwrap()).collect::<Vec<_>>(),
        ["Delta", "Beta"]
    );
    let error = db.stream(Album::query_gsi1().consistent()).try_collect::<Vec<_>>().await.unwrap_err();
    assert!(matches!(error, Error::InvalidQuery { .. }), "{error:?}");
}

#[tokio::test]
async fn invalid_values_fail_the_query_before_sending() {
    let db = Db::new(dynashard::client_for_endpoint("http://127.0.0.1:9"));
    let error = db.stream(Song::query("")).try_collect::<Vec<_>>().await.unwrap_err();
    assert!(matches!(error, Error::InvalidKey { .. }), "{error:?}");
    let error = db.stream(Song::query("a").eq("")).try_collect::<Vec<_>>().await.unwrap_err();
    assert!(matches!(error, Error::InvalidKey { .. }), "{error:?}");
    let reserved = Song::query("a").eq("x").gt("\u{10FFFF}");
    let error = db.stream(reserved).try_collect::<Vec<_>>().await.unwrap_err();
    assert!(error.is_invalid_input(), "{error:?}");
}

#[tokio::test]
async fn items_of_other_types_are_an_error_or_skipped() {
    let db = db().await;
    let name = unique("Mixed");
    db.put(&Artist { name: name.clone(), country: None }).await.unwrap();
    let error = db.stream(Impostor::query(&name)).try_collect::<Vec<_>>().await.unwrap_err();
    assert!(matches!(error, Error::WrongEntityType { .. }), "{error:?}");
    let skipped: Vec<Impostor> =
        db.stream(Impostor::query(&name).skip_other_types()).try_collect().await.unwrap();
    assert!(skipped.is_empty());
}
