//! The table descriptions the emulator meters by, kept by caller and table, and when each is
//! described again.
//!
//! A table changed past the emulator (straight on the endpoint) is seen again once its
//! description is old: two seconds, or [`COST_SHARE`] times as long as describing it took,
//! whichever is longer. DynamoDB Local and the embedded DynamoDB count a table's items and bytes
//! for every `DescribeTable` (a second or more for a table of a few hundred megabytes), so a
//! large table described every two seconds would keep the endpoint busy with little else.
//!
//! One request describes a table again at a time; the others meter by the description held
//! meanwhile (a burst of requests that all found it old would each describe it, at once).

use super::schema::TableSchema;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a description is used at least.
const LEAST_AGE: Duration = Duration::from_secs(2);

/// A description is used for this many times as long as it took: describing takes at most
/// about one part in this many of the endpoint's time.
pub(crate) const COST_SHARE: u32 = 50;

/// One table's description, as a caller sees it.
#[derive(Debug)]
struct Description {
    schema: Arc<TableSchema>,
    /// When the description was asked for.
    at: Instant,
    /// How long describing it took.
    took: Duration,
    /// Whether a request is describing it again now.
    refreshing: bool,
}

impl Description {
    /// Until when it is used without being described again.
    fn until(&self) -> Instant {
        self.at + LEAST_AGE.max(self.took.saturating_mul(COST_SHARE))
    }
}

/// What a request does for a table's schema.
#[derive(Debug)]
pub(crate) enum Lookup {
    /// Meter by this one.
    Held(Arc<TableSchema>),
    /// Describe the table (none is held, or it is old and nobody else describes it now: this
    /// request was made the one that does). The generation goes to [`Described::keep`].
    Describe { generation: u64 },
}

/// Descriptions by caller (access key and region: DynamoDB Local keeps a database for each)
/// and table name, and the count of tables forgotten, so that a description asked for before
/// a table changed is not kept after.
#[derive(Debug, Default)]
pub(crate) struct Described {
    held: HashMap<(String, String), Description>,
    generation: u64,
}

impl Described {
    /// What a request for `key`'s schema at `now` does.
    pub(crate) fn look_up(&mut self, key: &(String, String), now: Instant) -> Lookup {
        let generation = self.generation;
        match self.held.get_mut(key) {
            Some(held) if held.refreshing || now < held.until() => Lookup::Held(Arc::clone(&held.schema)),
            Some(held) => {
                held.refreshing = true;
                Lookup::Describe { generation }
            }
            None => Lookup::Describe { generation },
        }
    }

    /// Keeps a description asked for at `at` that took `took`, unless a table was forgotten
    /// since the lookup that asked for it.
    pub(crate) fn keep(
        &mut self,
        key: (String, String),
        schema: Arc<TableSchema>,
        generation: u64,
        at: Instant,
        took: Duration,
    ) {
        if generation == self.generation {
            self.held.insert(key, Description { schema, at, took, refreshing: false });
        } else if let Some(held) = self.held.get_mut(&key) {
            held.refreshing = false;
        }
    }

    /// A description failed: the table is described again by the next request.
    pub(crate) fn failed(&mut self, key: &(String, String)) {
        self.held.remove(key);
    }

    /// Forgets `key`'s table (it was created, changed or deleted).
    pub(crate) fn forget(&mut self, key: &(String, String)) {
        self.generation += 1;
        self.held.remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> (String, String) {
        ("AKID/us-east-1".into(), "Music".into())
    }

    fn schema() -> Arc<TableSchema> {
        Arc::new(super::super::schema::tests::schema())
    }

    #[test]
    fn one_request_describes_an_old_description_again_and_the_others_use_it_meanwhile() {
        let mut described = Described::default();
        let start = Instant::now();
        let Lookup::Describe { generation } = described.look_up(&key(), start) else { panic!("none held") };
        described.keep(key(), schema(), generation, start, Duration::from_millis(10));
        assert!(matches!(described.look_up(&key(), start + Duration::from_secs(1)), Lookup::Held(_)));
        let old = start + Duration::from_secs(3);
        assert!(matches!(described.look_up(&key(), old), Lookup::Describe { .. }));
        assert!(matches!(described.look_up(&key(), old), Lookup::Held(_)), "another request describes it");
        described.keep(key(), schema(), generation, old, Duration::from_millis(10));
        assert!(matches!(described.look_up(&key(), old + Duration::from_secs(1)), Lookup::Held(_)));
    }

    #[test]
    fn a_description_that_took_long_is_used_the_longer() {
        let mut described = Described::default();
        let start = Instant::now();
        described.keep(key(), schema(), 0, start, Duration::from_secs(1));
        let later = start + Duration::from_secs(u64::from(COST_SHARE) - 1);
        assert!(matches!(described.look_up(&key(), later), Lookup::Held(_)));
        let old = start + Duration::from_secs(u64::from(COST_SHARE) + 1);
        assert!(matches!(described.look_up(&key(), old), Lookup::Describe { .. }));
    }

    #[test]
    fn a_description_asked_for_before_a_table_changed_is_not_kept() {
        let mut described = Described::default();
        let start = Instant::now();
        let Lookup::Describe { generation } = described.look_up(&key(), start) else { panic!("none held") };
        described.forget(&key());
        described.keep(key(), schema(), generation, start, Duration::ZERO);
        assert!(matches!(described.look_up(&key(), start), Lookup::Describe { .. }));
    }

    #[test]
    fn a_failed_description_is_asked_for_again() {
        let mut described = Described::default();
        let start = Instant::now();
        described.keep(key(), schema(), 0, start, Duration::ZERO);
        let old = start + Duration::from_secs(3);
        assert!(matches!(described.look_up(&key(), old), Lookup::Describe { .. }));
        described.failed(&key());
        assert!(matches!(described.look_up(&key(), old), Lookup::Describe { .. }));
    }
}
