//! Counters of the faults an injector has injected.

use std::collections::BTreeMap;

/// What the injector saw and did for one operation (or, from [`FaultStats::total`], for all).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct OperationStats {
    /// Attempts that passed through the injector, whether or not a fault was injected (each
    /// SDK retry is an attempt of its own).
    pub attempts: u64,
    /// Attempts answered with `ProvisionedThroughputExceededException`.
    pub throttled: u64,
    /// Attempts answered with HTTP 500 `InternalServerError`.
    pub server_errors: u64,
    /// Batch attempts that got part of their request back as unprocessed.
    pub unprocessed: u64,
    /// Write requests (`BatchWriteItem`) or keys (`BatchGetItem`) returned as unprocessed.
    pub unprocessed_entries: u64,
}

impl OperationStats {
    /// Attempts that got any fault: throttled, server errors and unprocessed together.
    pub fn faults(&self) -> u64 {
        self.throttled + self.server_errors + self.unprocessed
    }

    fn add(&mut self, other: &OperationStats) {
        self.attempts += other.attempts;
        self.throttled += other.throttled;
        self.server_errors += other.server_errors;
        self.unprocessed += other.unprocessed;
        self.unprocessed_entries += other.unprocessed_entries;
    }
}

/// A snapshot of an injector's counters, per operation name (`PutItem`, `BatchWriteItem`, ...).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FaultStats {
    operations: BTreeMap<String, OperationStats>,
}

impl FaultStats {
    /// The counters of one operation (all zero when it was never seen).
    pub fn operation(&self, name: &str) -> OperationStats {
        self.operations.get(name).copied().unwrap_or_default()
    }

    /// Every operation seen, in name order, with its counters.
    pub fn operations(&self) -> impl Iterator<Item = (&str, &OperationStats)> {
        self.operations.iter().map(|(name, stats)| (name.as_str(), stats))
    }

    /// The counters of all operations added up.
    pub fn total(&self) -> OperationStats {
        let mut total = OperationStats::default();
        self.operations.values().for_each(|stats| total.add(stats));
        total
    }

    /// The counters of `operation`, created at zero on first use.
    pub(crate) fn entry(&mut self, operation: &str) -> &mut OperationStats {
        self.operations.entry(operation.to_owned()).or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_add_up_and_unknown_operations_are_zero() {
        let mut stats = FaultStats::default();
        stats.entry("PutItem").attempts = 3;
        stats.entry("PutItem").throttled = 1;
        let batch = stats.entry("BatchWriteItem");
        batch.attempts = 2;
        batch.unprocessed = 1;
        batch.unprocessed_entries = 4;
        assert_eq!(stats.operation("GetItem"), OperationStats::default());
        let total = stats.total();
        assert_eq!((total.attempts, total.faults(), total.unprocessed_entries), (5, 2, 4));
        let names: Vec<&str> = stats.operations().map(|(name, _)| name).collect();
        assert_eq!(names, ["BatchWriteItem", "PutItem"]);
    }
}
