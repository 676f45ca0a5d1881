//! Which tables and indexes were lately at a limit of their whole (provisioned capacity, an
//! on-demand maximum, the account's quota). While one is, a partition of it over its limit is not
//! what caps the writes: the whole would refuse more writes however many shards there were, so
//! no count of it grows.

use crate::throttling::{ThrottleLimit, ThrottledOperation, ThrottlingReason};
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// When each table (`None`) or index was last throttled by a write limit of its whole.
#[derive(Debug, Default)]
pub(crate) struct Caps {
    seen: Mutex<HashMap<(String, Option<String>), Instant>>,
}

impl Caps {
    /// Records the whole-resource write limits among `reasons`, as seen at `now`.
    pub(crate) fn note(&self, reasons: &[ThrottlingReason], now: Instant) {
        for reason in reasons {
            let Some(kind) = reason.kind() else { continue };
            if kind.limit == ThrottleLimit::KeyRange || kind.operation != ThrottledOperation::Write {
                continue;
            }
            let Some(table) = reason.table() else { continue };
            self.lock().insert((table.to_owned(), reason.index().map(str::to_owned)), now);
        }
    }

    /// Whether `table`, or its index `index`, was at a limit of its whole within `window`
    /// before `now`.
    pub(crate) fn capped(&self, table: &str, index: &str, window: Duration, now: Instant) -> bool {
        let seen = self.lock();
        [(table.to_owned(), None), (table.to_owned(), Some(index.to_owned()))]
            .iter()
            .filter_map(|resource| seen.get(resource))
            .any(|at| now.saturating_duration_since(*at) < window)
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<(String, Option<String>), Instant>> {
        // Entries are replaced whole: a panic elsewhere leaves a usable map.
        self.seen.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::throttling::ThrottleKind;

    fn throttled(name: &str, arn: &str) -> Error {
        let reason = ThrottlingReason::new(ThrottleKind::parse(name).expect("a known reason"), arn);
        Error::Throttled {
            operation: "PutItem",
            code: "ProvisionedThroughputExceededException".into(),
            message: String::new(),
            reasons: vec![reason],
            source: "throttled".into(),
        }
    }

    #[test]
    fn a_capped_table_caps_its_indexes_for_a_while() {
        let caps = Caps::default();
        let start = Instant::now();
        let window = Duration::from_secs(10);
        caps.note(
            throttled("TableWriteProvisionedThroughputExceeded", "arn:aws:dynamodb:r:1:table/Audit")
                .throttling_reasons(),
            start,
        );
        assert!(caps.capped("Audit", "ByFile", window, start + Duration::from_secs(9)));
        assert!(!caps.capped("Audit", "ByFile", window, start + Duration::from_secs(11)), "it passes");
        assert!(!caps.capped("Other", "ByFile", window, start), "other tables are not capped");
    }

    #[test]
    fn a_capped_index_caps_only_itself_and_key_ranges_cap_nothing() {
        let caps = Caps::default();
        let now = Instant::now();
        let window = Duration::from_secs(10);
        let index = "arn:aws:dynamodb:r:1:table/Audit/index/ByUser";
        caps.note(throttled("IndexWriteMaxOnDemandThroughputExceeded", index).throttling_reasons(), now);
        assert!(caps.capped("Audit", "ByUser", window, now));
        assert!(!caps.capped("Audit", "ByFile", window, now));
        let hot = "arn:aws:dynamodb:r:1:table/Audit/index/ByFile";
        caps.note(throttled("IndexWriteKeyRangeThroughputExceeded", hot).throttling_reasons(), now);
        caps.note(
            throttled("TableReadProvisionedThroughputExceeded", "arn:aws:dynamodb:r:1:table/Audit")
                .throttling_reasons(),
            now,
        );
        assert!(!caps.capped("Audit", "ByFile", window, now), "hot partitions and read limits cap no writes");
    }
}
