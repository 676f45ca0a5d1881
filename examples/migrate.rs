//! Migrations: a live design changed while a writer goes on. Users stored before an email index
//! existed get their `ByEmail` keys (a mapping added to items that exist), then their listing by
//! team moves from 4 hash shards to 8 (a resharding), each in the same steps: start, backfill,
//! verify, cut over, finish.
//!
//! ```text
//! cargo run --example migrate
//! ```

use dynashard::reshard::{Backfill, Layout, Migration, Verify};
use dynashard::{Db, Entity, Error, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

#[derive(Table)]
#[table(name = "Teams", pk = "pk", sk = "sk", shard_metadata = "TeamsMetadata", stream = "new_image")]
#[gsi(ByTeam(pk = "team_pk", sk = "team_sk"))]
#[gsi(ByTeamNext(pk = "next_pk", sk = "next_sk"))] // spare: the resharded layout goes here
#[gsi(ByEmail(pk = "email_pk", sk = "email_sk"))]
struct Teams;

/// The users as first deployed: listed by team, not yet found by email.
#[derive(Entity, Serialize, Deserialize, Debug, Clone)]
#[entity(table = Teams, name = "User", pk = "user#{id}", sk = "profile")]
#[gsi(ByTeam(pk = "team#{team}", sk = "{id}"))]
#[shard(ByTeam(hash = 4, by = id))]
struct UserBefore {
    id: u64,
    team: String,
    email: String,
}

/// The users now: found by email too, a mapping added to items that exist.
#[derive(Entity, Serialize, Deserialize, Debug, Clone)]
#[entity(table = Teams, name = "User", pk = "user#{id}", sk = "profile")]
#[gsi(ByTeam(pk = "team#{team}", sk = "{id}"))]
#[shard(ByTeam(hash = 4, by = id))]
#[gsi(ByEmail(pk = "email#{email}", sk = "user", added))]
struct User {
    id: u64,
    team: String,
    email: String,
}

const USERS: u64 = 400;

fn user(id: u64) -> User {
    User { id, team: format!("team-{}", id % 4), email: format!("user{id}@example.com") }
}

/// Start, backfill, verify, cut over and finish `migration`, printing each step.
async fn migrate(db: &Db, migration: Migration<Teams>) -> dynashard::Result<()> {
    let index = migration.index();
    println!("{:?} of {}", migration.kind(), index.name());
    db.start_migration::<User>(migration).await?;
    let state = db.backfill::<User>(index, Backfill::default().segments(4)).await?;
    let (scanned, written) = state.backfill_totals();
    println!("  backfilled: {scanned} items read, {written} written");
    let found = db.verify_resharding::<User>(index, Verify::default().repair()).await?;
    println!(
        "  verified: {} missing, {} misplaced, {} extra",
        found.missing.len(),
        found.misplaced.len(),
        found.extra.len()
    );
    db.cut_over::<User>(index).await?;
    let done = db.finish_resharding::<User>(index, Backfill::default()).await?;
    println!("  {:?}", done.phase);
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let connection = dynashard_local::connect().await?;
    let db = connection.db();
    db.create_table::<Teams>().await?; // with its stream and its shard metadata table
    let before: Vec<UserBefore> = (0..USERS)
        .map(|id| {
            let User { id, team, email } = user(id);
            UserBefore { id, team, email }
        })
        .collect();
    db.batch_put(&before).await?;
    println!("{USERS} users stored before the email index existed");
    let early = db.stream(User::query_by_email("user7@example.com")).try_collect::<Vec<User>>().await;
    assert!(matches!(early, Err(Error::MappingIncomplete { .. })));
    println!("a query by email before the migration: refused (MappingIncomplete)");

    // A writer of the new declaration goes on throughout.
    let (stop, next) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicU64::new(USERS)));
    let writer = {
        let (db, stop, next) = (db.clone(), stop.clone(), next.clone());
        tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                db.put(&user(next.fetch_add(1, Ordering::Relaxed))).await?;
            }
            Ok::<(), Error>(())
        })
    };
    migrate(&db, Migration::add_mapping(Teams::BY_EMAIL)).await?;
    let found: Vec<User> = db.stream(User::query_by_email("user7@example.com")).try_collect().await?;
    println!("by email after the migration: {found:?}");
    migrate(&db, Migration::reshard(Teams::BY_TEAM, Teams::BY_TEAM_NEXT, Layout::hash(8))).await?;
    stop.store(true, Ordering::Relaxed);
    writer.await??;

    // Every user, old and new, is listed once by team, in order, from the new layout.
    let team: Vec<User> = db.stream(User::query_by_team("team-1")).try_collect().await?;
    let expected = (0..next.load(Ordering::Relaxed)).filter(|id| id % 4 == 1).count();
    assert_eq!(team.len(), expected);
    assert!(team.windows(2).all(|pair| pair[0].id < pair[1].id));
    println!("team-1 lists {} users in order, every one written", team.len());
    Ok(())
}
