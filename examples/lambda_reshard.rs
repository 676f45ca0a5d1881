//! A resharding run by AWS Step Functions on a Lambda function: the albums' title index moves
//! from 4 hash shards to 16 while the steps run as invocations that stop at a deadline and
//! resume one another.
//!
//! - Deployed (`AWS_LAMBDA_RUNTIME_API` is set), it is the Lambda function: each event is a
//!   `ReshardTask` the state machine sends, and it answers a `TaskOutcome` (done, or not yet).
//! - Run here, it prints the state machine's definition (`StateMachine::to_json`, for `aws
//!   stepfunctions create-state-machine`), then runs the steps of a resharding on the embedded
//!   DynamoDB as the state machine would: three workers for the backfill and the finish, each
//!   invoking the function until it answers done, with invocations cut short by deadlines of
//!   three seconds (longer than the metadata cache time a finish waits first).
//!
//! ```text
//! cargo run --example lambda_reshard
//! ```

use dynashard::reshard::{Layout, ReshardStep, ReshardTask, StateMachine, TaskOutcome};
use dynashard::{Db, Entity, Table};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};
use std::time::{Duration, SystemTime};

/// A Lambda function's error (`lambda_runtime::Error`).
type BoxError = Box<dyn std::error::Error + Send + Sync>;

#[derive(Table)]
#[table(
    name = "LambdaMusic",
    pk = "pk",
    sk = "sk",
    shard_metadata = "LambdaMusicMetadata",
    stream = "new_image"
)]
#[gsi(ByTitle(pk = "title_pk", sk = "title_sk"))]
#[gsi(ByTitleNext(pk = "next_pk", sk = "next_sk"))] // spare: the new layout goes here
struct LambdaMusic;

/// Listed by title over 4 hash shards, until the resharding moves them to 16.
#[derive(Entity, Serialize, Deserialize, Debug)]
#[entity(table = LambdaMusic, pk = "{artist}", sk = "album#{title}")]
#[gsi(ByTitle(pk = "albums", sk = "{title}"))]
#[shard(ByTitle(hash = 4, by = title))]
struct Album {
    artist: String,
    title: String,
}

/// The function: one task, until its step is done or a minute before the invocation's deadline.
async fn handle(db: &Db, task: ReshardTask, deadline: SystemTime) -> Result<TaskOutcome, BoxError> {
    Ok(db.run_reshard_task::<Album>(&task, deadline - Duration::from_secs(60)).await?)
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    if std::env::var_os("AWS_LAMBDA_RUNTIME_API").is_some() {
        let db = Db::new(dynashard::client_from_env().await);
        let db = &db;
        let function =
            lambda_runtime::service_fn(move |event: lambda_runtime::LambdaEvent<ReshardTask>| async move {
                handle(db, event.payload, event.context.deadline()).await
            });
        return lambda_runtime::run(function).await;
    }

    let function = "arn:aws:lambda:eu-west-1:123456789012:function:reshard-albums";
    let workers = 3;
    println!(
        "{}",
        StateMachine::resharding::<Album>(LambdaMusic::BY_TITLE, function).workers(workers).to_json()
    );

    let connection = dynashard_local::connect().await?;
    let db = connection.db();
    db.create_table::<LambdaMusic>().await?; // and its shard metadata table
    let albums: Vec<Album> = (0..2_000)
        .map(|n| Album { artist: format!("artist-{}", n % 50), title: format!("title-{n:05}") })
        .collect();
    db.batch_put(&albums).await?;
    db.start_resharding::<Album>(LambdaMusic::BY_TITLE, LambdaMusic::BY_TITLE_NEXT, Layout::hash(16)).await?;

    // The state machine's steps, in order; a scan's workers at once.
    for step in [ReshardStep::Backfill, ReshardStep::Verify, ReshardStep::CutOver, ReshardStep::Finish] {
        let count = if matches!(step, ReshardStep::Backfill | ReshardStep::Finish) { workers } else { 1 };
        let runs = (0..count).map(|worker| {
            let (db, task) =
                (&db, ReshardTask { entity: "Album".into(), index: "ByTitle".into(), step, worker });
            async move {
                let mut invocations = 0;
                loop {
                    invocations += 1;
                    // Deadlines of three seconds, stood for by the invocation's own deadline a
                    // minute later, as `handle` reckons.
                    let deadline = SystemTime::now() + Duration::from_secs(3) + Duration::from_secs(60);
                    if handle(db, task.clone(), deadline).await?.done {
                        return Ok::<_, BoxError>(invocations);
                    }
                }
            }
        });
        let invocations: u32 = futures::future::try_join_all(runs).await?.into_iter().sum();
        println!("{step:?}: {invocations} invocations");
    }

    let state = db.resharding::<Album>(LambdaMusic::BY_TITLE).await?.ok_or("a resharding")?;
    println!("phase {:?}, cleanup done: {}", state.phase, state.scan_finished());
    let listed: Vec<Album> = db.stream(Album::query_by_title()).try_collect().await?;
    assert_eq!(listed.len(), albums.len(), "every album once, read from the new layout");
    assert!(listed.windows(2).all(|pair| pair[0].title < pair[1].title), "in title order");
    println!("{} albums listed by title from 16 shards", listed.len());
    Ok(())
}
