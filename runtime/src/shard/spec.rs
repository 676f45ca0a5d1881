//! One mapping's sharding as data: the derive emits a [`ShardSpec`] for every `#[shard(...)]`,
//! read as its [`Layout`], which everything that routes (writes, query plans, resharding) asks.

use super::read::Read;
use super::{Boundaries, Layout, NoDynamicShards, Normalization, RangeShards, Shards};
use crate::error::Result;
use std::sync::Arc;

/// How one index mapping (or, with `index` empty, the base table) is sharded.
///
/// ```
/// use dynashard::shard::{Layout, ShardSpec};
///
/// const BY_TITLE: ShardSpec =
///     ShardSpec { index: "ByTitle", layout: Layout::Hash { shards: 8 }, by: &["title"], directory: false, partition: None };
/// let partition = BY_TITLE.key_partition("albums", "Leaving Home")?;
/// assert_eq!(partition, format!("albums#{}", dynashard::shard::hash_shard("Leaving Home", 8)));
/// # Ok::<(), dynashard::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ShardSpec {
    /// The sharded index; empty for the base table.
    pub index: &'static str,
    /// How the mapping's items are laid out.
    pub layout: Layout,
    /// The stored attributes of the `by` fields, in order: their values, one after another, are
    /// the routing text.
    pub by: &'static [&'static str],
    /// Whether writes keep a directory of the time buckets' non-empty partitions, which reads
    /// consult (see [`directory_partition`](super::directory_partition)).
    pub directory: bool,
    /// The logical partition every item shares when the mapping's partition key template names
    /// no field (`pk = "albums"`): its shards' partitions are then known without reading, and a
    /// resharding reads them one by one rather than scanning the index.
    pub partition: Option<&'static str>,
}

impl ShardSpec {
    /// The layout the mapping declares, range shards cut at `boundaries` when given (read once
    /// per query), else at the declared ones as they are now.
    fn layout_with(&self, boundaries: Option<&Arc<Boundaries>>) -> Layout {
        self.layout.fixed(boundaries)
    }

    /// Whether a resharding can move this mapping: hash or unsplit range shards of an index,
    /// without time buckets.
    pub fn reshardable(&self) -> bool {
        !self.index.is_empty() && self.layout.reshardable()
    }

    /// The replaceable boundaries of a range-sharded mapping.
    pub fn range_shards(&self) -> Option<&'static RangeShards> {
        match &self.layout {
            Layout::Range { boundaries, .. } => boundaries.declared(),
            _ => None,
        }
    }

    /// How a range-sharded mapping normalizes its routing values.
    pub fn normalization(&self) -> Option<Normalization> {
        match &self.layout {
            Layout::Range { normalization, .. } => Some(*normalization),
            _ => None,
        }
    }

    /// The boundaries a range-sharded mapping routes by now.
    pub fn current_boundaries(&self) -> Option<Arc<Boundaries>> {
        self.range_shards().map(RangeShards::current)
    }

    /// `target` as a resharding of this mapping: of its strategy, routing as it does; `None`
    /// when the two do not fit (a hash layout for a range mapping, no shards).
    pub fn resharded(&self, target: &Layout) -> Option<Layout> {
        self.layout.resharded(target)
    }

    /// The shard `text` routes to in the current layout (0 for layouts that do not route by
    /// value).
    pub fn shard_of(&self, text: &str) -> u32 {
        self.layout.route(text).unwrap_or(0)
    }

    /// The partition key of a base-table key: the logical partition key `logical` with the hash
    /// shard of the routing `text` (a base table is sharded by hash only).
    pub fn key_partition(&self, logical: &str, text: &str) -> Result<String> {
        let no_base = || (String::new(), String::new());
        self.layout.partition((self.index, logical), text, None, no_base, &NoDynamicShards)
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
        let layout = self.layout_with(boundaries);
        let read = Read { partition, one_shard, window, in_time_order, directory: self.directory };
        layout.plan(read)
    }

    #[doc(hidden)]
    /// How a query prunes shards by the routing value: range shards by the `boundaries` it reads
    /// with; hash shards (without buckets) by sort-key placeholder number `placeholder`, when the
    /// routing field is one. The layout, with the placeholder.
    pub fn routing(
        &self,
        boundaries: Option<Arc<Boundaries>>,
        placeholder: Option<usize>,
    ) -> Option<(Layout, Option<usize>)> {
        let layout = self.layout_with(boundaries.as_ref());
        if layout.ordered().is_some() {
            return Some((layout, None));
        }
        placeholder.filter(|_| layout.routes_by_equality()).map(|placeholder| (layout, Some(placeholder)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shard::{hash_shard, BoundarySource, ShardMode, TimeBucket};
    use std::sync::OnceLock;

    fn compiled() -> &'static RangeShards {
        static SHARDS: OnceLock<RangeShards> = OnceLock::new();
        SHARDS.get_or_init(|| RangeShards::new(Boundaries::from_checked(&["", "h", "p"])))
    }

    const fn spec(layout: Layout) -> ShardSpec {
        ShardSpec { index: "ByTitle", layout, by: &["title"], directory: false, partition: None }
    }

    const fn range(overflow: u32) -> Layout {
        let boundaries = BoundarySource::Declared(compiled);
        Layout::Range { boundaries, normalization: Normalization::NfkdLower, overflow }
    }

    const HASH: ShardSpec = spec(Layout::Hash { shards: 21 });
    const RANDOM: ShardSpec = spec(Layout::Random { shards: 4 });
    const RANGE: ShardSpec = spec(range(1));
    const SPLIT: ShardSpec = spec(range(3));
    const DYNAMIC: ShardSpec = spec(Layout::Dynamic { max: 8, readable: None });
    const HOURLY: ShardSpec = spec(Layout::Bucketed { bucket: TimeBucket::Hour, shards: 4, random: false });

    fn write(spec: &ShardSpec, text: &str, at: Option<i64>) -> Result<String> {
        let base = || ("artist".to_owned(), "album#x".to_owned());
        spec.layout.partition((spec.index, "album"), text, at, base, &NoDynamicShards)
    }

    #[test]
    fn writes_route_through_the_one_layout() {
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
        assert_eq!(HOURLY.shard_of("s1"), hash_shard("s1", 4), "a bucket's shards are hash shards");
        for spec in [HASH, RANGE] {
            assert_eq!(spec.layout.route("Leaving Home"), Some(spec.shard_of("Leaving Home")));
        }
    }

    #[test]
    fn reads_lay_out_every_shard_the_writes_use() {
        let hash = HASH.shards("album", None, None, None, false);
        assert_eq!((hash.partitions.len(), hash.mode), (21, ShardMode::Merge));
        assert_eq!(hash.layout, Layout::Hash { shards: 21 });
        let one = HASH.shards("album", None, Some(6), None, false);
        assert_eq!((one.partitions, one.mode), (vec!["album#6".to_owned()], ShardMode::InOrder));
        let range = RANGE.shards("album", None, None, None, false);
        assert_eq!((range.partitions.len(), range.mode), (3, ShardMode::InOrder));
        let split = SPLIT.shards("album", None, None, None, false);
        assert_eq!((split.partitions.len(), split.mode), (9, ShardMode::Merge));
        assert_eq!(split.partitions[7], "album#2#1");
        let dynamic = DYNAMIC.shards("album", None, None, None, false);
        assert_eq!((dynamic.partitions.len(), dynamic.layout.dynamic_max()), (0, Some(8)));
        assert!(dynamic.layout.awaits_count());
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
        assert!(RANDOM.routing(None, Some(0)).is_none() && DYNAMIC.routing(None, Some(0)).is_none());
        assert!(RANGE.routing(None, None).is_some() && HOURLY.routing(None, Some(0)).is_none());
    }
}
