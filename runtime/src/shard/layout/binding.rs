//! A layout as records: what a sharded read's cursor is bound to, and a resharding's target as
//! it is stored.

use super::super::{Normalization, TimeBucket};
use serde::{Deserialize, Serialize};

/// What a sharded read's cursor is bound to: the strategy with its parameters (range boundaries
/// by fingerprint), each present only where the strategy has it.
#[derive(Debug, Default, Serialize)]
pub(crate) struct Binding<'a> {
    pub strategy: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout: Option<Target>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub normalization: Option<Normalization>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boundaries: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bucket: Option<TimeBucket>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shards: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overflow: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub random: Option<bool>,
    /// `Some(None)`: a dynamic layout not yet read (bound as `null`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub readable: Option<Option<u32>>,
}

impl Binding<'_> {
    /// The binding of a strategy named `strategy`, its parameters to be filled in.
    pub fn named(strategy: &'static str) -> Self {
        Binding { strategy, ..Binding::default() }
    }
}

/// A resharding's target layout as it is stored and bound: hash shards by count, range shards by
/// their boundaries (with the normalization when it is not the default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Target {
    Hash {
        shards: u32,
    },
    Range {
        boundaries: Vec<String>,
        #[serde(default, skip_serializing_if = "is_default")]
        normalization: Normalization,
    },
    /// One partition a key: recorded by a migration that adds a mapping (its layout is the
    /// entity's own).
    Unsharded,
}

fn is_default(normalization: &Normalization) -> bool {
    *normalization == Normalization::default()
}
