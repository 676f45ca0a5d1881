//! Two consumer processes share one change feed whose handler applies each page to a table of
//! views under the page's fence; the one that holds the shard is killed (SIGKILL) in the middle
//! of a page. The other takes the lease over once it expires, resumes at the last checkpoint,
//! and every item's view ends at its last version, written by the survivor: nothing skipped.
//! (What a holder that is not dead but frozen writes late is the fence's part, tested in the
//! `dynamodb` suite's `change_feed_holders`.)
//!
//! This binary re-executes itself as the consumers (selected by an environment variable). Runs
//! without the libtest harness, so it prints its own summary line.

use dynashard::changes::{Change, ChangePage};
use dynashard::metadata::ShardMetadata;
use dynashard::{Db, Entity, Error, Table};
use serde::{Deserialize, Serialize};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const CONSUMER_MODE: &str = "DYNASHARD_FEED_CONSUMER";
const LEASE: Duration = Duration::from_secs(1);
const ITEMS: u32 = 20;
const VERSIONS: u32 = 30;

#[derive(Table)]
#[table(
    name = "FeedKillTests",
    pk = "pk",
    sk = "sk",
    shard_metadata = "FeedKillMetadata",
    stream = "new_image"
)]
struct Ledger;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[entity(table = Ledger, pk = "item#{item}", sk = "revision")]
struct Revision {
    item: u32,
    version: u32,
}

#[derive(Table)]
#[table(name = "FeedKillViews", pk = "pk", sk = "sk")]
struct Views;

#[derive(Entity, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[entity(table = Views, pk = "view#{item}", sk = "view")]
struct View {
    item: u32,
    version: u32,
    fence: u64,
    by: String,
}

fn db(endpoint: &str, run: &str) -> Db {
    Db::new(dynashard::client_for_endpoint(endpoint))
        .with_streams_client(dynashard::client::streams_client_for_endpoint(endpoint))
        .with_table_name::<Ledger>(&format!("FeedKillTests-{run}"))
        .expect("a valid table name")
        .with_table_name::<Views>(&format!("FeedKillViews-{run}"))
        .expect("a valid table name")
        .with_shard_metadata(ShardMetadata::new("FeedKillMetadata"))
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    if let Ok(setting) = std::env::var(CONSUMER_MODE) {
        let mut parts = setting.splitn(3, ' ');
        let (Some(endpoint), Some(run), Some(name)) = (parts.next(), parts.next(), parts.next()) else {
            eprintln!("bad consumer setting {setting:?}");
            std::process::exit(2);
        };
        match runtime.block_on(consume(&db(endpoint, run), run, name)) {
            Ok(()) => std::process::exit(0),
            Err(error) => {
                eprintln!("consumer {name}: {error}");
                std::process::exit(1);
            }
        }
    }
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let name = "a_consumer_killed_mid_page_is_taken_over_and_every_item_ends_at_its_last_version";
    if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
        println!("\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 1 filtered out\n");
        return;
    }
    let outcome = std::panic::catch_unwind(|| runtime.block_on(killed_consumer_is_taken_over()));
    let status = if outcome.is_ok() { "ok" } else { "FAILED" };
    println!("test {name} ... {status}");
    let (passed, failed) = if outcome.is_ok() { (1, 0) } else { (0, 1) };
    println!(
        "\ntest result: {status}. {passed} passed; {failed} failed; 0 ignored; 0 measured; 0 filtered out\n"
    );
    if failed > 0 {
        std::process::exit(101);
    }
}

/// A consumer: reads the feed until every item's view is at its last version, applying each
/// record slowly (so that a kill lands inside a page).
async fn consume(db: &Db, run: &str, name: &str) -> dynashard::Result<()> {
    let feed = db.change_feed::<Ledger>(format!("views-{run}"))?.lease(LEASE).page_size(25).worker(name);
    loop {
        feed.catch_up(|page| apply(db, page, name)).await?;
        if done(db).await? {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn apply(db: &Db, page: ChangePage, name: &str) -> dynashard::Result<()> {
    for record in &page.records {
        let Change::Item(change) = record.decode::<Revision>()? else { continue };
        let Some(revision) = change.new else { continue };
        let view = View {
            item: revision.item,
            version: revision.version,
            fence: page.lease.fence(),
            by: name.into(),
        };
        match db.put(&view).condition(page.lease.fenced(View::fields().fence)).await {
            Ok(()) | Err(Error::ConditionFailed { .. }) => {}
            Err(other) => return Err(other),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

/// Every item's view, by item.
async fn views(db: &Db) -> dynashard::Result<Vec<Option<View>>> {
    let mut views = Vec::new();
    for item in 0..ITEMS {
        views.push(db.get(View::key(item)?).consistent().await?);
    }
    Ok(views)
}

async fn done(db: &Db) -> dynashard::Result<bool> {
    Ok(views(db).await?.iter().all(|view| view.as_ref().is_some_and(|view| view.version == VERSIONS)))
}

fn spawn_consumer(endpoint: &str, run: &str, name: &str) -> Child {
    Command::new(std::env::current_exe().expect("this test binary"))
        .env(CONSUMER_MODE, format!("{endpoint} {run} {name}"))
        .stdout(Stdio::null())
        .spawn()
        .expect("consumer starts")
}

async fn killed_consumer_is_taken_over() {
    let endpoint = dynashard_local::shared_endpoint().await.expect("a DynamoDB");
    let run = std::process::id().to_string();
    let db = db(&endpoint, &run);
    db.create_table::<Ledger>().await.expect("table");
    db.create_table::<Views>().await.expect("views");
    db.create_shard_metadata_table().await.expect("metadata table");
    db.change_feed::<Ledger>(format!("views-{run}")).expect("feed").begin().await.expect("begin");
    for version in 1..=VERSIONS {
        for item in 0..ITEMS {
            db.put(&Revision { item, version }).await.expect("put");
        }
    }
    let began = Instant::now();
    let names = ["c0", "c1"];
    let mut consumers: Vec<Child> = names.iter().map(|name| spawn_consumer(&endpoint, &run, name)).collect();
    // Kill the consumer that wrote the first view, once it wrote a few: it holds the shard and
    // is in the middle of a page (each takes half a second).
    let victim = loop {
        let written: Vec<View> = views(&db).await.expect("views").into_iter().flatten().collect();
        if written.len() >= 5 {
            break written[0].by.clone();
        }
        assert!(began.elapsed() < Duration::from_secs(120), "no consumer applied a page");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let index = names.iter().position(|name| *name == victim).expect("a consumer's name");
    consumers[index].kill().expect("SIGKILL");
    let killed = Instant::now();
    consumers[index].wait().expect("reaped");
    let at_kill: Vec<u32> = views(&db)
        .await
        .expect("views")
        .iter()
        .map(|view| view.as_ref().map_or(0, |view| view.version))
        .collect();
    assert!(at_kill.iter().any(|version| *version < VERSIONS), "killed before it applied everything");

    let survivor = &mut consumers[1 - index];
    let status = survivor.wait().expect("the survivor ends");
    assert!(status.success(), "the survivor: {status}");
    let finished = killed.elapsed();
    assert!(finished >= LEASE, "not before the lease expired: {finished:?}");
    let views = views(&db).await.expect("views");
    for (item, view) in views.iter().enumerate() {
        let view = view.as_ref().expect("a view");
        assert_eq!(view.version, VERSIONS, "item {item}: {view:?}");
        assert_ne!(view.by, victim, "item {item} last written by the killed consumer: {view:?}");
    }
    println!(
        "feed_kill: items={ITEMS} versions={VERSIONS} lease_ms={} killed={victim} views_at_kill={} finished_ms={}",
        LEASE.as_millis(),
        at_kill.iter().filter(|version| **version > 0).count(),
        finished.as_millis()
    );
}
