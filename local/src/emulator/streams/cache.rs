//! The records of the endpoint's shards, read once and kept: every served shard cut from one
//! endpoint shard reads its records from here, so that `n` children of a split cost one read of
//! the endpoint's records, not `n` (a child of a stream split 64 ways would otherwise read 64
//! records of the endpoint's for each of its own).

use super::shards::{key_hash, order};
use serde_json::Value;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The most records one `GetRecords` answers.
pub(super) const MOST_RECORDS: usize = 1_000;

/// One record read: its sequence number, its item's [`key_hash`] (once, not once a served
/// shard), and the record as JSON text (written into every page that holds it as it is).
#[derive(Debug)]
pub(crate) struct Read {
    pub sequence: String,
    pub key: u64,
    pub text: Arc<str>,
}

/// The records read so far of one endpoint shard, in its order.
#[derive(Debug, Default)]
pub(crate) struct ReadRecords {
    records: Vec<Read>,
    /// The number of the last pull (as [`Pulls`] numbers them) that read the shard to its end.
    read_to_end_by: u64,
}

/// Numbers the pulls of the endpoint's records, in the order they start.
#[derive(Debug, Default)]
pub(crate) struct Pulls(AtomicU64);

impl Pulls {
    /// The number of the last pull started; a pull numbered above it starts after this call.
    pub fn started(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }

    /// Numbers a pull that starts now.
    pub fn start(&self) -> u64 {
        self.0.fetch_add(1, Ordering::SeqCst) + 1
    }
}

impl ReadRecords {
    /// Records that pull `number` read the shard to its end.
    pub fn read_to_end(&mut self, number: u64) {
        self.read_to_end_by = self.read_to_end_by.max(number);
    }

    /// Whether a pull that started after pull `started` read the shard to its end: every record
    /// written before then is here, so a request that came then needs no pull of its own.
    pub fn read_to_end_since(&self, started: u64) -> bool {
        self.read_to_end_by > started
    }

    /// The records from `at` on.
    pub fn from(&self, at: usize) -> &[Read] {
        self.records.get(at..).unwrap_or_default()
    }

    /// The record at `at`, if there is one.
    pub fn at(&self, at: usize) -> Option<&Read> {
        self.records.get(at)
    }

    /// How many records were read.
    pub fn len(&self) -> usize {
        self.records.len()
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
                let key = key_hash(&record["dynamodb"]["Keys"]);
                let text = Arc::from(record.to_string());
                self.records.push(Read { sequence: sequence.to_owned(), key, text });
            }
        }
    }
}

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
        assert_eq!(read.len(), 3);
        assert_eq!(sequences, ["100", "105", "1000"]);
        assert!(read.from(7).is_empty());
    }

    #[test]
    fn a_read_to_the_end_serves_the_requests_that_came_before_it_started() {
        let (pulls, mut read) = (Pulls::default(), ReadRecords::default());
        let before = pulls.started(); // a request comes
        let number = pulls.start(); // a read of the endpoint starts after it
        let during = pulls.started(); // another request comes while it runs
        assert!(!read.read_to_end_since(before), "nothing read yet");
        read.read_to_end(number);
        assert!(read.read_to_end_since(before));
        assert!(!read.read_to_end_since(during), "a write before `during` may be missing from it");
        read.read_to_end(number - 1); // an earlier read that ended later takes nothing back
        assert!(read.read_to_end_since(before));
    }
}
