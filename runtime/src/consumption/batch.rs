//! Counting what a batch request consumed. DynamoDB reports a batch's units per table and index,
//! not per item: they are shared among the request's items in proportion to what each one
//! costs alone (its size in write units of 1 KB, or read units of 4 KB; a key not found or a
//! delete, one), so the totals are exactly what DynamoDB reported and the keys' shares are
//! estimates. The keys DynamoDB leaves unprocessed count as throttled.

use super::count::{item_index_keys, partition_key_text, IndexKeys, Meter};
use super::routing::{count_value, range_values, EntityType, RangeValues};
use super::totals::Kind;
use super::KeyPlace;
use crate::error::Item;
use crate::item_size::item_size;
use crate::table::TableDefinition;
use aws_sdk_dynamodb::types::{ConsumedCapacity, WriteRequest};

/// The items (or keys) of one batch request, as counting needs them.
pub(crate) struct BatchItems<'a> {
    /// The table's declaration.
    pub definition: &'static TableDefinition,
    /// The table's name.
    pub table: &'a str,
    /// The entity types the items can be of; an item of none of them counts under the first.
    pub entities: &'a [EntityType],
    /// Whether the units are read units (else write units).
    pub kind: Kind,
}

/// What one item of a batch request takes of its units: its entity type, its weight (0: none),
/// its partition key where the units went, its routing values.
#[derive(Clone)]
struct Share {
    entity: EntityType,
    weight: f64,
    key: Option<String>,
    values: RangeValues,
}

/// One item of a batch request: its key attributes (and its index keys, when they are known),
/// what the whole item weighs when the request carried it (`None`: a key not found, a delete),
/// and its entity type when it is known (else its type attribute says).
pub(crate) struct BatchItem<'a> {
    pub item: &'a Item,
    pub bytes: Option<usize>,
    pub entity: Option<EntityType>,
}

impl<'a> BatchItem<'a> {
    /// The item a write puts, or the key it deletes.
    pub(crate) fn of_write(request: &'a WriteRequest) -> Option<Self> {
        match (&request.put_request, &request.delete_request) {
            (Some(put), _) => {
                Some(BatchItem { item: &put.item, bytes: Some(item_size(&put.item)), entity: None })
            }
            (None, Some(delete)) => Some(BatchItem { item: &delete.key, bytes: None, entity: None }),
            (None, None) => None,
        }
    }
}

impl BatchItems<'_> {
    /// Counts what `consumed` reports for a request of `items`: every unit in the totals, and
    /// each item's share on its partition keys and routing values.
    pub(crate) fn count(&self, meter: &Meter, items: &[BatchItem<'_>], consumed: &[ConsumedCapacity]) {
        let Some(consumed) =
            consumed.iter().find(|consumed| consumed.table_name.as_deref() == Some(self.table))
        else {
            return;
        };
        let tracking = meter.hot.is_some();
        let shares: Vec<Share> = items
            .iter()
            .map(|item| Share {
                entity: self.entity_of(item),
                weight: self.weight(item),
                key: None,
                values: range_values(tracking, self.entity_of(item), Some(item.item)),
            })
            .collect();
        let own = consumed.table.as_ref().and_then(|table| table.capacity_units);
        if let Some(units) = own.or(consumed.capacity_units) {
            let keyed = shares.iter().zip(items).map(|(share, item)| Share {
                key: partition_key_text(self.definition.partition_key, item.item),
                ..share.clone()
            });
            self.share(meter, None, units, &keyed.collect::<Vec<_>>());
        }
        let indexes = consumed.global_secondary_indexes.iter().flatten();
        // Which index each item is in, read only when some index took units.
        let in_indexes: Vec<IndexKeys> = match consumed.global_secondary_indexes.as_ref() {
            Some(indexes) if !indexes.is_empty() => {
                items.iter().map(|item| item_index_keys(self.definition, item.item)).collect()
            }
            _ => Vec::new(),
        };
        for (index, capacity) in indexes {
            let Some(units) = capacity.capacity_units else { continue };
            // An item not in the index took none of its units.
            let keyed = shares.iter().zip(&in_indexes).map(|(share, keys)| {
                let key = keys.iter().find(|(name, _)| name == index).map(|(_, key)| key.clone());
                Share { weight: if key.is_some() { share.weight } else { 0.0 }, key, ..share.clone() }
            });
            self.share(meter, Some(index), units, &keyed.collect::<Vec<_>>());
        }
    }

    /// Counts each of `unprocessed` as throttled on its table partition key.
    pub(crate) fn throttled<'i>(&self, meter: &Meter, unprocessed: impl IntoIterator<Item = &'i Item>) {
        let Some(tracker) = &meter.hot else { return };
        for item in unprocessed {
            if let Some(key) = partition_key_text(self.definition.partition_key, item) {
                tracker.throttled(&self.place(None, key));
            }
        }
    }

    /// Shares `units` of `index` (`None`: the table) among items by their weights, each in its
    /// entity's total, on its key and on its routing values there.
    fn share(&self, meter: &Meter, index: Option<&str>, units: f64, shares: &[Share]) {
        let sum: f64 = shares.iter().map(|share| share.weight).sum();
        if sum <= 0.0 {
            let first = shares.first().map(|share| share.entity.name);
            let entity = first.or(self.entities.first().map(|entity| entity.name)).unwrap_or_default();
            meter.add((self.table, index, entity), self.kind, units);
            return;
        }
        for share in shares.iter().filter(|share| share.weight > 0.0) {
            let part = units * share.weight / sum;
            meter.add((self.table, index, share.entity.name), self.kind, part);
            if let (Some(tracker), Some(key)) = (&meter.hot, &share.key) {
                let place = self.place(index, key.clone());
                tracker.consumed(&place, part);
                count_value(tracker, (&place, index), &share.values, part);
            }
        }
    }

    /// What an item costs alone, in units.
    fn weight(&self, item: &BatchItem<'_>) -> f64 {
        let unit = match self.kind {
            Kind::Read => 4096,
            Kind::Write => 1024,
        };
        item.bytes.map_or(1.0, |bytes| bytes.div_ceil(unit).max(1) as f64)
    }

    /// The entity type of `item`: its own, or the one of [`Self::entities`] its type attribute
    /// names.
    fn entity_of(&self, item: &BatchItem<'_>) -> EntityType {
        if let Some(entity) = item.entity {
            return entity;
        }
        let named = item.item.get(self.definition.type_attribute).and_then(|value| value.as_s().ok());
        let known = named.and_then(|name| self.entities.iter().find(|entity| entity.name == name.as_str()));
        known.or(self.entities.first()).copied().unwrap_or(EntityType::named(""))
    }

    fn place(&self, index: Option<&str>, partition_key: String) -> KeyPlace {
        KeyPlace { table: self.table.to_owned(), index: index.map(str::to_owned), partition_key }
    }
}

/// The attributes of `item` that counting reads: its keys in the table and in every index.
pub(crate) fn key_attributes(definition: &TableDefinition, item: &Item) -> Item {
    let table = [definition.partition_key].into_iter().chain(definition.sort_key);
    let indexes = definition
        .indexes
        .iter()
        .flat_map(|index| index.partition_key.iter().chain(index.sort_key).map(|attribute| attribute.name));
    table.chain(indexes).filter_map(|name| Some((name.to_owned(), item.get(name)?.clone()))).collect()
}

/// One action of a transaction, as counting needs it: kept while the request is sent.
pub(crate) struct Action {
    /// The table's name.
    pub table: String,
    /// The table's declaration.
    pub definition: &'static TableDefinition,
    /// The entity type.
    pub entity: EntityType,
    /// Its keys ([`key_attributes`]) and routing attributes, and the size of the item it
    /// carries, if any.
    pub item: (Item, Option<usize>),
}

impl Action {
    /// An action on the item `item` (`whole`: the request carries it, else only its key).
    pub(crate) fn new(
        (table, definition, entity): (&str, &'static TableDefinition, EntityType),
        item: &Item,
        whole: bool,
    ) -> Self {
        let mut keys = key_attributes(definition, item);
        let routing = entity.shards.iter().flat_map(|spec| spec.by.iter());
        keys.extend(routing.filter_map(|name| Some(((*name).to_owned(), item.get(*name)?.clone()))));
        Action { table: table.to_owned(), definition, entity, item: (keys, whole.then(|| item_size(item))) }
    }
}

/// Counts what `consumed` reports for a transaction of `actions`, table by table.
pub(crate) fn count_actions(meter: &Meter, kind: Kind, actions: &[Action], consumed: &[ConsumedCapacity]) {
    let mut tables: Vec<&str> = actions.iter().map(|action| action.table.as_str()).collect();
    tables.sort_unstable();
    tables.dedup();
    for table in tables {
        let mut on_table = actions.iter().filter(|action| action.table == table).peekable();
        let Some(definition) = on_table.peek().map(|action| action.definition) else { continue };
        let items: Vec<BatchItem<'_>> = on_table
            .map(|action| BatchItem {
                item: &action.item.0,
                bytes: action.item.1,
                entity: Some(action.entity),
            })
            .collect();
        BatchItems { definition, table, entities: &[], kind }.count(meter, &items, consumed);
    }
}
