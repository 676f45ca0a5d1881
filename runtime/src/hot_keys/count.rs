//! Counting what DynamoDB charged, and what it throttled, against the partition keys a request
//! went to.

use super::{KeyPlace, Tracker};
use crate::error::{Error, Item};
use crate::table::TableDefinition;
use aws_sdk_dynamodb::types::{AttributeValue, ConsumedCapacity};
use base64::Engine;

/// Counts in `hot` (when a `Db` tracks hot keys) a read of one partition: `units` charged on `partition_key` of `index` (`None`: the
/// table) of the table named `table`, or a throttle when `outcome` is a throttling error.
pub(crate) fn count_read(
    hot: Option<&Tracker>,
    (table, index, partition_key): (&str, Option<&str>, &str),
    outcome: Result<f64, &Error>,
) {
    let Some(tracker) = hot else { return };
    let place = || KeyPlace {
        table: table.to_owned(),
        index: index.map(str::to_owned),
        partition_key: partition_key.to_owned(),
    };
    match outcome {
        Ok(units) if units > 0.0 => tracker.consumed(&place(), units),
        Ok(_) => {}
        Err(error) if error.is_throttled() => tracker.throttled(&place()),
        Err(_) => {}
    }
}

/// The partition keys of an item in the global indexes it is in, by index name.
pub(crate) type IndexKeys = Vec<(&'static str, String)>;

/// The partition keys of `item` in the global indexes of `definition` it is in (none when the
/// `Db` tracks no hot keys, `hot` being `None`: nothing is spent on them then).
pub(crate) fn index_keys(
    hot: Option<&Tracker>,
    definition: &TableDefinition,
    item: Option<&Item>,
) -> IndexKeys {
    let (Some(_), Some(item)) = (hot, item) else { return IndexKeys::new() };
    definition
        .indexes
        .iter()
        .filter(|index| !index.local)
        .filter_map(|index| Some((index.name, index_partition_key(definition, index.name, item)?)))
        .collect()
}

/// Counts in `hot` (when a `Db` tracks hot keys) a write of one item: what `consumed` says the table took on `partition_key` (of the
/// table named `table`), and each global index on the item's key in it (`indexes`, from
/// [`index_keys`]); or a throttle on the key of the table or index that `outcome`'s reasons
/// name.
pub(crate) fn count_write(
    hot: Option<&Tracker>,
    (table, partition_key): (&str, &str),
    indexes: &IndexKeys,
    outcome: Result<Option<&ConsumedCapacity>, &Error>,
) {
    let Some(tracker) = hot else { return };
    let place = |index: Option<&str>, partition_key: &str| KeyPlace {
        table: table.to_owned(),
        index: index.map(str::to_owned),
        partition_key: partition_key.to_owned(),
    };
    let index_key =
        |index: &str| indexes.iter().find(|(name, _)| *name == index).map(|(_, key)| key.as_str());
    match outcome {
        Ok(Some(consumed)) => {
            let own = consumed.table.as_ref().and_then(|table| table.capacity_units);
            if let Some(units) = own.or(consumed.capacity_units) {
                tracker.consumed(&place(None, partition_key), units);
            }
            for (index, capacity) in consumed.global_secondary_indexes.iter().flatten() {
                if let (Some(units), Some(key)) = (capacity.capacity_units, index_key(index)) {
                    tracker.consumed(&place(Some(index), key), units);
                }
            }
        }
        Ok(None) => {}
        Err(error) if error.is_throttled() => {
            let mut counted = false;
            for index in error.throttling_reasons().iter().filter_map(|reason| reason.index()) {
                if let Some(key) = index_key(index) {
                    tracker.throttled(&place(Some(index), key));
                    counted = true;
                }
            }
            if !counted {
                tracker.throttled(&place(None, partition_key));
            }
        }
        Err(_) => {}
    }
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
