//! Why a cursor was rejected.

/// Why a cursor was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CursorError {
    /// Not a cursor at all (bad encoding, truncated, wrong shape).
    #[error("the cursor is malformed")]
    Malformed,
    /// The cursor's checksum or signature does not match its content.
    #[error("the cursor was altered or signed with another key")]
    Tampered,
    /// The cursor belongs to another query, index or table.
    #[error("the cursor belongs to a different query")]
    WrongQuery,
    /// The cursor belongs to the same query over another shard layout (another strategy, shard
    /// count or boundaries) that it cannot resume in: one the query no longer reads, nor keeps
    /// filled (a raise of a dynamic count, a cut-over and its reverse are resumed across).
    #[error("the cursor belongs to another shard layout")]
    LayoutChanged,
    /// The cursor was made by an earlier version of dynashard, in a format this one no longer
    /// reads: start the listing again.
    #[error("the cursor was made by an earlier version of dynashard; start the listing again")]
    Outdated,
}
