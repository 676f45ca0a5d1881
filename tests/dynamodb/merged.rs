//! Merged queries against DynamoDB Local: one ordered read over many partition keys, of the
//! base table and of a hash-sharded index, paged with one cursor, with skewed keys, ties, keys
//! given twice or in another order, bounds, and a writer adding items while a reader pages.

use crate::unique;
use dynashard::{Db, Entity, Error, Query, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

#[derive(Table)]
#[table(name = "MergedTests", pk = "pk", sk = "sk")]
#[gsi(Timeline(pk = "tl_pk", sk = "tl_sk"))]
pub struct Social;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[entity(table = Social, pk = "author#{author}", sk = "post#{at}#{id}")]
#[gsi(Timeline(pk = "timeline#{author}", sk = "{at}#{id}"))]
#[shard(Timeline(hash = 4, by = id))]
pub struct Post {
    pub author: String,
    pub at: u32,
    pub id: u32,
    pub body: String,
}

async fn db() -> Db {
    let db = crate::db().await;
    db.create_table::<Social>().await.expect("create MergedTests");
    db
}

/// Posts of `authors` authors: the first writes `heavy` posts, the others one to five, every
/// author posting at times that collide with the others' (ties on `at`).
fn posts(run: &str, authors: usize, heavy: u32) -> Vec<Post> {
    let mut posts = Vec::new();
    for a in 0..authors {
        let author = format!("{run}-a{a:02}");
        let count = if a == 0 { heavy } else { 1 + (a as u32 * 7) % 5 };
        for n in 0..count {
            let at = (n * 3 + a as u32) % 40;
            posts.push(Post {
                author: author.clone(),
                at,
                id: n,
                body: "x".repeat(200 + (n as usize * 37) % 800),
            });
        }
    }
    posts
}

fn authors(run: &str, authors: usize) -> Vec<String> {
    (0..authors).map(|a| format!("{run}-a{a:02}")).collect()
}

fn identity(post: &Post) -> (String, u32, u32) {
    (post.author.clone(), post.at, post.id)
}

/// Every page of `query`, in order, with their request counts.
async fn pages(db: &Db, query: &Query<Post>) -> (Vec<Post>, Vec<usize>) {
    let (mut all, mut requests, mut cursor) = (Vec::new(), Vec::new(), None::<String>);
    loop {
        let page = db.page(query, cursor.as_deref()).await.expect("page");
        requests.push(page.stats.requests);
        all.extend(page.items);
        match page.cursor {
            Some(next) => cursor = Some(next),
            None => return (all, requests),
        }
    }
}

/// The base table's sort key order: `at`, then `id` (both zero-padded in the key).
fn expected(posts: &[Post], descending: bool) -> Vec<(String, u32, u32)> {
    let mut sorted: Vec<&Post> = posts.iter().collect();
    sorted.sort_by(|a, b| (a.at, a.id, &a.author).cmp(&(b.at, b.id, &b.author)));
    if descending {
        sorted.sort_by_key(|post| std::cmp::Reverse((post.at, post.id)));
    }
    sorted.into_iter().map(identity).collect()
}

/// `query`, descending when `descending`.
pub fn directed<E, F>(query: Query<E, F>, descending: bool) -> Query<E, F> {
    if descending {
        query.descending()
    } else {
        query
    }
}

fn sort_keys(posts: &[(String, u32, u32)]) -> Vec<(u32, u32)> {
    posts.iter().map(|(_, at, id)| (*at, *id)).collect()
}

#[tokio::test]
async fn a_merge_reads_many_keys_as_one_ordered_paged_read() {
    let db = db().await;
    let run = unique("merge");
    let written = posts(&run, 30, 120);
    db.batch_put(&written).await.expect("put posts");
    let keys = authors(&run, 30);

    for descending in [false, true] {
        let query =
            Query::merge(keys.iter().map(|author| directed(Post::query(author.as_str()), descending)))
                .page_size(20);
        let (read, requests) = pages(&db, &query).await;
        let read: Vec<_> = read.iter().map(identity).collect();
        let want = expected(&written, descending);
        // In sort-key order; ties (equal `at` and `id` across authors) in any order, once each.
        assert_eq!(sort_keys(&read), sort_keys(&want), "descending: {descending}");
        let unique_read: BTreeSet<_> = read.iter().cloned().collect();
        assert_eq!(unique_read.len(), written.len(), "nothing repeated");
        assert_eq!(unique_read, want.iter().cloned().collect::<BTreeSet<_>>(), "nothing skipped");
        // The first page asks each key once (and the keys the merge waits on again).
        assert!(requests[0] >= 30 && requests[0] <= 45, "first page requests: {requests:?}");

        // The stream gives the same sequence.
        let streamed: Vec<Post> = db.stream(query.clone()).try_collect().await.expect("stream");
        assert_eq!(streamed.iter().map(identity).collect::<Vec<_>>(), read);
    }
}

#[tokio::test]
async fn keys_in_another_order_or_twice_are_the_same_merge() {
    let db = db().await;
    let run = unique("merge-keys");
    let written = posts(&run, 8, 30);
    db.batch_put(&written).await.expect("put posts");
    let keys = authors(&run, 8);
    let forward = Query::merge(keys.iter().map(|author| Post::query(author.as_str()))).page_size(7);
    let mut shuffled: Vec<&String> = keys.iter().rev().collect();
    shuffled.extend(keys.iter().take(3));
    let again = Query::merge(shuffled.into_iter().map(|author| Post::query(author.as_str()))).page_size(7);

    let first = db.page(&forward, None).await.expect("first page");
    let cursor = first.cursor.expect("more pages");
    // A cursor of the merge resumes the same keys given in another order, or twice.
    let second = db.page(&again, Some(&cursor)).await.expect("second page");
    let both: Vec<_> = first.items.iter().chain(&second.items).map(identity).collect();
    let want = expected(&written, false);
    assert_eq!(both, want[..14].to_vec());

    // A cursor of another set of keys is rejected.
    let fewer = Query::merge(keys.iter().skip(1).map(|author| Post::query(author.as_str()))).page_size(7);
    let error = db.page(&fewer, Some(&cursor)).await.expect_err("cursor of other keys");
    assert!(matches!(error, Error::InvalidCursor { .. }), "{error:?}");
}

#[tokio::test]
async fn a_merge_of_a_sharded_index_reads_every_shard_of_every_key() {
    let db = db().await;
    let run = unique("merge-sharded");
    let written = posts(&run, 12, 60);
    db.batch_put(&written).await.expect("put posts");
    let keys = authors(&run, 12);
    let query = Query::merge(keys.iter().map(|author| Post::query_timeline(author.as_str()).descending()))
        .page_size(9);
    let (read, _) = pages(&db, &query).await;
    let read: Vec<_> = read.iter().map(identity).collect();
    let want = expected(&written, true);
    assert_eq!(sort_keys(&read), sort_keys(&want));
    assert_eq!(read.iter().cloned().collect::<BTreeSet<_>>(), want.iter().cloned().collect::<BTreeSet<_>>());
    assert_eq!(read.len(), written.len());
}

#[tokio::test]
async fn a_merge_is_bounded_and_refuses_what_it_cannot_read() {
    let db = db().await;
    let run = unique("merge-bounds");
    let keys = authors(&run, 5);
    let merged = || Query::merge(keys.iter().map(|author| Post::query(author.as_str())));

    let error = db.page(&merged().max_keys(4), None).await.expect_err("over the bound");
    assert!(matches!(error, Error::TooManyKeys { keys: 5, max: 4 }), "{error:?}");
    assert!(error.is_invalid_input());
    // Keys given twice count once.
    let twice = Query::merge(keys.iter().chain(&keys).map(|author| Post::query(author.as_str()))).max_keys(5);
    assert!(db.page(&twice, None).await.expect("five distinct keys").items.is_empty());

    let none = Query::merge(Vec::<dynashard::Query<Post, _>>::from_iter(
        keys.iter().take(0).map(|author| Post::query(author.as_str())),
    ));
    let error = db.page(&none, None).await.expect_err("a merge of nothing");
    assert!(matches!(error, Error::InvalidQuery { .. }), "{error:?}");

    // Queries that differ in more than their key.
    let mixed = Query::merge([Post::query(keys[0].as_str()), Post::query(keys[1].as_str()).descending()]);
    let error = db.page(&mixed, None).await.expect_err("mixed directions");
    assert!(error.to_string().contains("direction"), "{error}");
    let error = db.stream(mixed).try_collect::<Vec<_>>().await.expect_err("streams refuse it too");
    assert!(matches!(error, Error::InvalidQuery { .. }), "{error:?}");
}

#[tokio::test]
async fn a_writer_adding_posts_while_a_reader_pages_skips_and_repeats_nothing() {
    let db = db().await;
    let run = unique("merge-writers");
    let written = posts(&run, 10, 40);
    db.batch_put(&written).await.expect("put posts");
    let keys = authors(&run, 10);
    for descending in [false, true] {
        let query =
            Query::merge(keys.iter().map(|author| directed(Post::query(author.as_str()), descending)))
                .page_size(6);
        let (mut read, mut cursor, mut added) = (Vec::new(), None::<String>, 0u32);
        loop {
            // Between pages, a post before and a post after the reader's position, by several
            // authors.
            for (n, author) in keys.iter().enumerate().take(3) {
                let id = 10_000 + added * 10 + n as u32 + u32::from(descending) * 5_000;
                let at = if added % 2 == 0 { 0 } else { 39 };
                db.put(&Post { author: author.clone(), at, id, body: "late".into() })
                    .await
                    .expect("late post");
            }
            added += 1;
            let page = db.page(&query, cursor.as_deref()).await.expect("page");
            read.extend(page.items.iter().map(identity));
            match page.cursor {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        let keys_read = sort_keys(&read);
        let in_order =
            keys_read.windows(2).all(|pair| if descending { pair[0] >= pair[1] } else { pair[0] <= pair[1] });
        assert!(in_order, "never backwards (descending: {descending})");
        let distinct: BTreeSet<_> = read.iter().cloned().collect();
        assert_eq!(distinct.len(), read.len(), "nothing repeated");
        for post in &written {
            assert!(distinct.contains(&identity(post)), "present throughout, so read: {post:?}");
        }
    }
}

#[tokio::test]
async fn a_later_page_asks_only_the_keys_that_can_hold_its_items() {
    let db = db().await;
    let run = unique("merge-horizon");
    // 60 authors of 6 posts each, no two at the same time.
    let written: Vec<Post> = (0..60u32)
        .flat_map(|a| {
            let author = format!("{run}-a{a:02}");
            (0..6u32).map(move |n| Post {
                author: author.clone(),
                at: n * 60 + a,
                id: n,
                body: "x".repeat(300),
            })
        })
        .collect();
    db.batch_put(&written).await.expect("put posts");
    let keys = authors(&run, 60);
    let query = Query::merge(keys.iter().map(|author| Post::query(author.as_str()))).page_size(5);
    let first = db.page(&query, None).await.expect("first page");
    assert!(first.stats.requests >= 60, "a first page asks every key: {}", first.stats.requests);
    let cursor = first.cursor.expect("more pages");
    let second = db.page(&query, Some(&cursor)).await.expect("second page");
    // The first page saw every key's first posts: only the keys holding the next five are asked.
    assert!(second.stats.requests <= 10, "{} requests", second.stats.requests);
    let both: Vec<_> = first.items.iter().chain(&second.items).map(identity).collect();
    assert_eq!(both, expected(&written, false)[..10].to_vec());
    // Deleting items the horizon counted on makes the page read the keys it parked, from the
    // same cursor: nothing after them is skipped.
    let counted = expected(&written, false)[5..8].to_vec();
    for (author, at, id) in &counted {
        db.delete(Post::key(author, *at, *id).expect("a key")).await.expect("delete");
    }
    let (mut read, mut next) = (Vec::new(), Some(cursor));
    while let Some(at) = next {
        let page = db.page(&query, Some(&at)).await.expect("page");
        read.extend(page.items.iter().map(identity));
        next = page.cursor;
    }
    let mut want = expected(&written, false)[5..].to_vec();
    want.retain(|post| !counted.contains(post));
    assert_eq!(read, want, "nothing skipped past the deleted posts");
}

#[tokio::test]
async fn later_pages_keep_asking_only_the_keys_their_bands_reach() {
    let db = db().await;
    let run = unique("merge-bands");
    // 120 authors of 4 posts each, no two at the same time: a page of 5 holds five authors'.
    let written: Vec<Post> = (0..120u32)
        .flat_map(|a| {
            let author = format!("{run}-a{a:03}");
            (0..4u32).map(move |n| Post { author: author.clone(), at: n * 120 + a, id: n, body: "x".into() })
        })
        .collect();
    db.batch_put(&written).await.expect("put posts");
    let keys: Vec<String> = (0..120).map(|a| format!("{run}-a{a:03}")).collect();
    for descending in [false, true] {
        let query = Query::merge(keys.iter().map(|author| {
            let query = Post::query(author.as_str());
            if descending {
                query.descending()
            } else {
                query
            }
        }))
        .page_size(5);
        let (mut read, mut requests, mut cursor) = (Vec::new(), Vec::new(), None::<String>);
        for _ in 0..24 {
            let page = db.page(&query, cursor.as_deref()).await.expect("page");
            read.extend(page.items.iter().map(identity));
            requests.push(page.stats.requests);
            cursor = page.cursor;
        }
        assert_eq!(read, expected(&written, descending)[..120].to_vec(), "descending: {descending}");
        assert!(requests[0] >= 120, "a first page asks every key: {requests:?}");
        // Each page ends with the bands of every key it did not ask: most later pages ask the
        // five keys of their posts, a page reaching the last band (every key past the fifteenth
        // band) asks those at once, and no later page asks every key.
        let context = format!("descending: {descending}: {requests:?}");
        assert!(requests[1..].iter().all(|&asked| asked <= 60), "{context}");
        assert!(requests[1..].iter().filter(|&&asked| asked > 10).count() <= 2, "{context}");
    }
}

#[tokio::test]
async fn is_in_on_a_hash_shard_field_reads_only_the_shards_its_values_route_to() {
    use crate::sharded_album::{ShardedAlbum, ShardedMusic};
    let db = db().await;
    db.create_table::<ShardedMusic>().await.expect("create ShardedMusic");
    let run = unique("is-in");
    let titles: Vec<String> = (0..12).map(|n| format!("{run} title {n:02}")).collect();
    // Each title by several artists: equal sort keys in one shard.
    let albums: Vec<ShardedAlbum> = titles
        .iter()
        .flat_map(|title| {
            (0..4).map(move |n| ShardedAlbum {
                artist: format!("{title} by {n}"),
                title: title.clone(),
                year: 2000,
            })
        })
        .collect();
    db.batch_put(&albums).await.expect("put albums");
    let wanted = [titles[7].as_str(), titles[2].as_str(), titles[9].as_str(), titles[2].as_str()];
    for descending in [false, true] {
        let query = directed(ShardedAlbum::query_by_title_hash().is_in(wanted).page_size(5), descending);
        let (mut read, mut cursor, mut requests) = (Vec::new(), None::<String>, Vec::new());
        loop {
            let page = db.page(&query, cursor.as_deref()).await.expect("page");
            requests.push(page.stats.requests);
            read.extend(page.items.iter().map(|album| (album.title.clone(), album.artist.clone())));
            match page.cursor {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        let mut want: Vec<(String, String)> = albums
            .iter()
            .filter(|album| wanted.contains(&album.title.as_str()))
            .map(|album| (album.title.clone(), album.artist.clone()))
            .collect();
        want.sort();
        if descending {
            want.reverse();
        }
        let read_titles: Vec<&String> = read.iter().map(|(title, _)| title).collect();
        let want_titles: Vec<&String> = want.iter().map(|(title, _)| title).collect();
        assert_eq!(read_titles, want_titles, "descending {descending}");
        assert_eq!(read.iter().collect::<BTreeSet<_>>(), want.iter().collect::<BTreeSet<_>>());
        assert!(requests.iter().all(|&count| count <= 3), "at most a request a value: {requests:?}");
        assert_eq!(db.count(&query).await.expect("count"), 12);
    }
    let none = ShardedAlbum::query_by_title_hash().is_in(Vec::<&str>::new());
    assert!(matches!(db.page(&none, None).await, Err(Error::InvalidQuery { .. })));
}

#[tokio::test]
async fn a_merge_of_keys_with_ranges_of_their_own_pages_both_ways() {
    let db = db().await;
    let run = unique("merge-ranges");
    let written = posts(&run, 6, 30);
    db.batch_put(&written).await.expect("put posts");
    let keys = authors(&run, 6);
    // Each author's posts within a window of its own: some before, some after one another.
    let window = |a: usize| (a as u32 * 5, a as u32 * 5 + 14);
    for descending in [false, true] {
        let query = Query::merge(keys.iter().enumerate().map(|(a, author)| {
            let (from, to) = window(a);
            directed(Post::query(author.as_str()).between(from, to), descending)
        }))
        .page_size(4);
        let within: Vec<Post> = written
            .iter()
            .filter(|post| {
                let a: usize = post.author.rsplit("-a").next().and_then(|n| n.parse().ok()).unwrap_or(0);
                let (from, to) = window(a);
                (from..=to).contains(&post.at)
            })
            .cloned()
            .collect();
        let want = expected(&within, descending);
        let (read, _) = pages(&db, &query).await;
        let read: Vec<_> = read.iter().map(identity).collect();
        assert_eq!(sort_keys(&read), sort_keys(&want), "descending {descending}");
        assert_eq!(read.iter().collect::<BTreeSet<_>>(), want.iter().collect::<BTreeSet<_>>());
        assert_eq!(db.count(&query).await.expect("count"), want.len() as u64);
        // Back from the last page holding items to the first, through `previous`.
        let mut page = db.page(&query, None).await.expect("first");
        while let Some(next) = page.cursor.clone() {
            let after = db.page(&query, Some(&next)).await.expect("next");
            if after.items.is_empty() {
                break;
            }
            page = after;
        }
        let mut back: Vec<(String, u32, u32)> = page.items.iter().map(identity).collect();
        while let Some(previous) = page.previous.clone() {
            page = db.page(&query, Some(&previous)).await.expect("previous");
            let mut earlier: Vec<_> = page.items.iter().map(identity).collect();
            earlier.extend(back);
            back = earlier;
        }
        assert_eq!(sort_keys(&back), sort_keys(&want));
    }
    // Two ranges of one key that share a key are refused: an item would be read twice.
    let overlapping = Query::merge([
        Post::query(keys[0].as_str()).between(0, 10),
        Post::query(keys[0].as_str()).between(5, 20),
    ]);
    let error = db.page(&overlapping, None).await.expect_err("overlapping ranges");
    assert!(error.to_string().contains("overlapping"), "{error}");
}
