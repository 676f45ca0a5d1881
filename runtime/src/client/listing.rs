//! A table's stream as the Streams API lists it: its shards, and the last listing of each
//! table's stream a `Db` keeps for its change feeds (which list again only when a listing could
//! miss a shard: see the change feed's `listing` module).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// A shard as the stream lists it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ListedShard {
    pub id: String,
    pub parent: Option<String>,
    /// The sequence number of its last record, when the stream lists one: the stream closed it
    /// (it holds no more records than it holds now).
    pub ending: Option<String>,
}

impl ListedShard {
    /// Whether the stream closed it.
    pub fn closed(&self) -> bool {
        self.ending.is_some()
    }

    /// Whether a reader whose last record is `position` has read the shard to the end the
    /// stream listed. DynamoDB then answers that the shard ended; a stream that lists an end
    /// for a shard it still writes to (an emulator's one shard) answers empty pages instead.
    pub fn read_to_listed_end(&self, position: Option<&str>) -> bool {
        match (&self.ending, position) {
            (Some(ending), Some(position)) => sequence_order(position, ending).is_ge(),
            _ => false,
        }
    }
}

/// The order of two stream sequence numbers: decimal numbers of any length.
fn sequence_order(a: &str, b: &str) -> std::cmp::Ordering {
    let digits = |s: &str| s.trim_start_matches('0').to_owned();
    let (a, b) = (digits(a), digits(b));
    a.len().cmp(&b.len()).then_with(|| a.cmp(&b))
}

/// One listing of a table's stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Listing {
    /// The stream listed.
    pub arn: String,
    /// Its shards, oldest first as listed.
    pub shards: Vec<ListedShard>,
}

/// The last listing of each table's stream, by table name, shared by a `Db`'s clones.
#[derive(Debug, Default)]
pub(crate) struct StreamListings {
    by_table: Mutex<HashMap<String, Arc<Listing>>>,
}

impl StreamListings {
    /// The listing kept of `table`'s stream, if it is of the stream `arn`.
    pub(crate) fn get(&self, table: &str, arn: &str) -> Option<Arc<Listing>> {
        let kept = self.by_table.lock().unwrap_or_else(PoisonError::into_inner);
        kept.get(table).filter(|listing| listing.arn == arn).cloned()
    }

    pub(crate) fn keep(&self, table: &str, listing: Arc<Listing>) {
        self.by_table.lock().unwrap_or_else(PoisonError::into_inner).insert(table.to_owned(), listing);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shard(id: &str, parent: Option<&str>) -> ListedShard {
        ListedShard { id: id.into(), parent: parent.map(str::to_owned), ..ListedShard::default() }
    }

    #[test]
    fn sequence_numbers_order_as_numbers_and_a_read_past_the_listed_end_is_at_it() {
        use std::cmp::Ordering::{Equal, Greater, Less};
        assert_eq!(sequence_order("9", "10"), Less);
        assert_eq!(sequence_order("000000000000000000100", "100"), Equal);
        assert_eq!(sequence_order("4000000000000000000001", "399999999999999999999"), Greater);
        let closed = ListedShard { ending: Some("120".into()), ..shard("a", None) };
        assert!(closed.closed() && !shard("a", None).closed());
        assert!(!closed.read_to_listed_end(Some("119")));
        assert!(closed.read_to_listed_end(Some("120")) && closed.read_to_listed_end(Some("121")));
        assert!(!closed.read_to_listed_end(None), "a reader at the start has read nothing");
        assert!(!shard("a", None).read_to_listed_end(Some("5")), "an open shard lists no end");
    }
}
