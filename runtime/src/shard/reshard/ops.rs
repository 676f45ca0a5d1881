//! The steps of a resharding, and what writers do while one is under way.

use super::layout::{place, NewLayout, Router, ShardMapping};
use super::state::{Phase, ReshardState};
use super::Records;
use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Item, Result};
use crate::index::Index;
use crate::index_keys::find_index;
use crate::item::table_of;
use crate::shard::dynamic::state::now_ms;
use crate::shard::ShardMetadata;
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

fn refuse(index: &str, reason: impl Into<String>) -> Error {
    Error::Resharding { index: index.to_owned(), reason: reason.into() }
}

/// A resharding of one mapping, checked against the entity and its table.
#[derive(Debug)]
pub(crate) struct Checked {
    pub mapping: ShardMapping,
    pub router: Router,
    pub source: (&'static str, &'static str),
    pub target: (&'static str, &'static str),
}

impl Checked {
    pub fn new<E: Entity>(state: &ReshardState) -> Result<Self> {
        let index = state.source.as_str();
        let mapping =
            E::shard_mappings().iter().find(|mapping| mapping.index == index).copied().ok_or_else(|| {
                refuse(index, format!("`{}` has no hash- or range-sharded mapping of it", E::TYPE_NAME))
            })?;
        let router = Router::new(&state.layout, &mapping).ok_or_else(|| {
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
        match place(item, &self.mapping, &self.router, self.source) {
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
    fn with_checked<E: Entity, T>(&self, f: impl FnOnce(&Checked) -> T) -> Result<T> {
        match &self.checked {
            Some(checked) => Ok(f(checked)),
            None => Checked::new::<E>(&self.state).map(|checked| f(&checked)),
        }
    }
}

impl Db {
    /// The metadata key of `E`'s resharding of `index`.
    pub(crate) fn reshard_key<E: Entity>(&self, index: &str) -> String {
        reshard_key(self.table_of::<E>(), index, E::TYPE_NAME)
    }

    /// The shard metadata `E`'s reshardings are recorded in: the one its table declares (or the
    /// one this `Db` was given in its place). A table that declares none cannot be resharded.
    pub(crate) fn reshard_metadata<E: Entity>(&self) -> Result<Arc<ShardMetadata>> {
        let table = table_of::<E>();
        match table.shard_metadata {
            Some(_) => self.require_metadata(table),
            None => Err(Error::ShardMetadataUndeclared { table: table.name }),
        }
    }

    /// The records of `E`'s reshardings.
    pub(crate) fn records<E: Entity>(&self) -> Result<Records<'_>> {
        Ok(Records { db: self, shards: self.reshard_metadata::<E>()? })
    }

    /// The cache of `E`'s reshardings, if its table can be resharded at all.
    pub(crate) fn reshard_cache<E: Entity>(&self) -> Option<Arc<ShardMetadata>> {
        self.reshard_metadata::<E>().ok()
    }

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
        let shards = self.reshard_metadata::<E>()?;
        let (records, key) =
            (Records { db: self, shards: Arc::clone(&shards) }, self.reshard_key::<E>(index));
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
        self.reshard_state::<E>(index.name()).await
    }

    /// The recorded resharding of `E`'s mapping of the index called `index`, if any.
    pub(crate) async fn reshard_state<E: Entity>(&self, index: &str) -> Result<Option<ReshardState>> {
        let shards = self.reshard_metadata::<E>()?;
        let (key, sent) = (self.reshard_key::<E>(index), Instant::now());
        let state = Records { db: self, shards: Arc::clone(&shards) }.read(&key).await?;
        shards.remember_reshard(&key, state.clone().map(CachedReshard::of::<E>), sent);
        Ok(state)
    }

    /// Moves a backfilled resharding to the cut-over: queries of the source index read the target.
    pub async fn cut_over<E: Entity>(&self, index: Index<E::Table>) -> Result<ReshardState> {
        self.advance::<E>(index.name(), Phase::Backfilled, Phase::CutOver).await
    }

    pub(crate) async fn advance<E: Entity>(
        &self,
        index: &str,
        from: Phase,
        to: Phase,
    ) -> Result<ReshardState> {
        let shards = self.reshard_metadata::<E>()?;
        let (records, key) =
            (Records { db: self, shards: Arc::clone(&shards) }, self.reshard_key::<E>(index));
        if !records.advance(&key, from, to).await? {
            let found = records.read(&key).await?.map(|state| state.phase);
            return Err(refuse(index, format!("expected phase {from:?} to move to {to:?}, found {found:?}")));
        }
        tracing::info!(target: "dynashard::reshard", index, phase = ?to, "resharding moved on");
        let state = self.reshard_state::<E>(index).await?;
        state.ok_or_else(|| refuse(index, "its record vanished"))
    }

    /// Reads the resharding records of `E`'s sharded mappings into the cache, where stale.
    pub(crate) async fn resolve_reshards<E: Entity>(&self) -> Result<()> {
        let Some(shards) = self.reshard_cache::<E>() else { return Ok(()) };
        for mapping in E::shard_mappings() {
            let key = self.reshard_key::<E>(mapping.index);
            if shards.fresh_reshard(&key).is_none() {
                let sent = Instant::now();
                let state = Records { db: self, shards: Arc::clone(&shards) }.read(&key).await?;
                shards.remember_reshard(&key, state.map(CachedReshard::of::<E>), sent);
            }
        }
        Ok(())
    }

    /// Places `item` in the target layouts of `E`'s reshardings under way (from the cache); the
    /// caller checks the complete item's index keys.
    pub(crate) fn mirror_item<E: Entity>(&self, item: &mut Item) -> Result<()> {
        let Some(shards) = self.reshard_cache::<E>() else { return Ok(()) };
        for mapping in E::shard_mappings() {
            let key = self.reshard_key::<E>(mapping.index);
            match shards.cached_reshard(&key) {
                Some(Some(cached)) => {
                    cached.with_checked::<E, _>(|checked| checked.mirror(item, cached.state.phase))?
                }
                Some(None) => {}
                None => return Err(Error::ReshardingUnresolved { index: mapping.index }),
            }
        }
        Ok(())
    }
}

impl Db {
    /// The index of `E` whose batched backfill holds existing items frozen, if any.
    pub(crate) fn frozen_index<E: Entity>(&self) -> Option<&'static str> {
        let shards = self.reshard_cache::<E>()?;
        E::shard_mappings().iter().map(|mapping| mapping.index).find(|index| {
            matches!(shards.cached_reshard(&self.reshard_key::<E>(index)),
                Some(Some(cached)) if cached.state.frozen && cached.state.phase == Phase::DualWrites)
        })
    }

    /// After an update returned `item` (all its attributes): writes its place in the target
    /// layouts of `E`'s reshardings under way where it changed, unless a writer changed the item
    /// again meanwhile (that writer then placed it).
    pub(crate) async fn mirror_stored<E: Entity>(&self, item: &Item) -> Result<()> {
        let Some(shards) = self.reshard_cache::<E>() else { return Ok(()) };
        for mapping in E::shard_mappings() {
            let Some(Some(cached)) = shards.cached_reshard(&self.reshard_key::<E>(mapping.index)) else {
                continue;
            };
            let checked = Checked::new::<E>(&cached.state)?;
            let mut placed = item.clone();
            checked.mirror(&mut placed, cached.state.phase);
            let changed = |name: &str| placed.get(name) != item.get(name);
            let attributes = [checked.target.0, checked.target.1, checked.source.0, checked.source.1];
            if !attributes.iter().any(|name| changed(name)) {
                continue;
            }
            crate::index_key_limits::check_item(crate::item::table_of::<E>(), &placed)?;
            let mut request = self
                .client()
                .update_item()
                .table_name(self.table_of::<E>())
                .set_key(Some(crate::item::key_of(item, table_of::<E>())));
            let (mut sets, mut removes, mut conditions) = (Vec::new(), Vec::new(), Vec::new());
            for (position, name) in attributes.iter().enumerate() {
                request = request.expression_attribute_names(format!("#a{position}"), *name);
                match item.get(*name) {
                    Some(value) => {
                        conditions.push(format!("#a{position} = :old{position}"));
                        request =
                            request.expression_attribute_values(format!(":old{position}"), value.clone());
                    }
                    None => conditions.push(format!("attribute_not_exists(#a{position})")),
                }
                if !changed(name) {
                    continue;
                }
                match placed.get(*name) {
                    Some(value) => {
                        sets.push(format!("#a{position} = :new{position}"));
                        request =
                            request.expression_attribute_values(format!(":new{position}"), value.clone());
                    }
                    None => removes.push(format!("#a{position}")),
                }
            }
            let mut expression = String::new();
            if !sets.is_empty() {
                expression.push_str(&format!("SET {}", sets.join(", ")));
            }
            if !removes.is_empty() {
                expression.push_str(&format!(" REMOVE {}", removes.join(", ")));
            }
            let result = request
                .update_expression(expression.trim())
                .condition_expression(conditions.join(" AND "))
                .send()
                .await;
            match result {
                Ok(_) => {}
                Err(error)
                    if aws_sdk_dynamodb::error::ProvideErrorMetadata::code(&error)
                        == Some("ConditionalCheckFailedException") => {}
                Err(error) => return Err(Error::from_sdk("UpdateItem", error)),
            }
        }
        Ok(())
    }
}
