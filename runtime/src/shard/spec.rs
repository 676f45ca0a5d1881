//! One mapping's sharding as data: the derive emits a [`ShardSpec`] for every `#[shard(...)]`,
//! and everything that routes (writes, query plans, resharding) executes it here.

use super::{
    bucket_partition, overflow_partition, random_shard, range_sort_key, shard_partition, sub_shard_partition,
    Boundaries, BucketWindow, NewLayout, Normalization, RangeShards, Router, Routing, ShardChooser,
    ShardLayout, ShardMode, Shards, TimeBucket,
};
use crate::error::{Item, Result};
use crate::index_key_limits::check_range_value;
use crate::index_keys::base_key_of;
use crate::table::TableDefinition;
use std::sync::Arc;

/// How one index mapping (or, with `index` empty, the base table) is sharded.
///
/// ```
/// use dynashard::shard::{BaseKey, ShardSpec, ShardStrategy};
///
/// const BY_TITLE: ShardSpec = ShardSpec {
///     index: "ByTitle",
///     strategy: ShardStrategy::Hash { shards: 8 },
///     by: &["title"],
///     bucket: None,
///     directory: false,
/// };
/// let partition =
///     BY_TITLE.partition("albums", "Leaving Home", None, BaseKey::None, &dynashard::shard::NoDynamicShards)?;
/// assert_eq!(partition, format!("albums#{}", dynashard::shard::hash_shard("Leaving Home", 8)));
/// # Ok::<(), dynashard::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ShardSpec {
    /// The sharded index; empty for the base table.
    pub index: &'static str,
    /// How shards are chosen.
    pub strategy: ShardStrategy,
    /// The stored attributes of the `by` fields, in order: their values, one after another, are
    /// the routing text.
    pub by: &'static [&'static str],
    /// The time buckets each shard is split into, if any.
    pub bucket: Option<TimeBucket>,
    /// Whether writes keep a directory of the time buckets' non-empty partitions, which reads
    /// consult (see [`directory_partition`](super::directory_partition)).
    pub directory: bool,
}

/// How a [`ShardSpec`] chooses shards.
#[derive(Debug, Clone, Copy)]
pub enum ShardStrategy {
    /// `hash = shards`.
    Hash {
        /// The shard count.
        shards: u32,
    },
    /// `random = shards`.
    Random {
        /// The shard count.
        shards: u32,
    },
    /// `range = "file.json"`: ordered shards, each split `overflow` ways (1: not split).
    Range {
        /// How routing values are normalized.
        normalization: Normalization,
        /// Sub-shards per range shard.
        overflow: u32,
        /// The mapping's replaceable boundaries.
        boundaries: fn() -> &'static RangeShards,
    },
    /// `dynamic, max = max`: a count kept in the shard metadata.
    Dynamic {
        /// The largest count.
        max: u32,
    },
}

/// The base-table key of the item a write routes, read only by the strategies that use it
/// (split range shards, range sort keys).
#[derive(Debug, Clone, Copy)]
pub enum BaseKey<'a> {
    /// The key attributes of an item of `table`.
    Item(&'a Item, &'a TableDefinition),
    /// A partition and sort key value.
    Key(&'a str, &'a str),
    /// Not known (a base-table key being composed): empty values.
    None,
}

impl BaseKey<'_> {
    fn values(self) -> (String, String) {
        match self {
            Self::Item(item, table) => base_key_of(item, table),
            Self::Key(pk, sk) => (pk.to_owned(), sk.to_owned()),
            Self::None => (String::new(), String::new()),
        }
    }
}

impl ShardSpec {
    /// Whether a resharding can move this mapping: hash or unsplit range shards of an index,
    /// without time buckets.
    pub fn reshardable(&self) -> bool {
        let routed = match self.strategy {
            ShardStrategy::Hash { .. } => true,
            ShardStrategy::Range { overflow, .. } => overflow <= 1,
            ShardStrategy::Random { .. } | ShardStrategy::Dynamic { .. } => false,
        };
        routed && !self.index.is_empty() && self.bucket.is_none()
    }

    /// The replaceable boundaries of a range-sharded mapping.
    pub fn range_shards(&self) -> Option<&'static RangeShards> {
        match self.strategy {
            ShardStrategy::Range { boundaries, .. } => Some(boundaries()),
            _ => None,
        }
    }

    /// The boundaries a range-sharded mapping routes by now.
    pub fn current_boundaries(&self) -> Option<Arc<Boundaries>> {
        self.range_shards().map(RangeShards::current)
    }

    /// The router of the current layout; `None` for random and dynamic shards, which do not
    /// route by value.
    pub fn router(&self) -> Option<Router> {
        match self.strategy {
            ShardStrategy::Hash { shards } => Some(Router::Hash(shards)),
            ShardStrategy::Range { normalization, boundaries, .. } => {
                Some(Router::Range(boundaries().current(), normalization))
            }
            ShardStrategy::Random { .. } | ShardStrategy::Dynamic { .. } => None,
        }
    }

    /// The router of `layout`, the layout this mapping is resharded into; `None` when the two do
    /// not fit (a hash layout for a range mapping, invalid boundaries, no shards).
    pub fn router_for(&self, layout: &NewLayout) -> Option<Router> {
        match (layout, self.strategy) {
            (NewLayout::Hash { shards }, ShardStrategy::Hash { .. }) if *shards >= 1 => {
                Some(Router::Hash(*shards))
            }
            (NewLayout::Range { boundaries }, ShardStrategy::Range { normalization, .. }) => {
                Boundaries::new(boundaries.clone())
                    .ok()
                    .map(|boundaries| Router::Range(Arc::new(boundaries), normalization))
            }
            _ => None,
        }
    }

    /// The shard `text` routes to in the current layout (0 for random and dynamic shards).
    pub fn shard_of(&self, text: &str) -> u32 {
        self.router().map_or(0, |router| router.shard(text))
    }

    /// The partition key a write uses: the logical partition key `logical` with the shard the
    /// routing `text` selects (a random one, or the `chooser`'s for dynamic shards), the bucket of
    /// `at_seconds`, and for split range shards the sub-shard of the item's base-table key.
    pub fn partition(
        &self,
        logical: &str,
        text: &str,
        at_seconds: Option<i64>,
        base: BaseKey<'_>,
        chooser: &dyn ShardChooser,
    ) -> Result<String> {
        let shard = match self.strategy {
            ShardStrategy::Hash { .. } => self.shard_of(text),
            ShardStrategy::Random { shards } => random_shard(shards),
            ShardStrategy::Range { normalization, overflow, boundaries } => {
                let shard = boundaries().load().shard(text, normalization);
                if overflow > 1 {
                    let (pk, sk) = base.values();
                    return Ok(overflow_partition(logical, shard, &pk, &sk, overflow));
                }
                shard
            }
            ShardStrategy::Dynamic { max } => chooser.dynamic_shard(self.index, logical, max)?,
        };
        Ok(match (self.bucket, at_seconds) {
            (Some(bucket), Some(seconds)) => bucket_partition(logical, shard, bucket, seconds),
            _ => shard_partition(logical, shard),
        })
    }

    /// The sort key a range-sharded index stores for `value` of `field` (its routing value):
    /// normalized value (not normalized for other strategies), original value, base-table key.
    pub fn range_sort_key(
        &self,
        table: &TableDefinition,
        field: &'static str,
        value: &str,
        base: BaseKey<'_>,
    ) -> Result<String> {
        check_range_value(table, self.index, field, value)?;
        let normalized = match self.strategy {
            ShardStrategy::Range { normalization, .. } => normalization.apply(value),
            _ => value.to_owned(),
        };
        let (pk, sk) = base.values();
        Ok(range_sort_key(&normalized, value, &[pk.as_str(), sk.as_str()]))
    }

    /// The partitions a query of logical partition `partition` reads, with range `boundaries`
    /// loaded once per query (the current ones when `None`): only `one_shard` when the query's
    /// arguments name it; for time buckets, those of the `window` (unix seconds, both included),
    /// bucket after bucket when `in_time_order` (or when one shard is read), else merged.
    pub fn shards(
        &self,
        partition: &str,
        boundaries: Option<&Arc<Boundaries>>,
        one_shard: Option<u32>,
        window: Option<(i64, i64)>,
        in_time_order: bool,
    ) -> Shards {
        let shards = |partitions: Vec<String>, mode: ShardMode, layout: ShardLayout| Shards {
            partitions,
            window: None,
            mode,
            layout,
            dynamic: None,
            directory: false,
        };
        if let Some(bucket) = self.bucket {
            let (count, random) = match self.strategy {
                ShardStrategy::Random { shards } => (shards, true),
                ShardStrategy::Hash { shards } => (shards, false),
                _ => (1, false),
            };
            let (from, to) = window.unwrap_or((1, 0));
            let (range, mode) = match one_shard {
                Some(one) => (one..one + 1, ShardMode::Buckets),
                None if in_time_order => (0..count, ShardMode::Buckets),
                None => (0..count, ShardMode::Merge),
            };
            let layout = ShardLayout::Bucketed { bucket, shards: count, random };
            let window = BucketWindow::new(partition, range, bucket, from, to);
            return Shards { directory: self.directory, ..Shards::bucketed(window, mode, layout) };
        }
        let every = |count: u32| (0..count).map(|shard| shard_partition(partition, shard)).collect();
        match self.strategy {
            ShardStrategy::Hash { shards: count } => match one_shard {
                Some(one) => shards(
                    vec![shard_partition(partition, one)],
                    ShardMode::InOrder,
                    ShardLayout::Hash { shards: count },
                ),
                None => shards(every(count), ShardMode::Merge, ShardLayout::Hash { shards: count }),
            },
            ShardStrategy::Random { shards: count } => {
                shards(every(count), ShardMode::Merge, ShardLayout::Random { shards: count })
            }
            ShardStrategy::Dynamic { max } => Shards {
                dynamic: Some(max),
                ..shards(Vec::new(), ShardMode::Merge, ShardLayout::Dynamic { readable: None })
            },
            ShardStrategy::Range { normalization, overflow, boundaries: compiled } => {
                let current;
                let boundaries = match boundaries {
                    Some(boundaries) => boundaries,
                    None => {
                        current = compiled().current();
                        &current
                    }
                };
                let layout = ShardLayout::Range {
                    normalization,
                    boundaries: boundaries.fingerprint().to_owned(),
                    overflow,
                };
                if overflow > 1 {
                    let partitions = (0..boundaries.shards())
                        .flat_map(|shard| (0..overflow).map(move |sub| (shard, sub)))
                        .map(|(shard, sub)| sub_shard_partition(partition, shard, sub))
                        .collect();
                    return shards(partitions, ShardMode::Merge, layout);
                }
                shards(every(boundaries.shards()), ShardMode::InOrder, layout)
            }
        }
    }

    #[doc(hidden)]
    /// How a query prunes shards by the routing value: range shards by the `boundaries` it reads
    /// with; hash shards (without buckets) by sort-key placeholder number `placeholder`, when the
    /// routing field is one.
    pub fn routing(
        &self,
        boundaries: Option<Arc<Boundaries>>,
        placeholder: Option<usize>,
    ) -> Option<Routing> {
        match (self.strategy, self.bucket) {
            (ShardStrategy::Range { normalization, overflow, boundaries: compiled }, _) => {
                Some(Routing::Range {
                    boundaries: boundaries.unwrap_or_else(|| compiled().current()),
                    normalization,
                    overflow,
                })
            }
            (ShardStrategy::Hash { shards }, None) => {
                placeholder.map(|placeholder| Routing::Hash { shards, placeholder })
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shard::{hash_shard, NoDynamicShards};
    use std::sync::OnceLock;

    fn compiled() -> &'static RangeShards {
        static SHARDS: OnceLock<RangeShards> = OnceLock::new();
        SHARDS.get_or_init(|| RangeShards::new(Boundaries::from_checked(&["", "h", "p"])))
    }

    const fn spec(strategy: ShardStrategy, bucket: Option<TimeBucket>) -> ShardSpec {
        ShardSpec { index: "ByTitle", strategy, by: &["title"], bucket, directory: false }
    }

    const HASH: ShardSpec = spec(ShardStrategy::Hash { shards: 21 }, None);
    const RANDOM: ShardSpec = spec(ShardStrategy::Random { shards: 4 }, None);
    const RANGE: ShardSpec = spec(
        ShardStrategy::Range { normalization: Normalization::NfkdLower, overflow: 1, boundaries: compiled },
        None,
    );
    const SPLIT: ShardSpec = spec(
        ShardStrategy::Range { normalization: Normalization::NfkdLower, overflow: 3, boundaries: compiled },
        None,
    );
    const DYNAMIC: ShardSpec = spec(ShardStrategy::Dynamic { max: 8 }, None);
    const HOURLY: ShardSpec = spec(ShardStrategy::Hash { shards: 4 }, Some(TimeBucket::Hour));

    fn write(spec: &ShardSpec, text: &str, at: Option<i64>) -> Result<String> {
        spec.partition("album", text, at, BaseKey::Key("artist", "album#x"), &NoDynamicShards)
    }

    #[test]
    fn writes_route_through_the_one_router() {
        assert_eq!(write(&HASH, "Leaving Home", None).unwrap(), "album#6");
        assert_eq!(hash_shard("Leaving Home", 21), 6);
        assert_eq!(write(&RANGE, "ＨＥＬＬＯ", None).unwrap(), "album#1");
        let split = write(&SPLIT, "Zed", None).unwrap();
        assert!(["album#2#0", "album#2#1", "album#2#2"].contains(&split.as_str()), "{split}");
        assert_eq!(split, write(&SPLIT, "Zed", None).unwrap(), "the base key fixes the sub-shard");
        let random = write(&RANDOM, "", None).unwrap();
        assert!(["album#0", "album#1", "album#2", "album#3"].contains(&random.as_str()));
        assert_eq!(
            write(&HOURLY, "s1", Some(3_600)).unwrap(),
            format!("album#{}#1970-01-01T01", hash_shard("s1", 4))
        );
        assert!(matches!(
            write(&DYNAMIC, "", None),
            Err(crate::error::Error::DynamicShardsUnresolved { index: "ByTitle", .. })
        ));
        for spec in [HASH, RANGE] {
            assert_eq!(
                spec.router().map(|router| router.shard("Leaving Home")),
                Some(spec.shard_of("Leaving Home"))
            );
        }
    }

    #[test]
    fn reads_lay_out_every_shard_the_writes_use() {
        let hash = HASH.shards("album", None, None, None, false);
        assert_eq!((hash.partitions.len(), hash.mode), (21, ShardMode::Merge));
        assert_eq!(hash.layout, ShardLayout::Hash { shards: 21 });
        let one = HASH.shards("album", None, Some(6), None, false);
        assert_eq!((one.partitions, one.mode), (vec!["album#6".to_owned()], ShardMode::InOrder));
        let range = RANGE.shards("album", None, None, None, false);
        assert_eq!((range.partitions.len(), range.mode), (3, ShardMode::InOrder));
        let split = SPLIT.shards("album", None, None, None, false);
        assert_eq!((split.partitions.len(), split.mode), (9, ShardMode::Merge));
        assert_eq!(split.partitions[7], "album#2#1");
        let dynamic = DYNAMIC.shards("album", None, None, None, false);
        assert_eq!((dynamic.partitions.len(), dynamic.dynamic), (0, Some(8)));
        let hours = HOURLY.shards("album", None, None, Some((0, 7_199)), true);
        assert_eq!(hours.mode, ShardMode::Buckets);
        assert_eq!(hours.window.as_ref().map(|window| window.partitions()), Some(8));
        let merged = HOURLY.shards("album", None, None, Some((0, 7_199)), false);
        assert_eq!(merged.mode, ShardMode::Merge);
    }

    #[test]
    fn only_unbucketed_index_mappings_routed_by_value_are_reshardable() {
        assert!(HASH.reshardable() && RANGE.reshardable());
        assert!(
            !SPLIT.reshardable() && !RANDOM.reshardable() && !DYNAMIC.reshardable() && !HOURLY.reshardable()
        );
        assert!(!ShardSpec { index: "", ..HASH }.reshardable(), "the base table is not resharded");
        assert!(HASH.routing(None, None).is_none() && HASH.routing(None, Some(0)).is_some());
        assert!(RANGE.routing(None, None).is_some() && HOURLY.routing(None, Some(0)).is_none());
    }
}
