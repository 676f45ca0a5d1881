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

use super::ReshardStep;
use crate::entity::Entity;
use crate::index::Index;
use serde::Serialize;
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

/// A state machine, or a Map's item processor.
#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
struct Machine {
    #[serde(skip_serializing_if = "Option::is_none")]
    comment: Option<String>,
    start_at: String,
    states: BTreeMap<String, State>,
    #[serde(skip_serializing_if = "Option::is_none")]
    processor_config: Option<ProcessorConfig>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
struct ProcessorConfig {
    mode: &'static str,
    execution_type: &'static str,
}

/// The states used, as the States Language spells them.
#[derive(Debug, Serialize)]
#[serde(tag = "Type", rename_all_fields = "PascalCase")]
enum State {
    Pass {
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<Workers>,
        #[serde(skip_serializing_if = "Option::is_none")]
        next: Option<String>,
    },
    Task {
        resource: String,
        parameters: Parameters,
        /// The function's answer, kept under `$.outcome` beside the state's input (the workers,
        /// or the Map item's worker), which the next states read.
        result_selector: Outcome,
        result_path: String,
        retry: Vec<Retry>,
        next: String,
    },
    Choice {
        choices: Vec<ChoiceRule>,
        default: String,
    },
    Map {
        items_path: String,
        max_concurrency: u32,
        item_selector: ItemSelector,
        item_processor: Box<Machine>,
        /// `null`: the state's output is its input (the workers, for the next scan).
        result_path: Option<String>,
        next: String,
    },
    Succeed {},
}

/// What the state machine keeps of a [`TaskOutcome`](super::TaskOutcome).
#[derive(Debug, Serialize)]
struct Outcome {
    #[serde(rename = "done.$")]
    done: String,
    #[serde(rename = "phase.$")]
    phase: String,
}

#[derive(Debug, Serialize)]
struct Workers {
    workers: Vec<u32>,
}

#[derive(Debug, Serialize)]
struct ItemSelector {
    #[serde(rename = "worker.$")]
    worker: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
struct Parameters {
    function_name: String,
    payload: Payload,
}

/// A [`ReshardTask`](super::ReshardTask) as the state machine writes it: its worker given, or
/// taken from the state's input.
#[derive(Debug, Serialize)]
struct Payload {
    entity: String,
    index: String,
    step: ReshardStep,
    #[serde(skip_serializing_if = "Option::is_none")]
    worker: Option<u32>,
    #[serde(rename = "worker.$", skip_serializing_if = "Option::is_none")]
    worker_path: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
struct Retry {
    error_equals: Vec<String>,
    interval_seconds: u32,
    max_attempts: u32,
    backoff_rate: f64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
struct ChoiceRule {
    variable: String,
    boolean_equals: bool,
    next: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reshard::{Phase, ReshardTask, TaskOutcome};
    use serde_json::{json, Value};

    fn machine(workers: u32) -> Value {
        let machine = StateMachine {
            entity: "Album",
            index: "ByTitle",
            function: "arn:aws:lambda:eu-west-1:1:function:reshard".into(),
            workers: 4,
        }
        .workers(workers);
        serde_json::from_str(&machine.to_json()).expect("the definition is JSON")
    }

    /// Runs a state machine's states from `at` on `input`, as Step Functions would, with
    /// `invoke` as the Lambda function; returns the output.
    fn run(machine: &Value, input: Value, invoke: &mut dyn FnMut(ReshardTask) -> TaskOutcome) -> Value {
        let states = &machine["States"];
        let mut at = machine["StartAt"].as_str().expect("StartAt").to_owned();
        let mut data = input;
        for _ in 0..10_000 {
            let state = &states[&at];
            assert!(state.is_object(), "`{at}` is a state");
            let next = |name: &str| state[name].as_str().map(str::to_owned);
            match state["Type"].as_str() {
                Some("Pass") => data = state.get("Result").cloned().unwrap_or(data),
                Some("Succeed") => return data,
                Some("Task") => {
                    assert_eq!(state["Resource"], "arn:aws:states:::lambda:invoke");
                    let mut payload = state["Parameters"]["Payload"].clone();
                    if let Some(path) = payload.as_object_mut().and_then(|payload| payload.remove("worker.$"))
                    {
                        assert_eq!(path, "$.worker");
                        payload["worker"] = data["worker"].clone();
                    }
                    let task: ReshardTask =
                        serde_json::from_value(payload).expect("a task the function reads");
                    // The answer's fields the selector names, kept under `$.outcome`.
                    let answer = serde_json::to_value(invoke(task)).expect("an outcome");
                    let selector = json!({ "done.$": "$.Payload.done", "phase.$": "$.Payload.phase" });
                    assert_eq!(
                        (&state["ResultSelector"], &state["ResultPath"]),
                        (&selector, &json!("$.outcome"))
                    );
                    data["outcome"] = json!({ "done": answer["done"], "phase": answer["phase"] });
                }
                Some("Choice") => {
                    let rule = &state["Choices"][0];
                    assert_eq!(rule["Variable"], "$.outcome.done");
                    let taken = data["outcome"]["done"] == rule["BooleanEquals"];
                    at = if taken { rule["Next"].as_str() } else { state["Default"].as_str() }
                        .expect("a target")
                        .to_owned();
                    continue;
                }
                Some("Map") => {
                    assert_eq!(state["ItemProcessor"]["ProcessorConfig"]["Mode"], "DISTRIBUTED");
                    assert_eq!(state["ItemsPath"], "$.workers");
                    assert_eq!(state["ItemSelector"]["worker.$"], "$$.Map.Item.Value");
                    for item in data["workers"].as_array().expect("the workers").clone() {
                        run(&state["ItemProcessor"], json!({ "worker": item }), invoke);
                    }
                    assert!(state["ResultPath"].is_null(), "the workers pass on");
                }
                other => panic!("a state of type {other:?}"),
            }
            at = next("Next").expect("a next state");
        }
        panic!("the machine did not end");
    }

    #[test]
    fn the_machine_runs_each_step_until_its_invocations_say_done() {
        let machine = machine(3);
        let mut calls: Vec<(ReshardStep, u32)> = Vec::new();
        let mut invoke = |task: ReshardTask| {
            assert_eq!((task.entity.as_str(), task.index.as_str()), ("Album", "ByTitle"));
            calls.push((task.step, task.worker));
            // Each worker's scan, and the verification, take three invocations.
            let times = calls.iter().filter(|call| **call == (task.step, task.worker)).count();
            let done = task.step == ReshardStep::CutOver || times == 3;
            TaskOutcome { done, phase: Phase::DualWrites, worker: task.worker }
        };
        run(&machine, json!({}), &mut invoke);
        let steps: Vec<ReshardStep> = calls.iter().map(|(step, _)| *step).collect();
        let count = |step| steps.iter().filter(|called| **called == step).count();
        assert_eq!(count(ReshardStep::Backfill), 9, "three workers, three invocations each");
        assert_eq!((count(ReshardStep::Verify), count(ReshardStep::CutOver)), (3, 1));
        assert_eq!(count(ReshardStep::Finish), 9);
        let mut order = steps.clone();
        order.dedup();
        assert_eq!(
            order,
            [ReshardStep::Backfill, ReshardStep::Verify, ReshardStep::CutOver, ReshardStep::Finish]
        );
        let workers: std::collections::BTreeSet<u32> = calls
            .iter()
            .filter(|(step, _)| *step == ReshardStep::Backfill)
            .map(|(_, worker)| *worker)
            .collect();
        assert_eq!(workers, [0, 1, 2].into());
    }

    #[test]
    fn every_target_names_a_state_and_tasks_retry_lambdas_failures() {
        fn check(machine: &Value) {
            let states = machine["States"].as_object().expect("states");
            assert!(states.contains_key(machine["StartAt"].as_str().expect("StartAt")));
            for (name, state) in states {
                for target in ["Next", "Default"].iter().filter_map(|key| state[*key].as_str()) {
                    assert!(states.contains_key(target), "{name} goes to {target}");
                }
                for rule in state["Choices"].as_array().into_iter().flatten() {
                    assert!(states.contains_key(rule["Next"].as_str().expect("a rule's target")));
                }
                if state["Type"] == "Task" {
                    let errors = &state["Retry"][0]["ErrorEquals"];
                    assert!(errors
                        .as_array()
                        .is_some_and(|errors| errors.contains(&json!("Lambda.TooManyRequestsException"))));
                }
                if state["Type"] == "Map" {
                    check(&state["ItemProcessor"]);
                }
            }
        }
        check(&machine(1));
        check(&machine(1_000));
        assert_eq!(machine(0)["States"]["Workers"]["Result"]["workers"], json!([0]), "at least one worker");
    }
}
