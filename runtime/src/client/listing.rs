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
///
/// Listings of a table's stream are made one at a time in the process, and numbered in the
/// order they begin, so that a pass that needs a listing newer than what it read before can
/// take one that began after it asked (see the change feed's `listing` module).
#[derive(Debug, Default)]
pub(crate) struct StreamListings {
    kept: Mutex<Kept>,
    /// The lock each table's listings are made under.
    one_at_a_time: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

/// The listings kept, with the number each began as, and how many began.
#[derive(Debug, Default)]
struct Kept {
    by_table: HashMap<String, (u64, Arc<Listing>)>,
    begun: u64,
}

impl StreamListings {
    fn kept(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The listing kept of `table`'s stream, if it is of the stream `arn`.
    pub(crate) fn get(&self, table: &str, arn: &str) -> Option<Arc<Listing>> {
        let kept = self.kept();
        kept.by_table.get(table).filter(|(_, listing)| listing.arn == arn).map(|(_, listing)| listing.clone())
    }

    /// How many listings began so far.
    pub(crate) fn begun(&self) -> u64 {
        self.kept().begun
    }

    /// The listing kept of `table`'s stream if it began after `begun` listings had.
    pub(crate) fn begun_after(&self, table: &str, begun: u64) -> Option<Arc<Listing>> {
        let kept = self.kept();
        kept.by_table.get(table).filter(|(number, _)| *number > begun).map(|(_, listing)| listing.clone())
    }

    /// Numbers a listing that begins now.
    pub(crate) fn begin(&self) -> u64 {
        let mut kept = self.kept();
        kept.begun += 1;
        kept.begun
    }

    /// Keeps `listing`, begun as `number`, unless one that began later is kept.
    pub(crate) fn keep(&self, table: &str, listing: Arc<Listing>, number: u64) {
        let mut kept = self.kept();
        let entry = kept.by_table.entry(table.to_owned()).or_insert_with(|| (number, listing.clone()));
        if entry.0 <= number {
            *entry = (number, listing);
        }
    }

    /// The lock a listing of `table`'s stream is made under.
    pub(crate) fn one_at_a_time(&self, table: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = self.one_at_a_time.lock().unwrap_or_else(PoisonError::into_inner);
        locks.entry(table.to_owned()).or_default().clone()
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

    #[test]
    fn a_listing_is_taken_as_newer_only_when_it_began_after_the_count_asked_at() {
        let listings = StreamListings::default();
        let listing = |arn: &str| Arc::new(Listing { arn: arn.into(), shards: vec![shard(arn, None)] });
        let asked = listings.begun();
        assert!(listings.begun_after("t", asked).is_none());
        let first = listings.begin();
        let later = listings.begin();
        listings.keep("t", listing("later"), later);
        listings.keep("t", listing("first"), first);
        assert_eq!(
            listings.get("t", "later").map(|kept| kept.arn.clone()).as_deref(),
            Some("later"),
            "the later kept"
        );
        assert!(listings.get("t", "first").is_none() && listings.get("u", "later").is_none());
        assert!(listings.begun_after("t", asked).is_some(), "began after the count asked");
        assert!(listings.begun_after("t", later).is_none(), "not after itself");
        assert!(listings.begun_after("u", asked).is_none(), "another table's");
    }
}
