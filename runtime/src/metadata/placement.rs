//! What a migration record implies for an item: the record checked against the entity (its
//! mapping, the router of the new layout or the composition of the added keys, the key
//! attributes of both indexes), and the item's place in the target: a resharded item keeps its
//! logical partition and sort key and takes a new shard, an item given an added mapping takes
//! the keys its entity composes.

use super::{MigrationKind, Phase, ReshardState};
use crate::entity::Entity;
use crate::error::{Error, Item, Result};
use crate::index_keys::{find_index, AddedMapping};
use crate::item::table_of;
use crate::shard::{logical_partition, shard_partition, Layout, ShardSpec};
use crate::table::{IndexDefinition, ScalarKind};
use aws_sdk_dynamodb::types::AttributeValue;
use std::sync::Arc;

/// `E`'s mappings a resharding can move, in declaration order.
pub(crate) fn mappings<E: Entity>() -> impl Iterator<Item = &'static ShardSpec> {
    E::SHARDS.iter().filter(|spec| spec.reshardable())
}

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

pub(crate) fn refuse(index: &str, reason: impl Into<String>) -> Error {
    Error::Resharding { index: index.to_owned(), reason: reason.into() }
}

/// A migration of one mapping, checked against the entity and its table.
#[derive(Debug)]
pub(crate) struct Checked {
    /// What moves.
    pub change: Change,
    pub target: (&'static str, &'static str),
    /// The target index's name.
    pub target_index: &'static str,
}

/// What a migration changes, checked.
#[derive(Debug)]
pub(crate) enum Change {
    /// A sharded mapping's items move to a new layout held by another index.
    Reshard {
        mapping: &'static ShardSpec,
        /// The layout items are placed in.
        layout: Layout,
        /// The source index's key attributes.
        source: (&'static str, &'static str),
    },
    /// A mapping added to existing items: each gets its keys as the entity composes them.
    Add {
        added: &'static AddedMapping,
        /// The item with every index key the entity declares, as it composes them now (`None`:
        /// the item does not decode).
        compose: fn(&Item) -> Option<Item>,
        /// The attributes the keys depend on, besides the primary key: the entity type and the
        /// mapping's fields (every attribute of the entity for a `when` predicate).
        depends_on: Vec<&'static str>,
    },
}

impl Checked {
    pub fn new<E: Entity>(state: &ReshardState) -> Result<Self> {
        match state.kind {
            MigrationKind::Reshard => Self::reshard::<E>(state),
            MigrationKind::AddMapping => Self::add::<E>(&state.target),
        }
    }

    fn reshard<E: Entity>(state: &ReshardState) -> Result<Self> {
        let index = state.source.as_str();
        let mapping = mappings::<E>().find(|mapping| mapping.index == index).ok_or_else(|| {
            refuse(index, format!("`{}` has no hash- or range-sharded mapping of it", E::TYPE_NAME))
        })?;
        let layout = mapping.resharded(&state.layout).ok_or_else(|| {
            refuse(index, "the new layout must be of the mapping's kind (hash or range) and valid")
        })?;
        let indexes = table_of::<E>().indexes;
        // A local index shares the item's partition key: no layout of it can move.
        let keys_of =
            |name: &str| find_index(indexes, name).filter(|index| !index.local).and_then(string_keys);
        let source = keys_of(index).ok_or_else(|| refuse(index, "the source index needs string keys"))?;
        let target = keys_of(&state.target).ok_or_else(|| {
            refuse(index, format!("the table declares no string-keyed index `{}`", state.target))
        })?;
        let target_index = find_index(indexes, &state.target).map_or("", |index| index.name);
        if state.target == index {
            return Err(refuse(index, "the target must be another index"));
        }
        Ok(Self { change: Change::Reshard { mapping, layout, source }, target, target_index })
    }

    /// The addition of `E`'s mapping of `index`, declared `added`.
    pub fn add<E: Entity>(index: &str) -> Result<Self> {
        let added = E::ADDED
            .iter()
            .find(|added| added.index == index)
            .ok_or_else(|| refuse(index, format!("`{}` declares no mapping of it `added`", E::TYPE_NAME)))?;
        let table = table_of::<E>();
        let definition = find_index(table.indexes, index).filter(|index| !index.local);
        let target = definition
            .and_then(string_keys)
            .ok_or_else(|| refuse(index, "an added mapping needs a global index with string keys"))?;
        if let Some(spec) = E::SHARDS.iter().find(|spec| spec.index == index) {
            if !spec.layout.places_alike() {
                return Err(refuse(
                    index,
                    "a random or dynamic shard is picked anew at every write: add the mapping with a \
                     hash, range or time-bucket layout, and change it after",
                ));
            }
        }
        let mut depends_on = vec![table.type_attribute];
        match added.whole {
            false => depends_on.extend(added.reads.iter().copied()),
            true => depends_on.extend(E::ATTRIBUTES.ok_or_else(|| {
                refuse(index, "its `when` predicate reads the whole value, whose attributes a flattened entity does not list")
            })?),
        }
        let compose: fn(&Item) -> Option<Item> = compose::<E>;
        let change = Change::Add { added, compose, depends_on };
        Ok(Self { change, target, target_index: definition.map_or("", |index| index.name) })
    }

    /// The index the migration is recorded under: the source of a resharding, the added index.
    pub fn index(&self) -> &'static str {
        match &self.change {
            Change::Reshard { mapping, .. } => mapping.index,
            Change::Add { added, .. } => added.index,
        }
    }

    /// The source index's key attributes; `None`: the items are read from the table.
    pub fn source(&self) -> Option<(&'static str, &'static str)> {
        match &self.change {
            Change::Reshard { source, .. } => Some(*source),
            Change::Add { .. } => None,
        }
    }

    /// The resharded mapping.
    pub fn resharded(&self) -> Option<&'static ShardSpec> {
        match &self.change {
            Change::Reshard { mapping, .. } => Some(mapping),
            Change::Add { .. } => None,
        }
    }

    /// `item` with its place in the target (without it, when it belongs in no place there);
    /// `None` when the place cannot be told (an added mapping's item that does not decode).
    pub fn placed(&self, item: &Item) -> Option<Item> {
        let mut placed = item.clone();
        match &self.change {
            Change::Reshard { .. } => self.mirror(&mut placed, Phase::DualWrites),
            Change::Add { compose, .. } => {
                let composed = compose(item)?;
                for name in [self.target.0, self.target.1] {
                    match composed.get(name) {
                        Some(value) => placed.insert(name.to_owned(), value.clone()),
                        None => placed.remove(name),
                    };
                }
            }
        }
        Some(placed)
    }

    /// The attributes a place depends on, besides the primary key, with `item`'s values
    /// (`None`: absent); `None` when a resharding's item misses one (it is in no source place).
    pub fn depends_on(&self, item: &Item) -> Option<Vec<(&'static str, Option<AttributeValue>)>> {
        match &self.change {
            Change::Reshard { mapping, source, .. } => [source.0, source.1]
                .into_iter()
                .chain(mapping.by.iter().copied())
                .map(|name| Some((name, Some(item.get(name)?.clone()))))
                .collect(),
            Change::Add { depends_on, .. } => {
                Some(depends_on.iter().map(|name| (*name, item.get(*name).cloned())).collect())
            }
        }
    }

    /// Adds `item`'s place in the target layout; in the last phase also drops it from the source.
    /// (An added mapping's writers compose its keys themselves.)
    pub fn mirror(&self, item: &mut Item, phase: Phase) {
        let Change::Reshard { mapping, layout, source } = &self.change else { return };
        match place(item, mapping, layout, *source) {
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
            item.remove(source.0);
            item.remove(source.1);
        }
    }
}

/// `item`, decoded as `E` and encoded again: every index key `E` declares, as composed now.
fn compose<E: Entity>(item: &Item) -> Option<Item> {
    let entity = crate::item::from_item::<E>(item.clone()).ok()?;
    let mut composed = crate::item::body(&entity).ok()?;
    let table = table_of::<E>();
    let keys =
        &mut crate::index_keys::IndexKeys::of_item(&mut composed, table, &crate::shard::NoDynamicShards);
    entity.write_index_keys(keys).ok()?;
    Some(composed)
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
    pub(crate) fn with_checked<E: Entity, T>(&self, f: impl FnOnce(&Checked) -> T) -> Result<T> {
        match &self.checked {
            Some(checked) => Ok(f(checked)),
            None => Checked::new::<E>(&self.state).map(|checked| f(&checked)),
        }
    }
}

/// Where an item goes in the new layout: its target partition and sort key values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The target index's partition key value.
    pub partition: String,
    /// The target index's sort key value (the source's, unchanged).
    pub sort: String,
}

/// Where `item`, placed in the source index under `(source_pk, source_sk)`, goes in the new
/// layout; `None` when it is not in the source index (a sparse index it does not belong to).
pub(crate) fn place(
    item: &Item,
    mapping: &ShardSpec,
    layout: &Layout,
    (source_pk, source_sk): (&str, &str),
) -> Option<Placement> {
    let partition = item.get(source_pk)?.as_s().ok()?;
    let sort = item.get(source_sk)?.as_s().ok()?;
    let text = mapping.item_routing_text(item)?;
    let partition = shard_partition(logical_partition(partition), layout.route(&text)?);
    Some(Placement { partition, sort: sort.clone() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shard::{Boundaries, BoundarySource, Normalization, RangeShards};
    use std::sync::OnceLock;

    fn compiled() -> &'static RangeShards {
        static SHARDS: OnceLock<RangeShards> = OnceLock::new();
        SHARDS.get_or_init(|| RangeShards::new(Boundaries::from_checked(&["", "m"])))
    }

    const HASHED: ShardSpec = ShardSpec {
        index: "ByTitle",
        layout: Layout::Hash { shards: 8 },
        by: &["title"],
        directory: false,
        partition: None,
    };
    const RANGED: ShardSpec = ShardSpec {
        index: "ByTitle",
        layout: Layout::Range {
            boundaries: BoundarySource::Declared(compiled),
            normalization: Normalization::NfkdLower,
            overflow: 1,
        },
        by: &["title"],
        directory: false,
        partition: None,
    };

    fn item(title: &str, pk: &str) -> Item {
        [
            ("title".to_owned(), AttributeValue::S(title.to_owned())),
            ("gpk".to_owned(), AttributeValue::S(pk.to_owned())),
            ("gsk".to_owned(), AttributeValue::S("sort".to_owned())),
        ]
        .into_iter()
        .collect()
    }

    #[test]
    fn hash_placement_keeps_the_logical_partition_and_sort_key() {
        let layout = HASHED.resharded(&Layout::hash(21)).unwrap();
        let placed = place(&item("Leaving Home", "album$#x#3"), &HASHED, &layout, ("gpk", "gsk")).unwrap();
        assert_eq!(placed, Placement { partition: "album$#x#6".into(), sort: "sort".into() });
    }

    #[test]
    fn range_placement_normalizes() {
        let boundaries = Boundaries::from_json(r#"["", "h", "p"]"#).unwrap();
        let layout = RANGED.resharded(&Layout::range(&boundaries)).unwrap();
        let placed = place(&item("ＨＥＬＬＯ", "albums#9"), &RANGED, &layout, ("gpk", "gsk")).unwrap();
        assert_eq!(placed.partition, "albums#1");
    }

    #[test]
    fn layouts_must_match_the_mapping() {
        assert!(RANGED.resharded(&Layout::hash(4)).is_none());
        assert!(HASHED.resharded(&Layout::range(&Boundaries::from_checked(&[""]))).is_none());
        assert!(HASHED.resharded(&Layout::hash(0)).is_none());
        assert!(place(&item("x", "p#1"), &HASHED, &Layout::hash(2), ("missing", "gsk")).is_none());
        assert!(place(&item("x", "p#1"), &HASHED, &Layout::Random { shards: 2 }, ("gpk", "gsk")).is_none());
    }
}
