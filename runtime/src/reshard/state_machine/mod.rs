//! A resharding's steps as an AWS Step Functions state machine (Amazon States Language) whose
//! tasks are invocations of one Lambda function that runs [`Db::run_reshard_task`]: the backfill
//! and the finish's cleanup as Distributed Map states of workers, each invoking the function
//! again until its step is done; the verification as a loop of invocations; the cut-over once.
//!
//! Why a state machine and not a queue or a cron job: Step Functions keeps each step's progress
//! (which worker is done), retries an invocation that failed or timed out, and runs the workers
//! of a scan in parallel, so the function holds no state and any invocation may stop anywhere;
//! the scans' leases and recorded positions make a retried or repeated invocation harmless.
//!
//! [`Db::run_reshard_task`]: crate::Db::run_reshard_task

mod language;

use super::ReshardStep;
use crate::entity::Entity;
use crate::index::Index;
use language::{
    ChoiceRule, ItemSelector, Machine, Outcome, Parameters, Payload, ProcessorConfig, Retry, State, Workers,
};
use std::collections::BTreeMap;

/// The state machine of a resharding run on a Lambda function, for a given entity type and
/// index; [`to_json`](StateMachine::to_json) gives its definition.
///
/// ```
/// # use dynashard::{Entity, Table};
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
/// use dynashard::reshard::StateMachine;
///
/// let function = "arn:aws:lambda:eu-west-1:123456789012:function:reshard";
/// let definition = StateMachine::resharding::<Album>(Music::BY_TITLE, function).workers(8).to_json();
/// assert!(definition.contains("\"Mode\": \"DISTRIBUTED\""));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateMachine {
    entity: &'static str,
    index: &'static str,
    function: String,
    workers: u32,
}

impl StateMachine {
    /// The steps after the start of `E`'s resharding of `index` (begin it with
    /// [`Db::start_resharding`](crate::Db::start_resharding)), each invoking `function` (a
    /// Lambda function's name or ARN); 4 workers.
    pub fn resharding<E: Entity>(index: Index<E::Table>, function: impl Into<String>) -> Self {
        StateMachine { entity: E::TYPE_NAME, index: index.name(), function: function.into(), workers: 4 }
    }

    /// Runs the backfill and the cleanup on `workers` invocations at once (1 to 1,000).
    pub fn workers(mut self, workers: u32) -> Self {
        self.workers = workers.clamp(1, 1_000);
        self
    }

    /// The definition, as `aws stepfunctions create-state-machine --definition` takes it.
    pub fn to_json(&self) -> String {
        // A tree of strings, numbers and maps always serializes.
        serde_json::to_string_pretty(&self.definition()).unwrap_or_default()
    }

    fn definition(&self) -> Machine {
        let workers: Vec<u32> = (0..self.workers).collect();
        let mut states = BTreeMap::new();
        states.insert(
            "Workers".to_owned(),
            State::Pass { result: Some(Workers { workers }), next: Some("Backfill".to_owned()) },
        );
        states.insert("Backfill".to_owned(), self.scan(ReshardStep::Backfill, "Verify"));
        states.extend(self.repeated(ReshardStep::Verify, "Verify", "Cut over"));
        states.insert("Cut over".to_owned(), self.task(ReshardStep::CutOver, Worker::Fixed(0), "Finish"));
        states.insert("Finish".to_owned(), self.scan(ReshardStep::Finish, "Done"));
        states.insert("Done".to_owned(), State::Succeed {});
        Machine {
            comment: Some(format!(
                "The resharding of {}'s index {}: backfill, verify, cut over, finish, on Lambda invocations that resume one another",
                self.entity, self.index
            )),
            start_at: "Workers".to_owned(),
            states,
            processor_config: None,
        }
    }

    /// A Distributed Map of the workers, each repeating `step` until it is done.
    fn scan(&self, step: ReshardStep, next: &str) -> State {
        let name = format!("{} worker", title(step));
        let states = self
            .repeated(step, &name, "Worker done")
            .into_iter()
            .chain([("Worker done".to_owned(), State::Succeed {})]);
        State::Map {
            items_path: "$.workers".to_owned(),
            max_concurrency: self.workers,
            item_selector: ItemSelector { worker: "$$.Map.Item.Value".to_owned() },
            item_processor: Box::new(Machine {
                comment: None,
                start_at: name,
                states: states.collect(),
                processor_config: Some(ProcessorConfig { mode: "DISTRIBUTED", execution_type: "STANDARD" }),
            }),
            result_path: None,
            next: next.to_owned(),
        }
    }

    /// The states that invoke `step` under the name `name` until it answers done, then go to
    /// `next`.
    fn repeated(&self, step: ReshardStep, name: &str, next: &str) -> Vec<(String, State)> {
        let check = format!("{name}: done?");
        let worker = match step {
            ReshardStep::Backfill | ReshardStep::Finish => Worker::FromInput,
            ReshardStep::Verify | ReshardStep::CutOver => Worker::Fixed(0),
        };
        let rule =
            ChoiceRule { variable: "$.outcome.done".to_owned(), boolean_equals: true, next: next.to_owned() };
        vec![
            (name.to_owned(), self.task(step, worker, &check)),
            (check, State::Choice { choices: vec![rule], default: name.to_owned() }),
        ]
    }

    /// An invocation of the function with the task of `step`.
    fn task(&self, step: ReshardStep, worker: Worker, next: &str) -> State {
        let (worker, worker_path) = match worker {
            Worker::Fixed(worker) => (Some(worker), None),
            Worker::FromInput => (None, Some("$.worker".to_owned())),
        };
        State::Task {
            resource: "arn:aws:states:::lambda:invoke".to_owned(),
            parameters: Parameters {
                function_name: self.function.clone(),
                payload: Payload {
                    entity: self.entity.to_owned(),
                    index: self.index.to_owned(),
                    step,
                    worker,
                    worker_path,
                },
            },
            result_selector: Outcome {
                done: "$.Payload.done".to_owned(),
                phase: "$.Payload.phase".to_owned(),
            },
            result_path: "$.outcome".to_owned(),
            retry: vec![Retry {
                error_equals: vec![
                    "Lambda.ServiceException".to_owned(),
                    "Lambda.AWSLambdaException".to_owned(),
                    "Lambda.SdkClientException".to_owned(),
                    "Lambda.TooManyRequestsException".to_owned(),
                    "States.Timeout".to_owned(),
                ],
                interval_seconds: 2,
                max_attempts: 10,
                backoff_rate: 2.0,
            }],
            next: next.to_owned(),
        }
    }
}

/// A step's name in the definition.
fn title(step: ReshardStep) -> &'static str {
    match step {
        ReshardStep::Backfill => "Backfill",
        ReshardStep::Verify => "Verify",
        ReshardStep::CutOver => "Cut over",
        ReshardStep::Finish => "Finish",
    }
}

/// Which worker a task names.
enum Worker {
    Fixed(u32),
    /// The Map item's (`$.worker`).
    FromInput,
}

#[cfg(test)]
mod tests;
