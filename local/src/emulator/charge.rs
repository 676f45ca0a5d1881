//! What a request consumes, where: DynamoDB's capacity arithmetic (sans-IO).
//!
//! - A write consumes one write unit per started KB of the item, the larger of its size before
//!   and after; a delete, its size before. At least one unit.
//! - Every global secondary index the write changes is a separate write on the index's own
//!   partition: an entry appearing or disappearing is one write of its size; an entry whose
//!   index key changes is two (the old entry deleted, the new one put, on their own
//!   partitions); an entry whose projected attributes are unchanged costs nothing. Local
//!   secondary indexes work the same, on the table's partition.
//! - A read consumes one read unit per started 4 KB (of an item for `GetItem` and batch gets, of
//!   all items evaluated for a query or scan), at least one, and half of that when eventually
//!   consistent.
//! - Transactions consume twice what the same reads and writes would.
//! - A write whose condition fails still consumes the item's write units, on the table only.

use super::schema::{IndexEntry, TableSchema};
use super::wire::{wire_item_size, WireItem};
use dynashard::throttling::ThrottledOperation;

/// Bytes in one write unit.
pub(crate) const WRITE_UNIT_BYTES: usize = 1024;
/// Bytes in one read unit.
pub(crate) const READ_UNIT_BYTES: usize = 4096;

/// Where capacity is consumed: a partition of a table or index, or the table or index as a whole
/// (`partition: None`, for scans).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Target {
    pub table: String,
    pub index: Option<String>,
    pub arn: String,
    pub partition: Option<String>,
}

/// Units of one kind consumed at one target.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Charge {
    pub target: Target,
    pub operation: ThrottledOperation,
    pub units: f64,
}

/// Write units of an item of `bytes`.
pub(crate) fn write_units(bytes: usize) -> f64 {
    bytes.div_ceil(WRITE_UNIT_BYTES).max(1) as f64
}

/// Read units of `bytes` read in one go.
pub(crate) fn read_units(bytes: usize, consistent: bool) -> f64 {
    let units = bytes.div_ceil(READ_UNIT_BYTES).max(1) as f64;
    if consistent {
        units
    } else {
        units / 2.0
    }
}

impl TableSchema {
    /// A target on the table's partition `partition`.
    pub(crate) fn table_target(&self, partition: Option<String>) -> Target {
        Target { table: self.name.clone(), index: None, arn: self.arn.clone(), partition }
    }

    /// A target on `index` (a global secondary index; a local one targets the table).
    pub(crate) fn index_target(&self, index: &str, partition: Option<String>) -> Target {
        match self.indexes.iter().find(|candidate| candidate.name == index) {
            Some(global) => Target {
                table: self.name.clone(),
                index: Some(global.name.clone()),
                arn: global.arn.clone(),
                partition,
            },
            None => self.table_target(partition),
        }
    }

    /// What writing `new` over `old` (either absent: a put of a new item, a delete) consumes.
    /// `transactional` doubles it.
    pub(crate) fn write_charges(
        &self,
        old: Option<&WireItem>,
        new: Option<&WireItem>,
        transactional: bool,
    ) -> Vec<Charge> {
        let factor = if transactional { 2.0 } else { 1.0 };
        let Some(partition) = new.or(old).and_then(|item| self.key.partition(item)) else {
            return Vec::new();
        };
        let size = old.map_or(0, wire_item_size).max(new.map_or(0, wire_item_size));
        let mut table_units = write_units(size);
        for index in &self.local_indexes {
            let entries =
                (old.and_then(|item| self.entry(index, item)), new.and_then(|item| self.entry(index, item)));
            table_units += entry_writes(entries).iter().map(|(_, units)| units).sum::<f64>();
        }
        let mut charges = vec![Charge {
            target: self.table_target(Some(partition)),
            operation: ThrottledOperation::Write,
            units: table_units * factor,
        }];
        for index in &self.indexes {
            let entries =
                (old.and_then(|item| self.entry(index, item)), new.and_then(|item| self.entry(index, item)));
            for (partition, units) in entry_writes(entries) {
                charges.push(Charge {
                    target: self.index_target(&index.name, Some(partition)),
                    operation: ThrottledOperation::Write,
                    units: units * factor,
                });
            }
        }
        charges
    }

    /// What a write of the item under `key` whose condition failed consumes: the stored item's
    /// units (`old`), at least one, on the table.
    pub(crate) fn failed_write_charges(
        &self,
        key: &WireItem,
        old: Option<&WireItem>,
        transactional: bool,
    ) -> Vec<Charge> {
        let factor = if transactional { 2.0 } else { 1.0 };
        let units = write_units(old.map_or(0, wire_item_size)) * factor;
        let partition = self.key.partition(key);
        vec![Charge { target: self.table_target(partition), operation: ThrottledOperation::Write, units }]
    }

    /// What reading `bytes` from `index` (or the table) in one go consumes, at `partition`
    /// (`None`: spread over the whole table or index, as a scan).
    pub(crate) fn read_charge(
        &self,
        index: Option<&str>,
        partition: Option<String>,
        bytes: usize,
        consistent: bool,
    ) -> Charge {
        let target = match index {
            Some(index) => self.index_target(index, partition),
            None => self.table_target(partition),
        };
        Charge { target, operation: ThrottledOperation::Read, units: read_units(bytes, consistent) }
    }
}

/// The index writes of an entry going from `old` to `new`: partition and units of each.
fn entry_writes((old, new): (Option<IndexEntry<'_>>, Option<IndexEntry<'_>>)) -> Vec<(String, f64)> {
    match (old, new) {
        (None, None) => Vec::new(),
        (Some(gone), None) => vec![(gone.partition, write_units(gone.size))],
        (None, Some(added)) => vec![(added.partition, write_units(added.size))],
        (Some(old), Some(new)) if old.key == new.key => {
            if old.projected == new.projected {
                Vec::new()
            } else {
                vec![(new.partition, write_units(old.size.max(new.size)))]
            }
        }
        (Some(old), Some(new)) => {
            vec![(old.partition, write_units(old.size)), (new.partition, write_units(new.size))]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::schema::tests::schema;
    use super::*;

    fn item(json: &str) -> WireItem {
        serde_json::from_str(json).expect("an item")
    }

    fn summary(charges: &[Charge]) -> Vec<(Option<&str>, Option<&str>, f64)> {
        charges.iter().map(|c| (c.target.index.as_deref(), c.target.partition.as_deref(), c.units)).collect()
    }

    fn padded(pad: usize, extra: &str) -> WireItem {
        item(&format!(r#"{{"pk":{{"S":"p"}},"sk":{{"S":"s"}},"pad":{{"S":"{}"}}{extra}}}"#, "x".repeat(pad)))
    }

    #[test]
    fn units_round_up() {
        assert_eq!(write_units(0), 1.0);
        assert_eq!(write_units(1024), 1.0);
        assert_eq!(write_units(1025), 2.0);
        assert_eq!(read_units(1, true), 1.0);
        assert_eq!(read_units(4096, false), 0.5);
        assert_eq!(read_units(4097, true), 2.0);
        assert_eq!(read_units(4097, false), 1.0);
    }

    #[test]
    fn a_write_costs_the_larger_of_before_and_after() {
        let schema = schema();
        // 2 + 1 + 2 + 1 + 3 + pad bytes: 1,024 with a pad of 1,015.
        let small = padded(1_015, "");
        let large = padded(2_500, "");
        assert_eq!(summary(&schema.write_charges(None, Some(&small), false)), [(None, Some("p"), 1.0)]);
        assert_eq!(
            summary(&schema.write_charges(None, Some(&padded(1_016, "")), false)),
            [(None, Some("p"), 2.0)]
        );
        assert_eq!(
            summary(&schema.write_charges(Some(&large), Some(&small), false)),
            [(None, Some("p"), 3.0)]
        );
        assert_eq!(summary(&schema.write_charges(Some(&large), None, false)), [(None, Some("p"), 3.0)]);
        assert_eq!(
            summary(&schema.write_charges(None, Some(&small), true)),
            [(None, Some("p"), 2.0)],
            "transactions double"
        );
    }

    #[test]
    fn every_index_the_item_is_in_is_a_write_on_its_own_partition() {
        let schema = schema();
        let new = padded(10, r#","gpk":{"S":"hot"},"gsk":{"S":"1"},"kpk":{"S":"k"}"#);
        assert_eq!(
            summary(&schema.write_charges(None, Some(&new), false)),
            [(None, Some("p"), 1.0), (Some("G"), Some("hot"), 1.0), (Some("K"), Some("k"), 1.0)]
        );
        assert_eq!(
            summary(&schema.write_charges(None, Some(&new), true)),
            [(None, Some("p"), 2.0), (Some("G"), Some("hot"), 2.0), (Some("K"), Some("k"), 2.0)]
        );
    }

    #[test]
    fn moving_an_index_key_is_a_delete_and_a_put() {
        let schema = schema();
        let old = padded(10, r#","gpk":{"S":"a"},"gsk":{"S":"1"}"#);
        let moved = padded(10, r#","gpk":{"S":"b"},"gsk":{"S":"1"}"#);
        assert_eq!(
            summary(&schema.write_charges(Some(&old), Some(&moved), false)),
            [(None, Some("p"), 1.0), (Some("G"), Some("a"), 1.0), (Some("G"), Some("b"), 1.0)]
        );
    }

    #[test]
    fn unprojected_changes_do_not_write_the_index() {
        let schema = schema();
        let old = padded(10, r#","kpk":{"S":"k"}"#);
        let changed = padded(20, r#","kpk":{"S":"k"}"#);
        assert_eq!(
            summary(&schema.write_charges(Some(&old), Some(&changed), false)),
            [(None, Some("p"), 1.0)]
        );
        let removed = padded(10, "");
        assert_eq!(
            summary(&schema.write_charges(Some(&old), Some(&removed), false)),
            [(None, Some("p"), 1.0), (Some("K"), Some("k"), 1.0)],
            "leaving a sparse index is a delete there"
        );
    }

    #[test]
    fn failed_conditions_and_reads() {
        let schema = schema();
        let key = item(r#"{"pk":{"S":"p"},"sk":{"S":"s"}}"#);
        assert_eq!(summary(&schema.failed_write_charges(&key, None, false)), [(None, Some("p"), 1.0)]);
        assert_eq!(
            summary(&schema.failed_write_charges(&key, Some(&padded(3_000, "")), true)),
            [(None, Some("p"), 6.0)]
        );
        let read = schema.read_charge(Some("G"), Some("hot".into()), 9_000, false);
        assert_eq!(
            (read.target.arn.as_str(), read.units),
            ("arn:aws:dynamodb:ddblocal:000000000000:table/T/index/G", 1.5)
        );
        assert_eq!(schema.read_charge(Some("K"), None, 100, true).target.index.as_deref(), Some("K"));
    }
}
