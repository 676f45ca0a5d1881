//! A layout as records: what a sharded read's cursor is bound to, and a resharding's target as
//! it is stored.

use super::super::{Boundaries, Normalization, TimeBucket};
use super::{BoundarySource, Layout};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

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
}

fn is_default(normalization: &Normalization) -> bool {
    *normalization == Normalization::default()
}

impl Target {
    /// The target form of `layout`; `None` unless it is a hash or range layout.
    pub fn of(layout: &Layout) -> Option<Self> {
        match layout {
            Layout::Hash { shards } => Some(Self::Hash { shards: *shards }),
            Layout::Range { boundaries, normalization, .. } => Some(Self::Range {
                boundaries: boundaries.current().values().to_vec(),
                normalization: *normalization,
            }),
            _ => None,
        }
    }
}

/// Stored as its [`Target`]: only hash and range layouts are resharding targets.
impl Serialize for Layout {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match Target::of(self) {
            Some(target) => target.serialize(serializer),
            None => Err(serde::ser::Error::custom(format!("a {} layout is not stored", self.strategy()))),
        }
    }
}

impl<'de> Deserialize<'de> for Layout {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match Target::deserialize(deserializer)? {
            Target::Hash { shards } => Self::Hash { shards },
            Target::Range { boundaries, normalization } => Self::Range {
                boundaries: BoundarySource::Fixed(Arc::new(
                    Boundaries::new(boundaries).map_err(serde::de::Error::custom)?,
                )),
                normalization,
                overflow: 1,
            },
        })
    }
}
