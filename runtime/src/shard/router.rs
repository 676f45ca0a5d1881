//! The one router: which shard a routing text goes to, under hash or range shards. Writes,
//! queries, resharding and the `dynashard route` command all route through it.

use super::{hash_shard, Boundaries, Normalization};
use std::sync::Arc;

/// How routing text maps to a shard id.
///
/// ```
/// use dynashard::shard::{Boundaries, Normalization, Router};
/// use std::sync::Arc;
///
/// let hash = Router::Hash(21);
/// assert_eq!(hash.shard("Leaving Home"), dynashard::shard::hash_shard("Leaving Home", 21));
///
/// let boundaries = Arc::new(Boundaries::from_json(r#"["", "h", "p"]"#).expect("valid"));
/// let range = Router::Range(boundaries, Normalization::NfkdLower);
/// assert_eq!(range.shard("ＨＥＬＬＯ"), 1);
/// assert_eq!(range.shards(), 3);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Router {
    /// This many hash shards, chosen by a hash of the text.
    Hash(u32),
    /// Range shards cut at the boundaries; the text is normalized first.
    Range(Arc<Boundaries>, Normalization),
}

impl Router {
    /// The shard of `text`.
    pub fn shard(&self, text: &str) -> u32 {
        match self {
            Self::Hash(shards) => hash_shard(text, *shards),
            Self::Range(boundaries, normalization) => boundaries.shard(text, *normalization),
        }
    }

    /// The number of shards.
    pub fn shards(&self) -> u32 {
        match self {
            Self::Hash(shards) => *shards,
            Self::Range(boundaries, _) => boundaries.shards(),
        }
    }
}
