//! A step of a resharding run as one short invocation (an AWS Lambda function's): the task a
//! state machine sends ([`ReshardTask`]), and what the invocation answers ([`TaskOutcome`]),
//! whether the step is done or the next invocation goes on where this one stopped.
//!
//! Each step is safe to run any number of times, by any number of invocations at once, and to
//! stop anywhere: the scans are shared out by leases and resume from recorded positions, the
//! verification resumes from its records, and the cut-over is recorded once.

use super::{Backfill, Phase, Verify};
use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::index::Index;
use crate::item::table_of;
use serde::{Deserialize, Serialize};
use std::future::Future;
use std::pin::Pin;
use std::time::SystemTime;

/// The steps of a resharding after its start, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReshardStep {
    /// [`Db::backfill`], by any number of workers.
    Backfill,
    /// [`Db::verify_resharding`] with repair, by one worker at a time.
    Verify,
    /// [`Db::cut_over`].
    CutOver,
    /// [`Db::finish_resharding`], by any number of workers.
    Finish,
}

/// One invocation's task: a step of the resharding of `entity`'s index `index`, by worker
/// `worker` (a name in the scan's leases). The JSON a state machine sends:
/// `{"entity": "Album", "index": "ByTitle", "step": "backfill", "worker": 3}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReshardTask {
    /// The entity type's name (`Entity::TYPE_NAME`).
    pub entity: String,
    /// The source index's name.
    pub index: String,
    /// The step.
    pub step: ReshardStep,
    /// The worker's number among those the state machine runs at once.
    #[serde(default)]
    pub worker: u32,
}

/// What an invocation answers: whether its step is done (else the next invocation of the same
/// task goes on with it), the resharding's phase, and the task's worker, for the state machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskOutcome {
    /// Whether the step is done.
    pub done: bool,
    /// The resharding's phase now.
    pub phase: Phase,
    /// The task's worker.
    pub worker: u32,
}

impl Db {
    /// Runs `task`, a step of the resharding of `E`'s index, until it is done or `deadline`
    /// comes (say, a minute before the invocation's own: a scan's page under way then still
    /// completes). A step that finds the resharding past it is done. Fails when the task names
    /// another entity type, an index `E`'s table lacks, or when a verification that finished
    /// found what it could not repair.
    ///
    /// ```no_run
    /// # use dynashard::{Db, Entity, Table};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Table)]
    /// # #[table(name = "Music", pk = "pk", sk = "sk", shard_metadata = "Meta", stream = "new_image")]
    /// # #[gsi(ByTitle(pk = "tpk", sk = "tsk"))]
    /// # #[gsi(ByTitleNext(pk = "npk", sk = "nsk"))]
    /// # struct Music;
    /// # #[derive(Entity, Serialize, Deserialize)]
    /// # #[entity(table = Music, pk = "{artist}", sk = "album#{title}")]
    /// # #[gsi(ByTitle(pk = "albums", sk = "{title}"))]
    /// # #[shard(ByTitle(hash = 16, by = title))]
    /// # struct Album { artist: String, title: String }
    /// use dynashard::reshard::{ReshardTask, TaskOutcome};
    /// use std::time::{Duration, SystemTime};
    ///
    /// /// The Lambda function's handler: the payload is the task, the answer its outcome.
    /// async fn handle(db: &Db, task: ReshardTask, deadline: SystemTime) -> dynashard::Result<TaskOutcome> {
    ///     db.run_reshard_task::<Album>(&task, deadline - Duration::from_secs(60)).await
    /// }
    /// ```
    pub fn run_reshard_task<'a, E: Entity>(
        &'a self,
        task: &'a ReshardTask,
        deadline: SystemTime,
    ) -> Pin<Box<dyn Future<Output = Result<TaskOutcome>> + Send + 'a>> {
        // Type-erased: the steps' futures nest deep, and a caller's own future (a Lambda
        // handler's) need not hold their types, which can pass the compiler's depth limit.
        Box::pin(self.reshard_task::<E>(task, deadline))
    }

    async fn reshard_task<E: Entity>(&self, task: &ReshardTask, deadline: SystemTime) -> Result<TaskOutcome> {
        let refuse = |reason: String| Error::Resharding { index: task.index.clone(), reason };
        if task.entity != E::TYPE_NAME {
            return Err(refuse(format!("the task is for `{}`, not `{}`", task.entity, E::TYPE_NAME)));
        }
        let name = table_of::<E>()
            .indexes
            .iter()
            .map(|index| index.name)
            .find(|name| *name == task.index)
            .ok_or_else(|| refuse(format!("`{}`'s table has no index of that name", E::TYPE_NAME)))?;
        let index = Index::<E::Table>::new(name);
        let worker = format!("worker-{}", task.worker);
        let state = || async { self.resharding::<E>(index).await?.ok_or_else(|| super::not_started(name)) };
        let outcome = |done: bool, phase: Phase| TaskOutcome { done, phase, worker: task.worker };
        match task.step {
            ReshardStep::Backfill => {
                let options = Backfill::default().worker(worker).stop_by(deadline);
                let state = self.backfill::<E>(index, options).await?;
                Ok(outcome(state.phase >= Phase::Backfilled, state.phase))
            }
            ReshardStep::Verify => {
                let state = state().await?;
                if state.phase >= Phase::CutOver {
                    return Ok(outcome(true, state.phase));
                }
                let found =
                    self.verify_resharding::<E>(index, Verify::default().repair().stop_by(deadline)).await?;
                if found.finished && !found.is_clean() {
                    let left = found.found() - found.repaired;
                    return Err(refuse(format!("the verification found {left} items it could not repair")));
                }
                Ok(outcome(found.finished, state.phase))
            }
            ReshardStep::CutOver => {
                let current = state().await?;
                if current.phase >= Phase::CutOver {
                    return Ok(outcome(true, current.phase));
                }
                let state = self.cut_over::<E>(index).await?;
                Ok(outcome(true, state.phase))
            }
            ReshardStep::Finish => {
                let options = Backfill::default().worker(worker).stop_by(deadline);
                let state = self.finish_resharding::<E>(index, options).await?;
                Ok(outcome(state.phase == Phase::Done && state.scan_finished(), state.phase))
            }
        }
    }
}
