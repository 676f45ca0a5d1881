//! The records of the endpoint's shards, read once and kept: every served shard cut from one
//! endpoint shard reads its records from here, so that `n` children of a split cost one read of
//! the endpoint's records, not `n` (a child of a stream split 64 ways would otherwise read 64
//! records of the endpoint's for each of its own).

use super::shards::{key_text, order};
use serde_json::Value;
use std::collections::HashMap;

/// The most records one `GetRecords` answers.
pub(super) const MOST_RECORDS: usize = 1_000;

/// One record read: its sequence number, its item's key (as [`key_text`] writes it, once, not
/// once a served shard), and the record.
#[derive(Debug)]
pub(crate) struct Read {
    pub sequence: String,
    pub key: String,
    pub record: Value,
}

/// The records read so far of one endpoint shard, in its order.
#[derive(Debug, Default)]
pub(crate) struct ReadRecords {
    records: Vec<Read>,
}

impl ReadRecords {
    /// Where the first record after `after` is (from the first when `None`).
    pub fn first_after(&self, after: Option<&str>) -> usize {
        match after {
            Some(after) => self.records.partition_point(|read| order(&read.sequence, after).is_le()),
            None => 0,
        }
    }

    /// The records from `at` on.
    pub fn from(&self, at: usize) -> &[Read] {
        self.records.get(at..).unwrap_or_default()
    }

    /// The sequence number of the last record read.
    pub fn last(&self) -> Option<&str> {
        self.records.last().map(|read| read.sequence.as_str())
    }

    /// Keeps the records of a page of the endpoint's that follow the last one kept.
    pub fn append(&mut self, page: &[Value]) {
        for record in page {
            let Some(sequence) = record["dynamodb"]["SequenceNumber"].as_str() else { continue };
            if self.last().is_none_or(|last| order(sequence, last).is_gt()) {
                let key = key_text(&record["dynamodb"]["Keys"]);
                self.records.push(Read { sequence: sequence.to_owned(), key, record: record.clone() });
            }
        }
    }
}

/// The records read of every endpoint shard, by stream ARN and shard id.
pub(crate) type Cache = HashMap<(String, String), ReadRecords>;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(sequence: &str) -> Value {
        json!({ "dynamodb": { "SequenceNumber": sequence } })
    }

    #[test]
    fn pages_read_again_keep_each_record_once_in_order() {
        let mut read = ReadRecords::default();
        read.append(&[record("100"), record("105")]);
        read.append(&[record("105"), record("99"), record("1000")]);
        let sequences: Vec<&str> = read.from(0).iter().map(|read| read.sequence.as_str()).collect();
        assert_eq!(sequences, ["100", "105", "1000"]);
        assert_eq!(read.first_after(Some("105")), 2);
        assert_eq!(read.first_after(Some("101")), 1);
        assert_eq!(read.first_after(None), 0);
        assert_eq!(read.first_after(Some("5000")), 3);
        assert!(read.from(7).is_empty());
    }
}
