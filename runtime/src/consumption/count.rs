//! Counting what DynamoDB charged, and what it throttled, in a `Db`'s totals and against the
//! partition keys a request went to.

use super::hot_keys::{HotKeyTracking, KeyPlace, Tracker};
use super::routing::{count_value, range_values, EntityType, RangeValues};
use super::throttles::Throttles;
use super::totals::{Kind, Totals};
use crate::error::{Error, Item};
use crate::table::TableDefinition;
use crate::throttling::ThrottlingReason;
use aws_sdk_dynamodb::types::{AttributeValue, ConsumedCapacity};
use base64::Engine;
use std::sync::Arc;

/// Where a `Db`'s requests count what they consumed: its totals, and its hot keys when it tracks
/// them (`hot`). Shared by the `Db`'s clones.
#[derive(Clone, Debug)]
pub(crate) struct Meter {
    pub(crate) totals: Arc<Totals>,
    pub(crate) hot: Option<Arc<Tracker>>,
}

impl Default for Meter {
    /// Totals, and hot keys tracked as [`HotKeyTracking::default`] says.
    fn default() -> Self {
        Meter { totals: Arc::default(), hot: Some(Tracker::new(HotKeyTracking::default())) }
    }
}

impl Meter {
    /// Adds `units` of `kind` on `place` (table, index, entity type) to the totals and to the
    /// scope the work runs in.
    pub(crate) fn add(&self, place: (&str, Option<&str>, &'static str), kind: Kind, units: f64) {
        self.totals.add(place, kind, units);
        super::scope::add(place, kind, units);
    }
}

/// Counts what `consumed` reports for the table named `table` (and its indexes, when it names
/// them) in the totals of `entity`, on no key: requests whose units are not an item's (a
/// resharding's statements, a scan's pages).
pub(crate) fn count_units(
    meter: &Meter,
    (table, entity): (&str, &'static str),
    kind: Kind,
    consumed: &[ConsumedCapacity],
) {
    for consumed in
        consumed.iter().filter(|consumed| consumed.table_name.as_deref().is_none_or(|name| name == table))
    {
        let indexes = consumed.global_secondary_indexes.iter().flatten();
        let mut by_index: f64 = 0.0;
        for (index, capacity) in indexes {
            let Some(units) = capacity.capacity_units else { continue };
            by_index += units;
            meter.add((table, Some(index), entity), kind, units);
        }
        let own = consumed.table.as_ref().and_then(|table| table.capacity_units);
        let total = consumed.capacity_units.map(|total| total - by_index);
        if let Some(units) = own.or(total) {
            meter.add((table, None, entity), kind, units);
        }
    }
}

/// Counts a read of one partition for `entity`: `units` charged on `partition_key` of `index`
/// (`None`: the table) of the table named `table`, and a throttle for each attempt of it
/// DynamoDB throttled (`throttles`, when the request was watched; else `outcome`, when it is a
/// throttling error).
pub(crate) fn count_read(
    meter: &Meter,
    (table, index, partition_key): (&str, Option<&str>, &str),
    entity: &'static str,
    outcome: Result<f64, &Error>,
    throttles: &Throttles,
) {
    if let Ok(units) = outcome {
        meter.add((table, index, entity), Kind::Read, units);
    }
    let Some(tracker) = &meter.hot else { return };
    let place = || KeyPlace {
        table: table.to_owned(),
        index: index.map(str::to_owned),
        partition_key: partition_key.to_owned(),
    };
    match outcome {
        Ok(units) if units > 0.0 => tracker.consumed(&place(), units),
        _ => {}
    }
    let throttled = match throttles.is_empty() {
        true => usize::from(outcome.is_err_and(Error::is_throttled)),
        false => throttles.attempts().len(),
    };
    for _ in 0..throttled {
        tracker.throttled(&place());
    }
}

/// The partition keys of an item in the global indexes it is in, by index name.
pub(crate) type IndexKeys = Vec<(&'static str, String)>;

/// What counting a write reads of its item: the partition keys it has in the global indexes it
/// is in, and its routing values in its type's range-sharded mappings.
#[derive(Debug, Default)]
pub(crate) struct ItemKeys {
    pub indexes: IndexKeys,
    pub values: RangeValues,
}

/// The keys of `item`, of `entity`, in `definition` (none when the `Db` tracks no hot keys:
/// nothing is spent on them then).
pub(crate) fn item_keys(
    meter: &Meter,
    (definition, entity): (&TableDefinition, EntityType),
    item: Option<&Item>,
) -> ItemKeys {
    let (Some(_), Some(item)) = (&meter.hot, item) else { return ItemKeys::default() };
    ItemKeys { indexes: item_index_keys(definition, item), values: range_values(true, entity, Some(item)) }
}

/// The partition keys of `item` in the global indexes of `definition` it is in.
pub(crate) fn item_index_keys(definition: &TableDefinition, item: &Item) -> IndexKeys {
    definition
        .indexes
        .iter()
        .filter(|index| !index.local)
        .filter_map(|index| Some((index.name, index_partition_key(definition, index.name, item)?)))
        .collect()
}

/// The value of `item`'s attribute `name` (a partition key) as text.
pub(crate) fn partition_key_text(name: &str, item: &Item) -> Option<String> {
    item.get(name).and_then(scalar)
}

/// Counts a write of one item of `entity`: what `consumed` says the table took on
/// `partition_key` (of the table named `table`), and each global index on the item's key in it
/// (from `keys`, with the routing values the units went to); and a throttle for each attempt of
/// it DynamoDB throttled (`throttles`, when the request was watched; else `outcome`, when it is a
/// throttling error), on the key of the table or index its reasons name.
pub(crate) fn count_write(
    meter: &Meter,
    (table, partition_key): (&str, &str),
    entity: &'static str,
    keys: &ItemKeys,
    outcome: Result<Option<&ConsumedCapacity>, &Error>,
    throttles: &Throttles,
) {
    let indexes = &keys.indexes;
    let place = |index: Option<&str>, partition_key: &str| KeyPlace {
        table: table.to_owned(),
        index: index.map(str::to_owned),
        partition_key: partition_key.to_owned(),
    };
    let index_key =
        |index: &str| indexes.iter().find(|(name, _)| *name == index).map(|(_, key)| key.as_str());
    let hot = meter.hot.as_deref();
    if let Ok(Some(consumed)) = outcome {
        let own = consumed.table.as_ref().and_then(|table| table.capacity_units);
        if let Some(units) = own.or(consumed.capacity_units) {
            meter.add((table, None, entity), Kind::Write, units);
            if let Some(tracker) = hot {
                let place = place(None, partition_key);
                tracker.consumed(&place, units);
                count_value(tracker, (&place, None), &keys.values, units);
            }
        }
        for (index, capacity) in consumed.global_secondary_indexes.iter().flatten() {
            let Some(units) = capacity.capacity_units else { continue };
            meter.add((table, Some(index), entity), Kind::Write, units);
            if let (Some(tracker), Some(key)) = (hot, index_key(index)) {
                let place = place(Some(index), key);
                tracker.consumed(&place, units);
                count_value(tracker, (&place, Some(index)), &keys.values, units);
            }
        }
    }
    let Some(tracker) = hot else { return };
    let count = |reasons: &[ThrottlingReason]| {
        let mut counted = false;
        for index in reasons.iter().filter_map(|reason| reason.index()) {
            if let Some(key) = index_key(index) {
                tracker.throttled(&place(Some(index), key));
                counted = true;
            }
        }
        if !counted {
            tracker.throttled(&place(None, partition_key));
        }
    };
    match outcome {
        Err(error) if error.is_throttled() && throttles.is_empty() => count(error.throttling_reasons()),
        _ => throttles.attempts().iter().for_each(|reasons| count(reasons)),
    }
}

/// What DynamoDB charges for a write its condition refused, which no response reports: the
/// stored item's size in write units of 1 KB (`current`, when it returned it), at least one, on
/// the table alone.
pub(crate) fn refused_write(current: Option<&Item>) -> ConsumedCapacity {
    let units = current.map_or(1, |item| crate::item_size::item_size(item).div_ceil(1024).max(1)) as f64;
    ConsumedCapacity::builder()
        .capacity_units(units)
        .table(aws_sdk_dynamodb::types::Capacity::builder().capacity_units(units).build())
        .build()
}

/// The item's partition key in `index`, as stored: its one attribute's value, or the values of
/// a multi-attribute key joined by `#`; `None` when the item is not in the index.
fn index_partition_key(definition: &TableDefinition, index: &str, item: &Item) -> Option<String> {
    let index = definition.indexes.iter().find(|candidate| candidate.name == index)?;
    let values: Option<Vec<String>> =
        index.partition_key.iter().map(|attribute| item.get(attribute.name).and_then(scalar)).collect();
    values.map(|values| values.join("#"))
}

/// A key attribute's value as text: a string or a number as stored, bytes in base64.
fn scalar(value: &AttributeValue) -> Option<String> {
    match value {
        AttributeValue::S(text) => Some(text.clone()),
        AttributeValue::N(number) => Some(number.clone()),
        AttributeValue::B(bytes) => Some(base64::engine::general_purpose::STANDARD.encode(bytes.as_ref())),
        _ => None,
    }
}
