//! Pages and cursors: exact resumption over 10,000 items, and rejected cursors.

use crate::crud::{album, song};
use crate::model::*;
use crate::{db, unique};
use dynashard::query::CursorError;
use dynashard::{Db, Error};
use futures::TryStreamExt;

/// A small deterministic generator, so a failure can be replayed.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % bound
    }
}

async fn many_songs(db: &Db, count: usize) -> String {
    let artist = unique("Prolific");
    let songs: Vec<Song> = (0..count)
        .map(|n| {
            let mut item =
                song(&artist, &format!("album {:02}", n % 17), &format!("title {n:05} #{}", n % 3));
            item.track_number = (n % 200) as u8;
            item
        })
        .collect();
    db.batch_put(&songs).await.unwrap();
    artist
}

async fn paged(db: &Db, descending: bool, artist: &str, seed: u64) -> (Vec<(String, String)>, usize) {
    let mut random = Lcg(seed);
    let mut cursor: Option<String> = None;
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let size = 1 + random.below(700) as usize;
        let mut query = Song::query(artist).page_size(size);
        if descending {
            query = query.descending();
        }
        let page = db.page(&query, cursor.as_deref()).await.unwrap();
        pages += 1;
        assert!(page.items.len() <= size);
        seen.extend(page.items.into_iter().map(|s| (s.album, s.title)));
        match page.cursor {
            Some(next) => cursor = Some(next),
            None => return (seen, pages),
        }
    }
}

#[tokio::test]
async fn random_page_sizes_resume_exactly_over_10_000_items() {
    let db = db().await;
    let artist = many_songs(&db, 10_000).await;
    for descending in [false, true] {
        let mut query = Song::query(&artist);
        if descending {
            query = query.descending();
        }
        let unpaged: Vec<(String, String)> =
            db.stream(query).map_ok(|s| (s.album, s.title)).try_collect().await.unwrap();
        assert_eq!(unpaged.len(), 10_000);
        let mut sorted = unpaged.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 10_000, "no duplicates in one read");
        for seed in [1, 2] {
            let (pages, count) = paged(&db, descending, &artist, seed).await;
            assert!(count > 10, "many pages were read");
            assert_eq!(pages, unpaged, "paged read equals the unpaged read (descending: {descending})");
        }
    }
}

#[tokio::test]
async fn a_stream_resumes_from_a_page_cursor() {
    let db = db().await;
    let artist = many_songs(&db, 50).await;
    let query = Song::query(&artist).page_size(20);
    let first = db.page(&query, None).await.unwrap();
    let cursor = first.cursor.clone().unwrap();
    let rest: Vec<Song> = db.stream(Song::query(&artist).start_after(cursor)).try_collect().await.unwrap();
    assert_eq!(first.items.len() + rest.len(), 50);
    assert!(
        first.items.last().unwrap().title < rest[0].title
            || first.items.last().unwrap().album < rest[0].album
    );
}

#[tokio::test]
async fn foreign_and_edited_cursors_are_rejected() {
    let db = db().await;
    let artist = many_songs(&db, 30).await;
    let query = Song::query(&artist).page_size(10);
    let cursor = db.page(&query, None).await.unwrap().cursor.unwrap();
    let reason = |result: dynashard::Result<dynashard::Page<Song>>| match result {
        Err(Error::InvalidCursor { reason }) => reason,
        other => panic!("expected an invalid cursor, got {other:?}"),
    };
    let truncated = &cursor[..cursor.len() - 4];
    assert!(matches!(
        reason(db.page(&query, Some(truncated)).await),
        CursorError::Tampered | CursorError::Malformed
    ));
    let mut edited = cursor.clone().into_bytes();
    edited[5] = if edited[5] == b'A' { b'B' } else { b'A' };
    let edited = String::from_utf8(edited).unwrap();
    assert!(matches!(
        reason(db.page(&query, Some(&edited)).await),
        CursorError::Tampered | CursorError::Malformed
    ));
    assert_eq!(reason(db.page(&query, Some("garbage")).await), CursorError::Malformed);
    let other_artist = Song::query("someone else").page_size(10);
    assert_eq!(reason(db.page(&other_artist, Some(&cursor)).await), CursorError::WrongQuery);
    let descending = Song::query(&artist).page_size(10).descending();
    assert_eq!(reason(db.page(&descending, Some(&cursor)).await), CursorError::WrongQuery);

    let mut stored = album(&artist, "Indexed");
    db.save(&mut stored).await.unwrap();
    let index_query = Album::query_gsi1().page_size(1);
    let album_cursor: Result<dynashard::Page<Album>, _> = db.page(&index_query, Some(&cursor)).await;
    assert!(matches!(album_cursor, Err(Error::InvalidCursor { reason: CursorError::WrongQuery })));
}

#[tokio::test]
async fn signed_cursors_cannot_be_used_without_the_key() {
    let base = db().await;
    let artist = many_songs(&base, 30).await;
    let signed = base.clone().with_cursor_key(b"server secret");
    let query = Song::query(&artist).page_size(10);
    let cursor = signed.page(&query, None).await.unwrap().cursor.unwrap();
    assert_eq!(signed.page(&query, Some(&cursor)).await.unwrap().items.len(), 10);
    let unsigned = base.page(&query, Some(&cursor)).await;
    assert!(matches!(unsigned, Err(Error::InvalidCursor { reason: CursorError::Tampered })));
    let other_key = base.clone().with_cursor_key(b"another secret");
    let forged = other_key.page(&query, Some(&cursor)).await;
    assert!(matches!(forged, Err(Error::InvalidCursor { reason: CursorError::Tampered })));
}

#[tokio::test]
async fn a_limit_caps_each_page() {
    let db = db().await;
    let artist = many_songs(&db, 30).await;
    let query = Song::query(&artist).limit(10);
    let first = db.page(&query, None).await.unwrap();
    assert_eq!(first.items.len(), 10);
    let second = db.page(&query, first.cursor.as_deref()).await.unwrap();
    assert_eq!(second.items.len(), 10);
    let key = |song: &Song| (song.album.clone(), song.title.clone());
    assert!(
        key(first.items.last().unwrap()) < key(&second.items[0]),
        "the next page resumes after the first"
    );
    let small_pages = db.page(&Song::query(&artist).limit(10).page_size(4), None).await.unwrap();
    assert_eq!(small_pages.items.len(), 4, "the smaller of page size and limit");
}
