//! A page of a served shard, sans I/O: its records among those the emulator keeps of the
//! endpoint's. A child of a split holds a share of them; its page is filled to the `Limit` asked
//! for (or to the endpoint's last record now), as DynamoDB fills a page of a shard with that
//! shard's records. Each kept record is looked at once a served shard ([`Held`]), so a page
//! costs what it holds, not what the endpoint's shard holds (a child of a stream split 256 ways
//! would otherwise look at 256 records for each of its own).

use super::cache::ReadRecords;
use super::shards::{order, ServedShard};
use std::sync::Arc;

/// Why a served page stopped where it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stop {
    /// It holds `Limit` records.
    Full,
    /// The endpoint's shard holds no more records now.
    AtEnd,
    /// The served shard ended: a record past its end was seen, or it was closed by a split and
    /// the endpoint holds no more of its records.
    Ended,
}

/// Where one served shard's records are among those kept of its endpoint shard, as far as they
/// were looked at.
#[derive(Debug, Default)]
pub(crate) struct Held {
    /// The positions of its records among those kept, ascending.
    at: Vec<usize>,
    /// How many of the kept records were looked at.
    looked: usize,
    /// Whether a record past its end was seen: none after it is the shard's.
    ended: bool,
}

impl Held {
    /// Looks at the records kept since the last look.
    fn look(&mut self, shard: &ServedShard, read: &ReadRecords) {
        if self.ended {
            return;
        }
        for (offset, record) in read.from(self.looked).iter().enumerate() {
            if shard.past_end(&record.sequence) {
                self.ended = true;
                return;
            }
            if shard.holds(&record.sequence, record.key) {
                self.at.push(self.looked + offset);
            }
        }
        self.looked = read.len();
    }
}

/// Keeps the records `shard` holds after `position` among those read, up to `limit` in all;
/// `position` moves to the last record looked at. `Some`: the page stops there.
pub(super) fn keep(
    shard: &ServedShard,
    held: &mut Held,
    read: &ReadRecords,
    limit: usize,
    kept: &mut Vec<Arc<str>>,
    position: &mut Option<String>,
) -> Option<Stop> {
    held.look(shard, read);
    let after = |at: &usize| {
        let sequence = read.at(*at).map(|record| record.sequence.as_str()).unwrap_or_default();
        position.as_deref().is_none_or(|position| order(sequence, position).is_gt())
    };
    let start = held.at.partition_point(|at| !after(at));
    for record in held.at[start..].iter().filter_map(|at| read.at(*at)) {
        *position = Some(record.sequence.clone());
        kept.push(Arc::clone(&record.text));
        if kept.len() >= limit {
            return Some(Stop::Full);
        }
    }
    if held.ended {
        return Some(Stop::Ended);
    }
    // Every record kept was looked at and none past the end: the page has read up to the last.
    if let Some(last) = read.last() {
        if position.as_deref().is_none_or(|position| order(last, position).is_gt()) {
            *position = Some(last.to_owned());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emulator::streams::shards::{EndpointShard, ServedStream};
    use serde_json::json;

    fn record(sequence: u32, item: u32) -> serde_json::Value {
        json!({ "dynamodb": { "SequenceNumber": sequence.to_string(), "Keys": { "pk": { "S": format!("item {item}") } } } })
    }

    /// Reads `shard` page after page of `limit`, as a reader does, until a page stops short.
    fn pages(shard: &ServedShard, read: &ReadRecords, limit: usize) -> (Vec<Vec<String>>, Stop) {
        let (mut held, mut position, mut pages) = (Held::default(), None, Vec::new());
        loop {
            let mut kept = Vec::new();
            let stop = keep(shard, &mut held, read, limit, &mut kept, &mut position);
            pages.push(kept.iter().map(|text| text.to_string()).collect());
            if stop != Some(Stop::Full) {
                return (pages, stop.unwrap_or(Stop::AtEnd));
            }
        }
    }

    #[test]
    fn the_children_of_a_split_page_through_their_own_records_once_each() {
        let mut stream = ServedStream::default();
        stream.sync(&[EndpointShard { id: "a".into(), parent: None, starting: "1".into() }]);
        stream.split("a", "100", 8);
        stream.split("a", "900", 1); // every child closes at 900: its children hold the rest
        let mut read = ReadRecords::default();
        read.append(&(1..=1_000).map(|sequence| record(sequence, sequence % 97)).collect::<Vec<_>>());
        let children: Vec<ServedShard> =
            stream.shards.iter().filter(|shard| shard.parent.as_deref() == Some("a")).cloned().collect();
        assert_eq!(children.len(), 8);
        let mut seen = std::collections::HashSet::new();
        for child in &children {
            let (pages, stop) = pages(child, &read, 7);
            assert_eq!(stop, Stop::Ended, "closed at 900, and a record past it was seen");
            assert!(pages[..pages.len() - 1].iter().all(|page| page.len() == 7), "full pages but the last");
            for text in pages.into_iter().flatten() {
                let record: serde_json::Value = serde_json::from_str(&text).expect("a record");
                let sequence: u32 = record["dynamodb"]["SequenceNumber"]
                    .as_str()
                    .and_then(|s| s.parse().ok())
                    .expect("a number");
                assert!((101..=900).contains(&sequence), "{sequence}");
                assert!(seen.insert(sequence), "{sequence} in two pages or two children");
            }
        }
        assert_eq!(seen.len(), 800, "every record after the split and up to the next, once");
    }

    #[test]
    fn an_open_shard_reads_on_as_records_are_kept() {
        let mut stream = ServedStream::default();
        stream.sync(&[EndpointShard { id: "a".into(), parent: None, starting: "1".into() }]);
        let shard = stream.find("a").cloned().expect("the shard");
        let mut read = ReadRecords::default();
        read.append(&[record(1, 1), record(2, 2)]);
        let (mut held, mut position, mut kept) = (Held::default(), None, Vec::new());
        assert_eq!(keep(&shard, &mut held, &read, 10, &mut kept, &mut position), None);
        assert_eq!((kept.len(), position.as_deref()), (2, Some("2")));
        read.append(&[record(3, 3)]);
        kept.clear();
        assert_eq!(keep(&shard, &mut held, &read, 10, &mut kept, &mut position), None);
        assert_eq!((kept.len(), position.as_deref()), (1, Some("3")), "only the record kept since");
    }
}
