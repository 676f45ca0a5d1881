//! A page of a served shard, sans I/O: its records among those the emulator keeps of the
//! endpoint's. A child of a split holds a share of them; its page is filled to the `Limit` asked
//! for (or to the endpoint's last record now), as DynamoDB fills a page of a shard with that
//! shard's records.

use super::cache::ReadRecords;
use super::shards::ServedShard;
use serde_json::Value;

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

/// Keeps the records `shard` holds after `position` among those read, up to `limit` in all;
/// `position` moves to the last record looked at. `Some`: the page stops there.
pub(super) fn keep(
    shard: &ServedShard,
    read: &ReadRecords,
    limit: usize,
    kept: &mut Vec<Value>,
    position: &mut Option<String>,
) -> Option<Stop> {
    let start = read.first_after(position.as_deref());
    for read in read.from(start) {
        if shard.past_end(&read.sequence) {
            return Some(Stop::Ended);
        }
        *position = Some(read.sequence.clone());
        if shard.holds(&read.sequence, read.key) {
            kept.push(read.record.clone());
            if kept.len() >= limit {
                return Some(Stop::Full);
            }
        }
    }
    None
}
