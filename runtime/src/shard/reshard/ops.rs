//! The steps of a resharding, and what writers do while one is under way.

use super::layout::place;
use super::state::{Phase, ReshardState};
use super::view::Reshards;
use super::Records;
use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Item, Result};
use crate::index::Index;
use crate::index_keys::find_index;
use crate::item::table_of;
use crate::shard::dynamic::state::now_ms;
use crate::shard::{NewLayout, Router, ShardSpec};
use crate::table::{IndexDefinition, ScalarKind};
use aws_sdk_dynamodb::types::AttributeValue;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

/// The metadata key of the resharding of `index` of the entity `type_name` in the table named
/// `table` (as deployed).
pub(crate) fn reshard_key(table: &str, index: &str, type_name: &str) -> String {
    format!("reshard/{table}/{index}/{type_name}")
}

/// The key attributes of a string-keyed index: `(partition, sort)`.
pub(crate) fn string_keys(index: &IndexDefinition) -> Option<(&'static str, &'static str)> {
    match (index.partition_key, index.sort_key) {
        ([pk], [sk]) if pk.kind == ScalarKind::String && sk.kind == ScalarKind::String => {
            Some((pk.name, sk.name))
        }
        _ => None,
    }
}

pub(super) fn refuse(index: &str, reason: impl Into<String>) -> Error {
    Error::Resharding { index: index.to_owned(), reason: reason.into() }
}

/// A resharding of one mapping, checked against the entity and its table.
#[derive(Debug)]
pub(crate) struct Checked {
    pub mapping: &'static ShardSpec,
    pub router: Router,
    pub source: (&'static str, &'static str),
    pub target: (&'static str, &'static str),
}

impl Checked {
    pub fn new<E: Entity>(state: &ReshardState) -> Result<Self> {
        let index = state.source.as_str();
        let mapping = super::mappings::<E>().find(|mapping| mapping.index == index).ok_or_else(|| {
            refuse(index, format!("`{}` has no hash- or range-sharded mapping of it", E::TYPE_NAME))
        })?;
        let router = mapping.router_for(&state.layout).ok_or_else(|| {
            refuse(index, "the new layout must be of the mapping's kind (hash or range) and valid")
        })?;
        let indexes = table_of::<E>().indexes;
        let keys_of = |name: &str| find_index(indexes, name).and_then(string_keys);
        let source = keys_of(index).ok_or_else(|| refuse(index, "the source index needs string keys"))?;
        let target = keys_of(&state.target).ok_or_else(|| {
            refuse(index, format!("the table declares no string-keyed index `{}`", state.target))
        })?;
        if state.target == index {
            return Err(refuse(index, "the target must be another index"));
        }
        Ok(Self { mapping, router, source, target })
    }

    /// Adds `item`'s place in the target layout; in the last phase also drops it from the source.
    pub fn mirror(&self, item: &mut Item, phase: Phase) {
        match place(item, self.mapping, &self.router, self.source) {
            Some(placement) => {
                item.insert(self.target.0.to_owned(), AttributeValue::S(placement.partition));
                item.insert(self.target.1.to_owned(), AttributeValue::S(placement.sort));
            }
            None => {
                item.remove(self.target.0);
                item.remove(self.target.1);
            }
        }
        if phase == Phase::Done {
            item.remove(self.source.0);
            item.remove(self.source.1);
        }
    }
}

/// A resharding record as cached, with its routing checked against the entity once, so a write
/// during a resharding does not check it again.
#[derive(Debug)]
pub(crate) struct CachedReshard {
    pub state: ReshardState,
    /// `None` when cached without the entity at hand (by a query), or invalid for it.
    checked: Option<Checked>,
}

impl CachedReshard {
    /// The record, checked against `E`.
    pub fn of<E: Entity>(state: ReshardState) -> Arc<Self> {
        Arc::new(Self { checked: Checked::new::<E>(&state).ok(), state })
    }

    /// The record, unchecked.
    pub fn unchecked(state: ReshardState) -> Arc<Self> {
        Arc::new(Self { state, checked: None })
    }

    /// Applies `f` to the record's checked routing, checking it now if it was cached unchecked.
    pub(super) fn with_checked<E: Entity, T>(&self, f: impl FnOnce(&Checked) -> T) -> Result<T> {
        match &self.checked {
            Some(checked) => Ok(f(checked)),
            None => Checked::new::<E>(&self.state).map(|checked| f(&checked)),
        }
    }
}

impl Db {
    /// Starts resharding `E`'s mapping of `index` into the spare index `target` with `layout`:
    /// from now on (within the metadata cache time), writes fill both. Starting the same
    /// resharding again returns its state; another one on the same index is refused.
    pub async fn start_resharding<E: Entity>(
        &self,
        index: Index<E::Table>,
        target: Index<E::Table>,
        layout: NewLayout,
    ) -> Result<ReshardState> {
        let (index, target) = (index.name(), target.name());
        let state = ReshardState {
            source: index.to_owned(),
            target: target.to_owned(),
            layout,
            phase: Phase::DualWrites,
            started: now_ms(),
            segments: BTreeMap::new(),
            frozen: false,
            frozen_seen: 0,
            scan_table: false,
        };
        Checked::new::<E>(&state)?;
        let shards = Reshards::<E>::of(self).metadata()?;
        let (records, key) =
            (Records { db: self, shards: Arc::clone(&shards) }, Reshards::<E>::of(self).key(index));
        let sent = Instant::now();
        if !records.create(&key, &state).await? {
            let existing = records.read(&key).await?.ok_or_else(|| refuse(index, "its record vanished"))?;
            if (&existing.target, &existing.layout) != (&state.target, &state.layout) {
                return Err(refuse(
                    index,
                    format!("another resharding (into `{}`) is under way", existing.target),
                ));
            }
            return Ok(existing);
        }
        tracing::info!(target: "dynashard::reshard", index, into = target, layout = state.layout.describe(), "dual writes started");
        shards.remember_reshard(&key, Some(CachedReshard::of::<E>(state.clone())), sent);
        Ok(state)
    }

    /// The recorded resharding of `E`'s mapping of `index`, if any.
    pub async fn resharding<E: Entity>(&self, index: Index<E::Table>) -> Result<Option<ReshardState>> {
        Reshards::<E>::of(self).state(index.name()).await
    }

    /// Moves a backfilled resharding to the cut-over: queries of the source index read the target.
    pub async fn cut_over<E: Entity>(&self, index: Index<E::Table>) -> Result<ReshardState> {
        Reshards::<E>::of(self).advance(index.name(), Phase::Backfilled, Phase::CutOver).await
    }
}
