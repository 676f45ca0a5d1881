//! Pages both ways: every page's `previous` cursor gives back the page before it, for a plain
//! partition, a hash-sharded index and a merge over many keys, with writers between pages.

use crate::crud::song;
use crate::merged::{directed, Post, Social};
use crate::model::Song;
use crate::sharded_album::{ShardedAlbum, ShardedMusic};
use crate::{db, unique};
use dynashard::query::CursorError;
use dynashard::query::FromItem;
use dynashard::{Db, Error, Page, Query};
use std::fmt::Debug;

/// Every page of `query` forwards; then back from the last one through `previous`, checking each
/// page read backwards is the forward page before, and that its `cursor` leads forwards again.
async fn both_ways<E, F, K>(db: &Db, query: &Query<E, F>, key: impl Fn(&E) -> K) -> Vec<K>
where
    E: FromItem + Clone + Debug + PartialEq,
    K: PartialEq + Debug + Clone,
{
    let mut pages: Vec<Page<E>> = vec![db.page(query, None).await.expect("first page")];
    assert_eq!(pages[0].previous, None, "a first page has no previous page");
    while let Some(cursor) = pages.last().and_then(|page| page.cursor.clone()) {
        let page = db.page(query, Some(&cursor)).await.expect("next page");
        assert!(page.previous.is_some() || page.items.is_empty());
        pages.push(page);
    }
    let keys = |page: &Page<E>| page.items.iter().map(&key).collect::<Vec<K>>();
    for at in (1..pages.len()).rev() {
        let Some(previous) = pages[at].previous.clone() else { continue };
        let back = db.page(query, Some(&previous)).await.expect("previous page");
        assert_eq!(keys(&back), keys(&pages[at - 1]), "page {} read backwards", at - 1);
        // Forwards again from the page read backwards.
        let again = db.page(query, back.cursor.as_deref()).await.expect("forwards again");
        assert_eq!(keys(&again), keys(&pages[at]), "page {at} again");
        // Backwards from the first page: nothing more before it.
        assert_eq!(back.previous.is_none(), at == 1, "page {}'s previous", at - 1);
        // A previous page asks what a first page asks (every shard, and again those it runs
        // out of), give or take a round: it knows nothing of what lies before it.
        assert!(back.stats.requests <= 2 * pages[0].stats.requests + 2, "{:?}", back.stats);
    }
    pages.iter().flat_map(keys).collect()
}

#[tokio::test]
async fn a_partition_pages_both_ways() {
    let db = db().await;
    let artist = unique("both-ways");
    let songs: Vec<Song> = (0..23).map(|n| song(&artist, "album", &format!("title {n:02}"))).collect();
    db.batch_put(&songs).await.expect("put songs");
    for descending in [false, true] {
        let query = Song::query(&artist).page_size(5);
        let query = directed(query, descending);
        let read = both_ways(&db, &query, |song: &Song| song.title.clone()).await;
        let mut want: Vec<String> = songs.iter().map(|song| song.title.clone()).collect();
        if descending {
            want.reverse();
        }
        assert_eq!(read, want);
    }
}

#[tokio::test]
async fn a_sharded_index_and_a_merge_page_both_ways() {
    let db = db().await;
    db.create_table::<ShardedMusic>().await.expect("create ShardedMusic");
    db.create_table::<Social>().await.expect("create MergedTests");
    let run = unique("both-ways-sharded");
    // Titles repeat, so pages end inside runs of equal sort keys across shards.
    let albums: Vec<ShardedAlbum> = (0..40)
        .map(|n| ShardedAlbum {
            artist: format!("{run}-{n}"),
            title: format!("{run} t{}", n % 7),
            year: 2000,
        })
        .collect();
    db.batch_put(&albums).await.expect("put albums");
    for descending in [false, true] {
        let query = ShardedAlbum::query_by_title_hash().begins_with(&run).page_size(6);
        let query = directed(query, descending);
        let read = both_ways(&db, &query, |album: &ShardedAlbum| album.artist.clone()).await;
        assert_eq!(read.len(), albums.len());
    }

    let posts: Vec<Post> = (0..12u32)
        .flat_map(|a| {
            let author = format!("{run}-a{a:02}");
            (0..(a % 5 + 1)).map(move |n| Post {
                author: author.clone(),
                at: n * 7 % 11,
                id: n,
                body: "b".into(),
            })
        })
        .collect();
    db.batch_put(&posts).await.expect("put posts");
    let authors: Vec<String> = (0..12u32).map(|a| format!("{run}-a{a:02}")).collect();
    for descending in [false, true] {
        let query =
            Query::merge(authors.iter().map(|author| directed(Post::query(author.as_str()), descending)))
                .page_size(4);
        let read = both_ways(&db, &query, |post: &Post| (post.author.clone(), post.at, post.id)).await;
        assert_eq!(read.len(), posts.len());
    }
}

#[tokio::test]
async fn a_previous_cursor_is_bound_to_its_direction_and_query() {
    let db = db().await;
    let artist = unique("both-ways-bound");
    let songs: Vec<Song> = (0..9).map(|n| song(&artist, "album", &format!("title {n:02}"))).collect();
    db.batch_put(&songs).await.expect("put songs");
    let query = Song::query(&artist).page_size(3);
    let first = db.page(&query, None).await.expect("first");
    let second = db.page(&query, first.cursor.as_deref()).await.expect("second");
    let previous = second.previous.expect("a previous page");
    // Without its mark it is a cursor of the query read the other way.
    let unmarked = previous.trim_start_matches('~');
    let error = db.page(&query, Some(unmarked)).await.expect_err("unmarked");
    assert!(matches!(error, Error::InvalidCursor { reason: CursorError::WrongQuery }), "{error:?}");
    let marked = format!("~{}", first.cursor.expect("a cursor"));
    let error = db.page(&query, Some(&marked)).await.expect_err("marked next cursor");
    assert!(matches!(error, Error::InvalidCursor { reason: CursorError::WrongQuery }), "{error:?}");
    let other = Song::query(&unique("other")).page_size(3);
    let error = db.page(&other, Some(&previous)).await.expect_err("another query");
    assert!(matches!(error, Error::InvalidCursor { .. }), "{error:?}");
}

#[tokio::test]
async fn writers_between_pages_in_both_directions_never_turn_a_page_backwards() {
    let db = db().await;
    let artist = unique("both-ways-writers");
    let songs: Vec<Song> = (0..30).map(|n| song(&artist, "album", &format!("title {:03}", n * 10))).collect();
    db.batch_put(&songs).await.expect("put songs");
    let query = Song::query(&artist).page_size(4);
    let mut page = db.page(&query, None).await.expect("first");
    for _ in 0..4 {
        page = db.page(&query, page.cursor.as_deref()).await.expect("forwards");
    }
    let at = page.items[0].title.clone();
    // Songs before and after the page, written while the reader turns back.
    for title in ["title 001", "title 155", "title 299"] {
        db.put(&song(&artist, "album", title)).await.expect("write");
    }
    let mut seen = Vec::new();
    let mut back = page;
    while let Some(previous) = back.previous.clone() {
        back = db.page(&query, Some(&previous)).await.expect("backwards");
        let titles: Vec<String> = back.items.iter().map(|song| song.title.clone()).collect();
        assert!(titles.windows(2).all(|pair| pair[0] < pair[1]), "in the query's order: {titles:?}");
        assert!(titles.iter().all(|title| *title < at), "before the page it came from");
        if let Some(last) = seen.first() {
            assert!(titles.last().is_none_or(|title| title < last), "never backwards");
        }
        seen.splice(0..0, titles);
    }
    let distinct: std::collections::BTreeSet<&String> = seen.iter().collect();
    assert_eq!(distinct.len(), seen.len(), "nothing repeated");
    for song in songs.iter().filter(|song| song.title < at) {
        assert!(seen.contains(&song.title), "{} present throughout", song.title);
    }
}

/// A previous page of a merge over many keys asks only the keys the page before held items of
/// (its cursor carries them, as a next page's cursor carries its horizon): about what a next page
/// asks, where a first page asks every key. Both directions.
#[tokio::test]
async fn a_previous_page_of_a_merge_asks_the_keys_of_the_page_before() {
    let db = db().await;
    db.create_table::<Social>().await.expect("create MergedTests");
    let run = unique("back-horizon");
    let authors: Vec<String> = (0..100).map(|a| format!("{run}-a{a:03}")).collect();
    let posts: Vec<Post> = authors
        .iter()
        .enumerate()
        .flat_map(|(a, author)| {
            (0..3u32).map(move |n| Post {
                author: author.clone(),
                at: n * 1_000 + a as u32,
                id: n,
                body: "b".into(),
            })
        })
        .collect();
    db.batch_put(&posts).await.expect("put posts");
    for descending in [false, true] {
        let query =
            Query::merge(authors.iter().map(|author| directed(Post::query(author.as_str()), descending)))
                .page_size(10);
        let mut pages = vec![db.page(&query, None).await.expect("a first page")];
        assert!(pages[0].stats.requests >= 100, "{:?}", pages[0].stats);
        for _ in 0..4 {
            let cursor = pages.last().and_then(|page| page.cursor.clone()).expect("more pages");
            pages.push(db.page(&query, Some(&cursor)).await.expect("a next page"));
        }
        for at in 1..pages.len() {
            let previous = pages[at].previous.clone().expect("a previous page");
            let back = db.page(&query, Some(&previous)).await.expect("the page before");
            assert_eq!(
                back.items,
                pages[at - 1].items,
                "page {at}'s previous page, descending: {descending}"
            );
            assert!(back.stats.requests <= 10 + 2, "page {at}'s previous page: {:?}", back.stats);
        }
    }
}
