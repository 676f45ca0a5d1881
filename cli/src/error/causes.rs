//! The errors of the steps of a command that the command's error wraps.

/// Why no cuts exist.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CutError {
    /// Zero shards were asked for.
    #[error("the shard count must be at least 1")]
    NoShards,
    /// Fewer distinct keys than shards: some shard would be empty.
    #[error("{shards} shards need at least {shards} distinct keys, and the input has {distinct}")]
    TooFewDistinctKeys {
        /// The shards asked for.
        shards: usize,
        /// The distinct keys found.
        distinct: usize,
    },
}

/// Why a key could not be added.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeySetError {
    /// The normalized keys outgrew the 4 GiB buffer.
    #[error("the normalized keys exceed 4 GiB; cut boundaries from a sample of the keys instead")]
    TooLarge,
}

/// Why a workload cannot be planned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// A quantity exceeds 2^128: no real workload comes near it, so the numbers are wrong.
    #[error("the {quantity} is too large to compute ({formula} exceeds 2^128); check the numbers")]
    TooLarge {
        /// What was being computed.
        quantity: &'static str,
        /// The computation, with its numbers.
        formula: String,
    },
}
