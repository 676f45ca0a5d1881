//! What a resharding record implies for an item: the record checked against the entity (its
//! mapping, the router of the new layout, the key attributes of both indexes), and the item's
//! place in the new layout, which keeps its logical partition and sort key and takes a new shard.

use super::{Phase, ReshardState};
use crate::entity::Entity;
use crate::error::{Error, Item, Result};
use crate::index_keys::find_index;
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

/// A resharding of one mapping, checked against the entity and its table.
#[derive(Debug)]
pub(crate) struct Checked {
    pub mapping: &'static ShardSpec,
    /// The layout items are placed in.
    pub layout: Layout,
    pub source: (&'static str, &'static str),
    pub target: (&'static str, &'static str),
    /// The target index's name.
    pub target_index: &'static str,
}

impl Checked {
    pub fn new<E: Entity>(state: &ReshardState) -> Result<Self> {
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
        Ok(Self { mapping, layout, source, target, target_index })
    }

    /// Adds `item`'s place in the target layout; in the last phase also drops it from the source.
    pub fn mirror(&self, item: &mut Item, phase: Phase) {
        match place(item, self.mapping, &self.layout, self.source) {
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
