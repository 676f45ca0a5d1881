//! Limits the library enforces, checked by the command before it does any work.

/// The most shards one index may have: `#[shard(...)]` rejects larger shard counts and
/// boundaries files with more boundaries.
pub use dynashard::shard::MAX_SHARDS;
