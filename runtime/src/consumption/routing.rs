//! The load on routing values: what an item's range-sharded mappings route it by, counted on
//! the partition the units went to, so that a split of an over-limit range shard can cut where
//! the load balances ([`Db::suggest_split`](crate::Db::suggest_split)).

use super::hot_keys::{KeyPlace, Tracker};
use crate::entity::Entity;
use crate::error::Item;
use crate::shard::ShardSpec;

/// An entity type as counting knows it: its name, and its mappings.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EntityType {
    pub name: &'static str,
    pub shards: &'static [ShardSpec],
}

impl EntityType {
    /// `E`'s.
    pub(crate) const fn of<E: Entity>() -> Self {
        EntityType { name: E::TYPE_NAME, shards: E::SHARDS }
    }

    /// A type known by its name only: no routing value of it is counted.
    pub(crate) const fn named(name: &'static str) -> Self {
        EntityType { name, shards: &[] }
    }

    /// Whether some mapping of it is range-sharded: only then are routing values counted.
    fn ranged(&self) -> bool {
        self.shards.iter().any(|spec| spec.normalization().is_some())
    }
}

/// The routing values of an item in its type's range-sharded mappings: the index of each (`""`,
/// the table) and the value normalized as the mapping normalizes it.
pub(crate) type RangeValues = Vec<(&'static str, String)>;

/// `item`'s routing values in the range-sharded mappings of `entity` (none when the `Db` tracks
/// no hot keys, or the type has no such mapping: nothing is spent on them then).
pub(crate) fn range_values(tracking: bool, entity: EntityType, item: Option<&Item>) -> RangeValues {
    let Some(item) = item.filter(|_| tracking && entity.ranged()) else { return RangeValues::new() };
    entity
        .shards
        .iter()
        .filter_map(|spec| Some((spec.index, spec.normalization()?.apply(&spec.item_routing_text(item)?))))
        .collect()
}

/// Counts `units` taken on `place` (of `index`, `None`: the table) on the routing value the item
/// has there, if any.
pub(crate) fn count_value(
    tracker: &Tracker,
    (place, index): (&KeyPlace, Option<&str>),
    values: &RangeValues,
    units: f64,
) {
    let index = index.unwrap_or_default();
    for (_, value) in values.iter().filter(|(mapped, _)| *mapped == index) {
        tracker.value_consumed(place, value, units);
    }
}
