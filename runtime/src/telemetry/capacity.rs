//! The `aws.dynamodb.consumed_capacity` attribute: a JSON array of DynamoDB's own
//! `ConsumedCapacity` objects, one per table, made from a response's or from what a piece of
//! work counted.

use crate::consumption::Consumed;
use crate::table::TableDefinition;
use aws_sdk_dynamodb::types::{Capacity, ConsumedCapacity};
use serde::Serialize;
use std::collections::BTreeMap;

/// Units on one table or index, as DynamoDB's `Capacity`.
#[derive(Serialize, Default, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "PascalCase")]
pub(crate) struct Units {
    pub capacity_units: f64,
    #[serde(skip_serializing_if = "is_zero")]
    pub read_capacity_units: f64,
    #[serde(skip_serializing_if = "is_zero")]
    pub write_capacity_units: f64,
}

/// What one table consumed, as DynamoDB's `ConsumedCapacity`.
#[derive(Serialize, Default, Debug, Clone, PartialEq)]
#[serde(rename_all = "PascalCase")]
pub(crate) struct TableCapacity {
    pub table_name: String,
    pub capacity_units: f64,
    #[serde(skip_serializing_if = "is_zero")]
    pub read_capacity_units: f64,
    #[serde(skip_serializing_if = "is_zero")]
    pub write_capacity_units: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<Units>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub global_secondary_indexes: BTreeMap<String, Units>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub local_secondary_indexes: BTreeMap<String, Units>,
}

fn is_zero(units: &f64) -> bool {
    *units == 0.0
}

impl From<&Capacity> for Units {
    fn from(capacity: &Capacity) -> Self {
        Units {
            capacity_units: capacity.capacity_units.unwrap_or_default(),
            read_capacity_units: capacity.read_capacity_units.unwrap_or_default(),
            write_capacity_units: capacity.write_capacity_units.unwrap_or_default(),
        }
    }
}

impl From<&ConsumedCapacity> for TableCapacity {
    fn from(consumed: &ConsumedCapacity) -> Self {
        let indexes = |map: Option<&std::collections::HashMap<String, Capacity>>| {
            map.into_iter().flatten().map(|(name, capacity)| (name.clone(), Units::from(capacity))).collect()
        };
        TableCapacity {
            table_name: consumed.table_name.clone().unwrap_or_default(),
            capacity_units: consumed.capacity_units.unwrap_or_default(),
            read_capacity_units: consumed.read_capacity_units.unwrap_or_default(),
            write_capacity_units: consumed.write_capacity_units.unwrap_or_default(),
            table: consumed.table.as_ref().map(Units::from),
            global_secondary_indexes: indexes(consumed.global_secondary_indexes.as_ref()),
            local_secondary_indexes: indexes(consumed.local_secondary_indexes.as_ref()),
        }
    }
}

/// The attribute's value for what a response reported.
pub(crate) fn of_responses<'a>(consumed: impl IntoIterator<Item = &'a ConsumedCapacity>) -> String {
    to_json(consumed.into_iter().map(TableCapacity::from).collect())
}

/// The attribute's value for what a piece of work counted, by table; an index `definition`
/// declares local is listed as local, any other as global.
pub(crate) fn of_counted(consumed: &[Consumed], definition: Option<&TableDefinition>) -> String {
    let local = |index: &str| {
        definition.is_some_and(|table| table.indexes.iter().any(|known| known.name == index && known.local))
    };
    let mut tables: BTreeMap<&str, TableCapacity> = BTreeMap::new();
    for consumed in consumed {
        let table = tables.entry(consumed.table.as_str()).or_insert_with(|| TableCapacity {
            table_name: consumed.table.clone(),
            ..TableCapacity::default()
        });
        let units = consumed.read_units + consumed.write_units;
        table.capacity_units += units;
        table.read_capacity_units += consumed.read_units;
        table.write_capacity_units += consumed.write_units;
        let place = match consumed.index.as_deref() {
            None => table.table.get_or_insert_with(Units::default),
            Some(index) if local(index) => table.local_secondary_indexes.entry(index.to_owned()).or_default(),
            Some(index) => table.global_secondary_indexes.entry(index.to_owned()).or_default(),
        };
        place.capacity_units += units;
        place.read_capacity_units += consumed.read_units;
        place.write_capacity_units += consumed.write_units;
    }
    to_json(tables.into_values().collect())
}

fn to_json(tables: Vec<TableCapacity>) -> String {
    serde_json::to_string(&tables).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_was_counted_reads_as_dynamodb_reports_it() {
        let counted = |index: Option<&str>, read_units, write_units| Consumed {
            table: "Music".into(),
            index: index.map(Into::into),
            entity: "Song",
            read_units,
            write_units,
        };
        let json = of_counted(&[counted(None, 0.5, 2.0), counted(Some("ByArtist"), 0.0, 1.0)], None);
        assert_eq!(
            json,
            r#"[{"TableName":"Music","CapacityUnits":3.5,"ReadCapacityUnits":0.5,"WriteCapacityUnits":3.0,"Table":{"CapacityUnits":2.5,"ReadCapacityUnits":0.5,"WriteCapacityUnits":2.0},"GlobalSecondaryIndexes":{"ByArtist":{"CapacityUnits":1.0,"WriteCapacityUnits":1.0}}}]"#
        );
        let reported = ConsumedCapacity::builder().table_name("Music").capacity_units(1.5).build();
        assert_eq!(of_responses([&reported]), r#"[{"TableName":"Music","CapacityUnits":1.5}]"#);
        assert_eq!(of_counted(&[], None), "[]");
    }
}
