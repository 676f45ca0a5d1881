//! The one description of how a mapping's items are spread over partitions: its strategy with
//! what it needs. A mapping declares it (the derive emits it in a [`ShardSpec`](super::ShardSpec)),
//! writes route by it, reads are planned from it, cursors are bound to it and a resharding moves
//! a mapping from one to another. Every question whose answer depends on the strategy is answered
//! in this file, but for which partitions a read reads ([`super::read`]).

mod binding;
mod source;
#[cfg(test)]
mod tests;

use super::{
    bucket_partition, hash_shard, overflow_partition, random_shard, shard_partition, Boundaries,
    Normalization, ShardChooser, TimeBucket,
};
use crate::error::Result;
pub(crate) use binding::Binding;
use binding::Target;
use serde::{Deserialize, Serialize};
pub use source::BoundarySource;
use std::sync::Arc;

/// How one mapping's items are laid out. A mapping declares its layout with `#[shard(...)]`
/// (range boundaries [declared](BoundarySource::Declared), read when asked); a read plans with
/// its range boundaries read once ([`Layout::fixed`]); a resharding moves a mapping to another
/// layout of its strategy, built with [`Layout::hash`] or [`Layout::range`].
///
/// ```
/// use dynashard::shard::{hash_shard, Boundaries, Layout};
///
/// assert_eq!(Layout::hash(21).route("Leaving Home"), Some(hash_shard("Leaving Home", 21)));
///
/// let boundaries = Boundaries::from_json(r#"["", "h", "p"]"#)?;
/// let range = Layout::range(&boundaries);
/// assert_eq!(range.route("ＨＥＬＬＯ"), Some(1));
/// assert_eq!(range.shards(), 3);
/// assert_eq!(Layout::Random { shards: 4 }.route("x"), None, "random shards do not route by value");
/// # Ok::<(), dynashard::shard::BoundariesError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Layout {
    /// `hash = shards`: the shard is a hash of the `by` fields.
    Hash {
        /// The shard count.
        shards: u32,
    },
    /// `random = shards`: the shard is chosen at random.
    Random {
        /// The shard count.
        shards: u32,
    },
    /// `range = "file.json"`: ordered shards, each a slice of the sort order, each split
    /// `overflow` ways (1: not split).
    Range {
        /// Where the shards are cut.
        boundaries: BoundarySource,
        /// How routing values are normalized before they are compared with the boundaries.
        normalization: Normalization,
        /// Sub-shards per range shard.
        overflow: u32,
    },
    /// `dynamic, max = max`: a count kept in the shard metadata.
    Dynamic {
        /// The largest count.
        max: u32,
        /// The shards a read reads, once it has read the shard metadata (`None` before).
        readable: Option<u32>,
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
    /// One partition a key: a [merge](crate::Query::merge) of queries of an unsharded index.
    Unsharded,
}

impl Layout {
    /// Hash shards, `shards` of them: the target of a resharding of a hash-sharded mapping.
    pub fn hash(shards: u32) -> Self {
        Self::Hash { shards }
    }

    /// Range shards cut at `boundaries`, not split: the target of a resharding of a
    /// range-sharded mapping, which routes by the mapping's own normalization (the default one
    /// here).
    pub fn range(boundaries: &Boundaries) -> Self {
        Self::Range {
            boundaries: BoundarySource::Fixed(Arc::new(boundaries.clone())),
            normalization: Normalization::default(),
            overflow: 1,
        }
    }

    /// This layout with range boundaries fixed: `boundaries` when given, else the declared ones
    /// as they are now (what a read plans with, read once).
    pub fn fixed(&self, boundaries: Option<&Arc<Boundaries>>) -> Self {
        match self {
            Self::Range { boundaries: source, normalization, overflow } => Self::Range {
                boundaries: BoundarySource::Fixed(boundaries.map_or_else(|| source.current(), Arc::clone)),
                normalization: *normalization,
                overflow: *overflow,
            },
            other => other.clone(),
        }
    }

    /// The width of the time buckets of a bucketed layout.
    pub fn bucket(&self) -> Option<TimeBucket> {
        match self {
            Self::Bucketed { bucket, .. } => Some(*bucket),
            _ => None,
        }
    }

    /// The number of shards (for time buckets, per bucket; for dynamic shards, those readable,
    /// else the largest count).
    pub fn shards(&self) -> u32 {
        match self {
            Self::Hash { shards } | Self::Random { shards } | Self::Bucketed { shards, .. } => *shards,
            Self::Range { boundaries, .. } => boundaries.current().shards(),
            Self::Dynamic { max, readable } => readable.unwrap_or(*max),
            Self::Unsharded => 1,
        }
    }

    /// The shard the routing text `text` goes to; `None` for layouts that do not route by value
    /// (random, dynamic, time buckets with random shards, unsharded).
    pub fn route(&self, text: &str) -> Option<u32> {
        match self {
            Self::Hash { shards } | Self::Bucketed { shards, random: false, .. } => {
                Some(hash_shard(text, *shards))
            }
            Self::Range { boundaries, normalization, .. } => Some(boundaries.shard(text, *normalization)),
            _ => None,
        }
    }

    /// The strategy's name, as spans and messages give it (`hash`, `random`, `range`, `dynamic`,
    /// `time`, `none`).
    pub fn strategy(&self) -> &'static str {
        match self {
            Self::Hash { .. } => "hash",
            Self::Random { .. } => "random",
            Self::Range { .. } => "range",
            Self::Dynamic { .. } => "dynamic",
            Self::Bucketed { .. } => "time",
            Self::Unsharded => "none",
        }
    }

    /// A short description for messages (`hash:32`, `range:<boundaries fingerprint>`).
    pub fn describe(&self) -> String {
        match self {
            Self::Range { boundaries, .. } => format!("range:{}", boundaries.current().fingerprint()),
            other => format!("{}:{}", other.strategy(), other.shards()),
        }
    }

    /// The partition key of a write: the logical partition key `logical` with the shard the
    /// routing `text` selects (a random one, or the `chooser`'s for dynamic shards of `index`),
    /// the bucket of `at_seconds`, and for split range shards the sub-shard of the item's
    /// base-table key `base`.
    pub(crate) fn partition(
        &self,
        (index, logical): (&'static str, &str),
        text: &str,
        at_seconds: Option<i64>,
        base: impl FnOnce() -> (String, String),
        chooser: &dyn ShardChooser,
    ) -> Result<String> {
        let shard = match self {
            Self::Hash { shards } => hash_shard(text, *shards),
            Self::Random { shards } => random_shard(*shards),
            Self::Range { boundaries, normalization, overflow } => {
                let shard = boundaries.shard(text, *normalization);
                if *overflow > 1 {
                    let (pk, sk) = base();
                    return Ok(overflow_partition(logical, shard, &pk, &sk, *overflow));
                }
                shard
            }
            Self::Dynamic { max, .. } => chooser.dynamic_shard(index, logical, *max)?,
            Self::Bucketed { bucket, shards, random } => {
                let shard = match (random, at_seconds) {
                    (false, _) => hash_shard(text, *shards),
                    (true, Some(seconds)) => {
                        chooser.bucket_shard(index, logical, &bucket.label(seconds), *shards)
                    }
                    (true, None) => random_shard(*shards),
                };
                return Ok(match at_seconds {
                    Some(seconds) => bucket_partition(logical, shard, *bucket, seconds),
                    None => shard_partition(logical, shard),
                });
            }
            Self::Unsharded => return Ok(logical.to_owned()),
        };
        Ok(shard_partition(logical, shard))
    }

    /// The one shard an equality on the routing value reads, when the layout prunes that way
    /// (hash shards).
    pub(crate) fn equality_shard(&self, text: &str) -> Option<u32> {
        self.route(text).filter(|_| self.routes_by_equality())
    }

    /// Whether an equality on the routing value names one shard (hash shards; range shards
    /// prune by their order instead, see [`Layout::ordered`]).
    pub(crate) fn routes_by_equality(&self) -> bool {
        matches!(self, Self::Hash { .. })
    }

    /// The boundaries and normalization of a layout sorted by its routing value (range shards),
    /// whose conditions prune to the shards they overlap.
    pub(crate) fn ordered(&self) -> Option<(Arc<Boundaries>, Normalization)> {
        match self {
            Self::Range { boundaries, normalization, .. } => Some((boundaries.current(), *normalization)),
            _ => None,
        }
    }

    /// `value` normalized as the layout compares routing values (range shards), else as it is.
    pub(crate) fn normalize(&self, value: &str) -> String {
        match self {
            Self::Range { normalization, .. } => normalization.apply(value),
            _ => value.to_owned(),
        }
    }

    /// How many partitions each shard is (split range shards: their sub-shards).
    pub(crate) fn partitions_per_shard(&self) -> usize {
        match self {
            Self::Range { overflow, .. } => (*overflow).max(1) as usize,
            _ => 1,
        }
    }

    /// Whether items with one sort key are always in one shard: hash shards, whose sort keys
    /// hold the `by` values that chose the shard.
    pub(crate) fn ties_in_one_shard(&self) -> bool {
        matches!(self, Self::Hash { .. })
    }

    /// Whether no two items share a sort key: range shards, whose sort keys end with the
    /// item's key.
    pub(crate) fn sort_keys_unique(&self) -> bool {
        matches!(self, Self::Range { .. })
    }

    /// Whether one shard after another is one sorted sequence (unsplit range shards).
    pub(crate) fn in_order(&self) -> bool {
        matches!(self, Self::Range { overflow, .. } if *overflow <= 1)
    }

    /// The most shards of a dynamic count; `None` for other layouts.
    pub(crate) fn dynamic_max(&self) -> Option<u32> {
        match self {
            Self::Dynamic { max, .. } => Some(*max),
            _ => None,
        }
    }

    /// Whether this is a dynamic count whose readable shards are not known yet: its plan names
    /// no partitions until the count is read and planned again [`with_readable`](Self::with_readable).
    pub(crate) fn awaits_count(&self) -> bool {
        matches!(self, Self::Dynamic { readable: None, .. })
    }

    /// This dynamic layout with `readable` shards read; `None` for other layouts.
    pub(crate) fn with_readable(&self, readable: u32) -> Option<Self> {
        match self {
            Self::Dynamic { max, .. } => Some(Self::Dynamic { max: *max, readable: Some(readable) }),
            _ => None,
        }
    }

    /// Whether an item is placed alike at every write (its shard is not picked at random or by
    /// a count that changes): what a mapping added to existing items needs, so that a placed
    /// item can be told from one that is not.
    pub(crate) fn places_alike(&self) -> bool {
        match self {
            Self::Hash { .. } | Self::Unsharded => true,
            Self::Range { overflow, .. } => *overflow <= 1,
            Self::Bucketed { random, .. } => !random,
            Self::Random { .. } | Self::Dynamic { .. } => false,
        }
    }

    /// Whether a resharding can move a mapping laid out so: hash and unsplit range shards.
    pub(crate) fn reshardable(&self) -> bool {
        matches!(self, Self::Hash { .. }) || self.in_order()
    }

    /// `target` as a resharding of this layout: the same strategy, unsplit, routing with this
    /// layout's normalization; `None` when it is of another strategy or has no shards.
    pub(crate) fn resharded(&self, target: &Layout) -> Option<Layout> {
        match (self, target) {
            (Self::Hash { .. }, Self::Hash { shards }) if *shards >= 1 => {
                Some(Self::Hash { shards: *shards })
            }
            (Self::Range { normalization, .. }, Self::Range { boundaries, .. }) => Some(Self::Range {
                boundaries: BoundarySource::Fixed(boundaries.current()),
                normalization: *normalization,
                overflow: 1,
            }),
            _ => None,
        }
    }

    /// What a cursor of a read of this layout is bound to; `target` names the index read in
    /// place of the query's own (a resharding's, past its cut-over).
    pub(crate) fn binding<'a>(&self, target: Option<&'a str>) -> Binding<'a> {
        if let Some(index) = target {
            return Binding { index: Some(index), layout: self.target(), ..Binding::named("resharded") };
        }
        match self {
            Self::Hash { shards } => Binding { shards: Some(*shards), ..Binding::named("hash") },
            Self::Random { shards } => Binding { shards: Some(*shards), ..Binding::named("random") },
            Self::Range { boundaries, normalization, overflow } => Binding {
                normalization: Some(*normalization),
                boundaries: Some(boundaries.current().fingerprint().to_owned()),
                overflow: Some(*overflow),
                ..Binding::named("range")
            },
            Self::Dynamic { readable, .. } => {
                Binding { readable: Some(*readable), ..Binding::named("dynamic") }
            }
            Self::Bucketed { bucket, shards, random } => Binding {
                bucket: Some(*bucket),
                shards: Some(*shards),
                random: Some(*random),
                ..Binding::named("bucketed")
            },
            Self::Unsharded => Binding::named("unsharded"),
        }
    }

    /// This layout as a resharding's target record; `None` unless it is a hash or range layout.
    fn target(&self) -> Option<Target> {
        match self {
            Self::Hash { shards } => Some(Target::Hash { shards: *shards }),
            Self::Range { boundaries, normalization, .. } => Some(Target::Range {
                boundaries: boundaries.current().values().to_vec(),
                normalization: *normalization,
            }),
            Self::Unsharded => Some(Target::Unsharded),
            _ => None,
        }
    }
}

/// Stored as its target record: only hash and range layouts are resharding targets.
impl Serialize for Layout {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        match self.target() {
            Some(target) => target.serialize(serializer),
            None => Err(serde::ser::Error::custom(format!("a {} layout is not stored", self.strategy()))),
        }
    }
}

impl<'de> Deserialize<'de> for Layout {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        Ok(match Target::deserialize(deserializer)? {
            Target::Hash { shards } => Self::Hash { shards },
            Target::Range { boundaries, normalization } => Self::Range {
                boundaries: BoundarySource::Fixed(Arc::new(
                    Boundaries::new(boundaries).map_err(serde::de::Error::custom)?,
                )),
                normalization,
                overflow: 1,
            },
            Target::Unsharded => Self::Unsharded,
        })
    }
}
