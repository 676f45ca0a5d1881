//! What the emulator counted: units consumed and requests throttled, per partition and per
//! table or index.

use std::collections::BTreeMap;

/// A partition: one partition key value of a table or of one of its global secondary indexes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PartitionId {
    /// The table.
    pub table: String,
    /// The global secondary index; `None` for the table itself.
    pub index: Option<String>,
    /// The partition key value: a string, a number's text or a binary's base64 (several
    /// attributes of a multi-attribute key joined by `#`).
    pub key: String,
}

/// Units consumed and requests throttled at one partition, table or index.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Consumption {
    /// Read units consumed.
    pub read_units: f64,
    /// Write units consumed.
    pub write_units: f64,
    /// Reads refused for lack of read capacity.
    pub throttled_reads: u64,
    /// Writes refused for lack of write capacity.
    pub throttled_writes: u64,
}

impl Consumption {
    /// Throttled reads and writes.
    pub fn throttled(&self) -> u64 {
        self.throttled_reads + self.throttled_writes
    }
}

/// A snapshot of the emulator's counters ([`crate::emulator::Emulator::usage`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Usage {
    pub(crate) partitions: BTreeMap<PartitionId, Consumption>,
    pub(crate) resources: BTreeMap<(String, Option<String>), Consumption>,
    pub(crate) throttled_requests: u64,
}

impl Usage {
    /// The counters of the partition `key` of `table` (`index: None`) or of one of its indexes;
    /// zero for a partition never used.
    pub fn partition(&self, table: &str, index: Option<&str>, key: &str) -> Consumption {
        let id =
            PartitionId { table: table.to_owned(), index: index.map(str::to_owned), key: key.to_owned() };
        self.partitions.get(&id).copied().unwrap_or_default()
    }

    /// Every partition used, in order of table, index and key.
    pub fn partitions(&self) -> impl Iterator<Item = (&PartitionId, &Consumption)> {
        self.partitions.iter()
    }

    /// The partitions of `table` (`index: None`) or of one of its indexes.
    pub fn partitions_of<'a>(
        &'a self,
        table: &'a str,
        index: Option<&'a str>,
    ) -> impl Iterator<Item = (&'a PartitionId, &'a Consumption)> + 'a {
        self.partitions.iter().filter(move |(id, _)| id.table == table && id.index.as_deref() == index)
    }

    /// The counters of a whole table (`index: None`) or index: all of its partitions, plus
    /// scans.
    pub fn total(&self, table: &str, index: Option<&str>) -> Consumption {
        self.resources.get(&(table.to_owned(), index.map(str::to_owned))).copied().unwrap_or_default()
    }

    /// What was counted since `earlier`, a snapshot taken before this one: each partition's
    /// counters less its counters then (none below zero: counters set back in between count
    /// from zero).
    pub fn since(&self, earlier: &Usage) -> Usage {
        let less = |now: &Consumption, then: Option<&Consumption>| {
            let then = then.copied().unwrap_or_default();
            let units = |now: f64, then: f64| if now >= then { now - then } else { now };
            Consumption {
                read_units: units(now.read_units, then.read_units),
                write_units: units(now.write_units, then.write_units),
                throttled_reads: count_since(now.throttled_reads, then.throttled_reads),
                throttled_writes: count_since(now.throttled_writes, then.throttled_writes),
            }
        };
        let partitions =
            self.partitions.iter().map(|(id, now)| (id.clone(), less(now, earlier.partitions.get(id))));
        let resources =
            self.resources.iter().map(|(id, now)| (id.clone(), less(now, earlier.resources.get(id))));
        Usage {
            partitions: partitions.filter(|(_, used)| *used != Consumption::default()).collect(),
            resources: resources.collect(),
            throttled_requests: count_since(self.throttled_requests, earlier.throttled_requests),
        }
    }

    /// Requests with anything refused: a request refused whole, or a batch with refused
    /// entries (once).
    pub fn throttled_requests(&self) -> u64 {
        self.throttled_requests
    }
}

/// A counter less its earlier value; a counter set back in between counts from zero.
fn count_since(now: u64, then: u64) -> u64 {
    if now >= then {
        now - then
    } else {
        now
    }
}
