//! Reads over many partition keys, against the least any design could read.
//!
//! A social timeline: 500 accounts with a skewed number of posts (account `i` writes about
//! `2,000 / (i + 1)`: a few write thousands, most a handful), posts of 200 B to 4 KB, newest
//! first, with timestamps that collide across accounts. A merged query
//! ([`Query::merge`](dynashard::Query::merge)) over all 500 accounts pages 20 posts at a time.
//!
//! - Read units of each of the first five pages against its floor: for every account, its posts
//!   in the page and the one after them (until then nothing says its next post falls after the
//!   page), at their own sizes, rounded up to 4 KB, at least one unit an account (a key with
//!   nothing in the page still costs a request). Target: the first page at most 1.3x.
//! - Requests of the first page and of the later ones (fewest..most): a later page asks the
//!   keys its horizon names, or every key when it gets past the horizon.
//! - An IN list of three topics over an index of 21 hash shards by topic: requests of a page
//!   (target: at most 3).
//! - A previous page against a next page from the same position (pages 2 to 5), in requests:
//!   DynamoDB Local charges nothing for a query that returns nothing, and most keys hold
//!   nothing before a page.
//! - Time of a first page against a hand-written fan-out (a query of 20 to each account, 32 at a
//!   time, sorted together), the pattern a team writes without a merge; and their read units.
//! - A time window of minute buckets with a bucket directory, against an unsharded index and the
//!   layout's floor ([`buckets`]).
//! - Hash and range pages on skewed and unique titles at three item sizes, against their floors
//!   ([`skewed`]).
//!
//! The last line sums it up for scripts: `feeds: ...`.
//!
//! ```text
//! cargo bench --bench feeds
//! ```

mod buckets;
mod skewed;

#[path = "../support/ratio.rs"]
mod ratio;

#[path = "../support/machine.rs"]
#[allow(dead_code)] // the delaying proxy is not used here
mod machine;

use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};
use aws_sdk_dynamodb::Client;
use dynashard::item::item_size;
use dynashard::query::StatsSnapshot;
use dynashard::{Db, Entity, Page, Query, Table};
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

const ACCOUNTS: usize = 500;
const PAGE: usize = 20;
const PAGES: usize = 5;
const FAN_OUT: usize = 32;
/// Pages read in a row to see what later pages ask once the first page's bands run out.
const LONG_RUN: usize = 60;

#[derive(Table)]
#[table(name = "FeedsBench", pk = "pk", sk = "sk")]
#[gsi(ByTopic(pk = "topic_pk", sk = "topic_sk"))]
#[gsi(Windowed(pk = "win_pk", sk = "win_sk"))]
#[gsi(Flat(pk = "flat_pk", sk = "flat_sk"))]
#[gsi(Hashed(pk = "hashed_pk", sk = "hashed_sk"))]
#[gsi(Ranged(pk = "ranged_pk", sk = "ranged_sk"))]
struct Social;

/// A post, and its topic in an index of 21 hash shards by topic.
#[derive(Entity, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[entity(table = Social, pk = "account#{account}", sk = "post#{at}#{id}")]
#[gsi(ByTopic(pk = "topics", sk = "{topic}#{at}#{account}#{id}"))]
#[shard(ByTopic(hash = 21, by = topic))]
struct Post {
    account: String,
    at: u64,
    id: u32,
    topic: String,
    body: String,
}

/// The posts: account `i` writes about `2,000 / (i + 1)` of them, at times within a day that
/// collide across accounts, each of 200 B to 4 KB.
fn posts() -> Vec<Post> {
    let mut random = 2005u64;
    let mut next = move |bound: u64| {
        random = random.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (random >> 33) % bound
    };
    let mut posts = Vec::new();
    for account in 0..ACCOUNTS {
        let count = (2_000 / (account + 1)).max(1);
        for id in 0..count {
            let at = 1_700_000_000 + next(86_400);
            let size = 150 + next(3_900) as usize;
            let topic = format!("topic{:03}", next(200));
            posts.push(Post { account: name(account), at, id: id as u32, topic, body: "x".repeat(size) });
        }
    }
    posts
}

fn name(account: usize) -> String {
    format!("acct{account:04}")
}

/// A post's size as DynamoDB counts it.
fn stored_bytes(post: &Post) -> u64 {
    item_size(&dynashard::item::to_item(post).expect("a post maps to an item")) as u64
}

/// The timeline: every account's posts, newest first.
fn timeline(accounts: &[String]) -> Query<Post> {
    Query::merge(accounts.iter().map(|account| Post::query(account.as_str()).descending())).page_size(PAGE)
}

/// The first `count` pages of `query`.
async fn read_pages(db: &Db, query: &Query<Post>, count: usize) -> Vec<Page<Post>> {
    let (mut cursor, mut pages) = (None::<String>, Vec::new());
    for _ in 0..count {
        let page = db.page(query, cursor.as_deref()).await.expect("a page");
        assert_eq!(page.items.len(), PAGE);
        cursor = Some(page.cursor.clone().expect("more pages"));
        pages.push(page);
    }
    pages
}

/// The eventually consistent read units a page reads at the least: for every account, its
/// posts in the page and its next one after them, rounded up to 4 KB, at least a unit each.
fn floor_units(
    page: &[Post],
    after: &BTreeMap<(String, u64, u32), u64>,
    by_account: &BTreeMap<String, Vec<&Post>>,
) -> f64 {
    let mut bytes: BTreeMap<&str, u64> = by_account.keys().map(|account| (account.as_str(), 0)).collect();
    let mut last: BTreeMap<&str, (u64, u32)> = BTreeMap::new();
    for post in page {
        *bytes.entry(post.account.as_str()).or_default() += stored_bytes(post);
        last.insert(post.account.as_str(), (post.at, post.id));
    }
    let mut units = 0;
    for (account, posts) in by_account {
        // The account's next post after the page (or its first, when the page has none of it).
        let next = match last.get(account.as_str()) {
            Some(&(at, id)) => after.get(&(account.clone(), at, id)).copied().unwrap_or(0),
            None => posts
                .iter()
                .find(|post| page.last().is_none_or(|end| (post.at, post.id) < (end.at, end.id)))
                .map_or(0, |post| stored_bytes(post)),
        };
        let total = bytes[account.as_str()] + next;
        units += total.div_ceil(4_096).max(1);
    }
    units as f64 / 2.0
}

/// The first page by hand: 20 posts of every account, 32 queries at a time, sorted together.
async fn fan_out(client: &Client, table: &str, accounts: &[String]) -> (Vec<Post>, f64) {
    let reads = futures::stream::iter(accounts.iter().map(|account| {
        client
            .query()
            .table_name(table)
            .key_condition_expression("#pk = :pk")
            .expression_attribute_names("#pk", "pk")
            .expression_attribute_values(":pk", AttributeValue::S(format!("account#{account}")))
            .scan_index_forward(false)
            .limit(PAGE as i32)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .send()
    }))
    .buffer_unordered(FAN_OUT)
    .collect::<Vec<_>>()
    .await;
    let (mut posts, mut units) = (Vec::new(), 0.0);
    for output in reads {
        let output = output.expect("an account's posts");
        units += output.consumed_capacity.and_then(|consumed| consumed.capacity_units).unwrap_or(0.0);
        for item in output.items.unwrap_or_default() {
            posts.push(serde_dynamo::from_item::<_, Post>(item).expect("decodes"));
        }
    }
    posts.sort_by_key(|post| std::cmp::Reverse((post.at, post.id)));
    posts.truncate(PAGE);
    (posts, units)
}

fn max(values: &[f64]) -> f64 {
    values.iter().copied().fold(0.0, f64::max)
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    let connection = runtime
        .block_on(dynashard_local::connect_to(
            dynashard_local::Backend::from_env_or(dynashard_local::Backend::Local).expect("a backend"),
        ))
        .expect("DynamoDB Local");
    let table_name = format!("FeedsBench-{}", std::process::id());
    let db = Db::new(connection.client().clone())
        .with_table_name::<Social>(table_name)
        .expect("a valid table name");
    let (client, table) = (db.client().clone(), db.table_name::<Social>().to_owned());
    let posts = posts();
    runtime.block_on(async {
        db.create_table::<Social>().await.expect("table");
        db.batch_put(&posts).await.expect("import");
    });
    let mean = posts.iter().map(stored_bytes).sum::<u64>() / posts.len() as u64;
    println!("{} posts of {ACCOUNTS} accounts (mean {mean} bytes), pages of {PAGE}", posts.len());

    // Each account's posts newest first, and the size of the post after each.
    let mut by_account: BTreeMap<String, Vec<&Post>> = BTreeMap::new();
    for post in &posts {
        by_account.entry(post.account.clone()).or_default().push(post);
    }
    let mut after = BTreeMap::new();
    for account_posts in by_account.values_mut() {
        account_posts.sort_by_key(|post| std::cmp::Reverse((post.at, post.id)));
        for pair in account_posts.windows(2) {
            after.insert((pair[0].account.clone(), pair[0].at, pair[0].id), stored_bytes(pair[1]));
        }
    }

    let accounts: Vec<String> = (0..ACCOUNTS).map(name).collect();
    let query = timeline(&accounts);
    let pages = runtime.block_on(read_pages(&db, &query, PAGES));
    let mut want: Vec<&Post> = posts.iter().collect();
    want.sort_by_key(|post| std::cmp::Reverse((post.at, post.id)));
    let read: Vec<(u64, u32)> =
        pages.iter().flat_map(|page| page.items.iter().map(|post| (post.at, post.id))).collect();
    let expected: Vec<(u64, u32)> = want.iter().take(PAGE * PAGES).map(|post| (post.at, post.id)).collect();
    assert_eq!(read, expected, "the merged pages are the newest posts in order");

    let stats: Vec<&StatsSnapshot> = pages.iter().map(|page| &page.stats).collect();
    let floors: Vec<f64> = pages.iter().map(|page| floor_units(&page.items, &after, &by_account)).collect();
    let ratios: Vec<f64> =
        stats.iter().zip(&floors).map(|(stats, floor)| stats.capacity_units / floor).collect();
    println!("page | requests | items read | units | floor | ratio");
    for (page, ((stats, floor), ratio)) in stats.iter().zip(&floors).zip(&ratios).enumerate() {
        println!(
            "{:>4} | {:>8} | {:>10} | {:>5.1} | {floor:>5.1} | {ratio:.2}x",
            page + 1,
            stats.requests,
            stats.items_read,
            stats.capacity_units
        );
    }
    let later: Vec<usize> = stats[1..].iter().map(|stats| stats.requests).collect();
    let later_requests =
        format!("{}..{}", later.iter().min().unwrap_or(&0), later.iter().max().unwrap_or(&0));

    // Pages 2 to 60 in a row: what a later page asks, on average and at most.
    let long = runtime.block_on(read_pages(&db, &query, LONG_RUN));
    let long_read: Vec<(u64, u32)> =
        long.iter().flat_map(|page| page.items.iter().map(|post| (post.at, post.id))).collect();
    let long_want: Vec<(u64, u32)> =
        want.iter().take(PAGE * LONG_RUN).map(|post| (post.at, post.id)).collect();
    assert_eq!(long_read, long_want, "{LONG_RUN} pages in a row are the newest posts in order");
    let long_requests: Vec<usize> = long[1..].iter().map(|page| page.stats.requests).collect();
    let long_mean = long_requests.iter().sum::<usize>() as f64 / long_requests.len() as f64;
    let long_max = long_requests.iter().max().copied().unwrap_or(0);
    let over_100 = long_requests.iter().filter(|&&requests| requests > 100).count();
    println!(
        "pages 2 to {LONG_RUN}: {long_mean:.1} requests a page on average, at most {long_max}; \
         {over_100} pages asked more than 100 accounts"
    );

    // Previous pages: from each of pages 2 to 5, the page before it read backwards, against the
    // page after it read forwards (the same position, the other way).
    let mut back_ratios: Vec<String> = Vec::new();
    for (at, page) in pages.iter().enumerate().skip(1) {
        let previous = page.previous.as_deref().expect("a previous page");
        let back = runtime.block_on(db.page(&query, Some(previous))).expect("a previous page");
        assert_eq!(back.items, pages[at - 1].items, "the page before, read backwards");
        let next = runtime.block_on(db.page(&query, page.cursor.as_deref())).expect("a next page");
        println!(
            "from page {}: previous page {} requests {:.1} units, next page {} requests {:.1} units",
            at + 1,
            back.stats.requests,
            back.stats.capacity_units,
            next.stats.requests,
            next.stats.capacity_units
        );
        back_ratios.push(format!("{:.2}", back.stats.requests as f64 / next.stats.requests as f64));
    }
    // Requests, not units: DynamoDB Local charges nothing for a query that returns nothing,
    // where DynamoDB charges half a unit, and most keys hold nothing before a page.
    let back_ratio = back_ratios.join(",");

    // Three topics of 200, through 21 hash shards by topic: only the shards they hash to.
    let topics = ["topic007", "topic042", "topic150"];
    let in_list = Post::query_by_topic().is_in(topics).page_size(PAGE);
    let in_page = runtime.block_on(db.page(&in_list, None)).expect("a page of three topics");
    let mut want_topics: Vec<&Post> =
        posts.iter().filter(|post| topics.contains(&post.topic.as_str())).collect();
    want_topics.sort_by_key(|post| (post.topic.clone(), post.at, post.account.clone(), post.id));
    let got: Vec<(u64, u32)> = in_page.items.iter().map(|post| (post.at, post.id)).collect();
    let want: Vec<(u64, u32)> = want_topics.iter().take(PAGE).map(|post| (post.at, post.id)).collect();
    assert_eq!(got, want, "the three topics' first posts in order");
    let in_list_requests = in_page.stats.requests;
    println!("a page of {PAGE} of three topics over 21 hash shards: {in_list_requests} requests");

    let bucket = runtime.block_on(buckets::measure(&db, PAGE, PAGES));
    let skew = runtime.block_on(skewed::measure(&db));

    let (by_hand, hand_units) = runtime.block_on(fan_out(&client, &table, &accounts));
    let by_hand: Vec<(u64, u32)> = by_hand.iter().map(|post| (post.at, post.id)).collect();
    assert_eq!(by_hand, expected[..PAGE].to_vec(), "the fan-out's page is the merge's");
    println!(
        "first page by a hand-written fan-out: {hand_units:.1} units ({:.2}x the merged page's)",
        hand_units / stats[0].capacity_units
    );
    let watch = machine::Watch::start();
    let time = ratio::compare(
        7,
        1,
        || runtime.block_on(db.page(&query, None)).expect("a page"),
        || runtime.block_on(fan_out(&client, &table, &accounts)),
    );
    ratio::report("first page over 500 keys, merge vs hand-written fan-out and sort", &time, 1.0);
    watch.report();

    println!(
        "feeds: keys={ACCOUNTS} first_page_requests={} first_page_units_vs_floor={:.2} later_page_requests={later_requests} \
         pages_2_to_{LONG_RUN}_requests_mean={long_mean:.1} pages_2_to_{LONG_RUN}_requests_max={long_max} \
         pages_1_to_{PAGES}_units_vs_floor<={:.2} prev_page_requests_vs_next={back_ratio} in_list_requests={in_list_requests} \
         bucket_page_requests<={} bucket_page_requests_beyond_partitions<={} bucket_page_units_vs_unsharded<={:.2} \
         bucket_page_units_vs_floor<={:.2} skewed_merged_page_units_vs_floor<={:.2} range_page_units_vs_floor<={:.2} \
         range_page_requests_beyond_shards<={} fan_out_units_vs_merge={:.2} first_page_time_vs_fan_out={:.2}",
        stats[0].requests,
        ratios[0],
        max(&ratios),
        bucket.requests,
        bucket.requests_beyond_partitions,
        bucket.units_vs_unsharded,
        bucket.units_vs_floor,
        skew.hash_vs_floor,
        skew.range_vs_floor,
        skew.range_requests_beyond,
        hand_units / stats[0].capacity_units,
        time.value(),
    );
    runtime.block_on(db.delete_table::<Social>()).expect("delete table");
    drop(connection);
}
