//! The part of the Amazon States Language the definition uses, as derived serde structs.

use crate::reshard::ReshardStep;
use serde::Serialize;
use std::collections::BTreeMap;

/// A state machine, or a Map's item processor.
#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct Machine {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) comment: Option<String>,
    pub(super) start_at: String,
    pub(super) states: BTreeMap<String, State>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) processor_config: Option<ProcessorConfig>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ProcessorConfig {
    pub(super) mode: &'static str,
    pub(super) execution_type: &'static str,
}

/// The states used, as the States Language spells them.
#[derive(Debug, Serialize)]
#[serde(tag = "Type", rename_all_fields = "PascalCase")]
pub(super) enum State {
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

/// What the state machine keeps of a [`TaskOutcome`](crate::reshard::TaskOutcome).
#[derive(Debug, Serialize)]
pub(super) struct Outcome {
    #[serde(rename = "done.$")]
    pub(super) done: String,
    #[serde(rename = "phase.$")]
    pub(super) phase: String,
}

#[derive(Debug, Serialize)]
pub(super) struct Workers {
    pub(super) workers: Vec<u32>,
}

#[derive(Debug, Serialize)]
pub(super) struct ItemSelector {
    #[serde(rename = "worker.$")]
    pub(super) worker: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct Parameters {
    pub(super) function_name: String,
    pub(super) payload: Payload,
}

/// A [`ReshardTask`](crate::reshard::ReshardTask) as the state machine writes it: its worker given, or
/// taken from the state's input.
#[derive(Debug, Serialize)]
pub(super) struct Payload {
    pub(super) entity: String,
    pub(super) index: String,
    pub(super) step: ReshardStep,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) worker: Option<u32>,
    #[serde(rename = "worker.$", skip_serializing_if = "Option::is_none")]
    pub(super) worker_path: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct Retry {
    pub(super) error_equals: Vec<String>,
    pub(super) interval_seconds: u32,
    pub(super) max_attempts: u32,
    pub(super) backoff_rate: f64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ChoiceRule {
    pub(super) variable: String,
    pub(super) boolean_equals: bool,
    pub(super) next: String,
}
