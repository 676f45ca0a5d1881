//! Shard layouts as data: the layout a sharded query reads (what its cursors are bound to), and
//! the layout an index is resharded into.

use super::{Boundaries, Normalization, TimeBucket};
use serde::{Deserialize, Serialize};

/// How the partitions of a sharded query were laid out: what a cursor's lanes mean. A cursor of
/// one layout resumes in another that dynashard moved the query to (a raise of a dynamic count,
/// a resharding's cut-over or reverse); in any other, it is rejected
/// ([`CursorError::LayoutChanged`](crate::query::CursorError::LayoutChanged)).
///
/// ```
/// use dynashard::query::ShardLayout;
/// assert_ne!(ShardLayout::Hash { shards: 8 }, ShardLayout::Hash { shards: 16 });
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "strategy", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ShardLayout {
    /// `hash = shards`: shards chosen by a hash of the `by` fields.
    Hash {
        /// The shard count.
        shards: u32,
    },
    /// `random = shards`: shards chosen at random.
    Random {
        /// The shard count.
        shards: u32,
    },
    /// Range shards, each a slice of the sort order, split `overflow` ways.
    Range {
        /// How routing values are normalized before they are compared with the boundaries.
        normalization: Normalization,
        /// The boundaries' [fingerprint](crate::shard::Boundaries::fingerprint).
        boundaries: String,
        /// Sub-shards per range shard (1: not split).
        overflow: u32,
    },
    /// Time buckets, each with hash (or random) shards.
    Bucketed {
        /// The width of the buckets.
        bucket: TimeBucket,
        /// Shards per bucket.
        shards: u32,
        /// Whether the shards are chosen at random rather than by a hash.
        random: bool,
    },
    /// Dynamic shards: as many as the shard metadata says may hold items, once the query has
    /// read it (`None` before).
    Dynamic {
        /// The shards read.
        readable: Option<u32>,
    },
    /// One partition a key: a [merge](crate::Query::merge) of queries of an unsharded index.
    Unsharded,
    /// The target index of a resharding, past its cut-over.
    Resharded {
        /// The target index.
        index: String,
        /// Its layout.
        layout: NewLayout,
    },
}

/// The layout an index is resharded into.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NewLayout {
    /// `hash = shards`, routed by the mapping's `by` fields.
    Hash {
        /// The new shard count.
        shards: u32,
    },
    /// Range shards cut at `boundaries`, routed by the mapping's `by` field.
    Range {
        /// The new boundaries (checked: first `""`, strictly increasing).
        boundaries: Vec<String>,
    },
}

impl NewLayout {
    /// Hash shards, `shards` of them.
    pub fn hash(shards: u32) -> Self {
        Self::Hash { shards }
    }

    /// Range shards cut at `boundaries`.
    pub fn range(boundaries: &Boundaries) -> Self {
        Self::Range { boundaries: boundaries.values().to_vec() }
    }

    /// The number of shards.
    pub fn shards(&self) -> u32 {
        match self {
            Self::Hash { shards } => *shards,
            Self::Range { boundaries } => boundaries.len() as u32,
        }
    }

    /// A short description for fingerprints and messages (`hash:32`, `range:<fingerprint>`).
    pub fn describe(&self) -> String {
        match self {
            Self::Hash { shards } => format!("hash:{shards}"),
            Self::Range { boundaries } => {
                format!(
                    "range:{}",
                    Boundaries::from_checked(&boundaries.iter().map(String::as_str).collect::<Vec<_>>())
                        .fingerprint()
                )
            }
        }
    }
}
