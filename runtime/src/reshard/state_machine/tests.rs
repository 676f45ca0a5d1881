//! The definition run by a small interpreter of the States Language, against a fake function.

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
                if let Some(path) = payload.as_object_mut().and_then(|payload| payload.remove("worker.$")) {
                    assert_eq!(path, "$.worker");
                    payload["worker"] = data["worker"].clone();
                }
                let task: ReshardTask = serde_json::from_value(payload).expect("a task the function reads");
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
    let workers: std::collections::BTreeSet<u32> =
        calls.iter().filter(|(step, _)| *step == ReshardStep::Backfill).map(|(_, worker)| *worker).collect();
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
