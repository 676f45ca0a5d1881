//! Splitting the range shards a heat map shows over their limit: new boundaries that cut each
//! such shard where the load observed in it balances, for `Layout::range` and resharding.

use super::map::HeatMap;
use crate::shard::{shard_partition, Boundaries};

/// The load observed on one routing value of a range-sharded index: its value, normalized as
/// the layout normalizes (what `Boundaries::shard_of_normalized` takes), and the units it took.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueLoad {
    /// The normalized routing value.
    pub value: String,
    /// The units it took.
    pub units: f64,
}

/// Room left in each piece of a split shard: pieces are cut for 80% of a partition's rate.
const HEADROOM: f64 = 1.25;

/// Where a split of one shard cut, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct ShardSplit {
    /// Its partition key (`albums#3`).
    pub partition_key: String,
    /// The shard split (its number in the old layout).
    pub shard: u32,
    /// Its peak in the map, as a share of its partition's rate.
    pub peak: f64,
    /// The boundaries added inside it.
    pub cuts: Vec<String>,
}

/// A suggested new range layout ([`suggest_split`]).
#[derive(Clone, Debug, PartialEq)]
pub struct SplitSuggestion {
    /// The old boundaries with the cuts added: pass them to `Layout::range`.
    pub boundaries: Boundaries,
    /// The shards split, and where.
    pub splits: Vec<ShardSplit>,
    /// The partition keys of shards over their limit that no boundary can split: their load
    /// is on one value (an `overflow` sub-sharding spreads such a value), or none was observed.
    pub unsplittable: Vec<String>,
}

impl SplitSuggestion {
    /// One suggestion of the splits of both, for the same old layout (of two logical
    /// partitions, say): their cuts together.
    pub fn merge(self, other: SplitSuggestion) -> SplitSuggestion {
        let mut values: Vec<String> = self.boundaries.values().to_vec();
        values.extend(other.boundaries.values().iter().cloned());
        values.sort();
        values.dedup();
        let boundaries = Boundaries::new(values).unwrap_or(self.boundaries);
        let mut splits = self.splits;
        splits.extend(other.splits);
        let mut unsplittable = self.unsplittable;
        unsplittable.extend(other.unsplittable);
        SplitSuggestion { boundaries, splits, unsplittable }
    }
}

/// New boundaries for the range layout `boundaries` of the logical partition `partition` (on
/// `index` of `table`, `None`: the table), splitting each shard `map` shows over its
/// partition's limit into as many shards as its peak needs (with a quarter to spare), at the
/// routing values where `loads` (the units observed per value) balance. `None` when no shard
/// of the layout went over its limit.
///
/// ```
/// use dynashard::consumption::KeyPlace;
/// use dynashard::heat::{suggest_split, HeatCell, HeatMapBuilder, ValueLoad};
/// use dynashard::shard::{Boundaries, Layout};
/// use std::time::Duration;
///
/// let boundaries = Boundaries::new(vec!["".into(), "m".into()])?;
/// let mut builder = HeatMapBuilder::new(Duration::from_secs(1)).starting_at(0);
/// let shard = KeyPlace { table: "Music".into(), index: Some("ByTitle".into()), partition_key: "albums#0".into() };
/// builder.add(0, shard, HeatCell { write_units: 1_500.0, ..HeatCell::default() });
/// let loads: Vec<ValueLoad> = ["a", "b", "c", "d", "e", "f"]
///     .iter()
///     .map(|value| ValueLoad { value: (*value).into(), units: 250.0 })
///     .collect();
/// let suggested = suggest_split(&builder.build(), ("Music", Some("ByTitle"), "albums"), &boundaries, &loads)
///     .expect("shard 0 is over its limit");
/// // 1,500 units a second: 1.5x a partition's 1,000, two pieces of 750.
/// assert_eq!(suggested.boundaries.values(), ["", "d", "m"]);
/// let layout = Layout::range(&suggested.boundaries);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn suggest_split(
    map: &HeatMap,
    (table, index, partition): (&str, Option<&str>, &str),
    boundaries: &Boundaries,
    loads: &[ValueLoad],
) -> Option<SplitSuggestion> {
    let over = map.over_limit();
    let mut values: Vec<String> = boundaries.values().to_vec();
    let (mut splits, mut unsplittable) = (Vec::new(), Vec::new());
    for shard in 0..boundaries.shards() {
        let key = shard_partition(partition, shard);
        let Some(hot) = over.iter().find(|over| {
            over.place.table == table
                && over.place.index.as_deref() == index
                && over.place.partition_key == key
        }) else {
            continue;
        };
        let pieces = (hot.peak.max(1.0) * HEADROOM).ceil().clamp(2.0, 1_000.0) as usize;
        let mut within: Vec<(&str, f64)> = loads
            .iter()
            .filter(|load| load.units.is_finite() && load.units > 0.0)
            .filter(|load| boundaries.shard_of_normalized(&load.value) == shard)
            .map(|load| (load.value.as_str(), load.units))
            .collect();
        within.sort_by(|a, b| a.0.cmp(b.0));
        let cuts = cuts(&within, pieces);
        if cuts.is_empty() {
            unsplittable.push(key);
        } else {
            values.extend(cuts.iter().cloned());
            splits.push(ShardSplit { partition_key: key, shard, peak: hot.peak, cuts });
        }
    }
    if splits.is_empty() && unsplittable.is_empty() {
        return None;
    }
    values.sort();
    values.dedup();
    let boundaries = Boundaries::new(values).ok()?;
    Some(SplitSuggestion { boundaries, splits, unsplittable })
}

/// The boundaries that cut `sorted` (values in order, with their units; a value may repeat) into
/// `pieces` of about equal units: for each share, the start of a value nearest to it, as the
/// shortest prefix of that value that still sorts after the value before it. Fewer when the load
/// sits on fewer values.
fn cuts(sorted: &[(&str, f64)], pieces: usize) -> Vec<String> {
    let total: f64 = sorted.iter().map(|(_, units)| units).sum();
    if total.is_nan() || total <= 0.0 || pieces < 2 {
        return Vec::new();
    }
    // Where a new value starts, and the units before it.
    let mut starts: Vec<(usize, f64)> = Vec::new();
    let mut sum = 0.0;
    for (position, (value, units)) in sorted.iter().enumerate() {
        if position > 0 && sorted[position - 1].0 < *value {
            starts.push((position, sum));
        }
        sum += units;
    }
    let mut chosen: Vec<usize> = (1..pieces)
        .filter_map(|piece| {
            let share = total * piece as f64 / pieces as f64;
            starts
                .iter()
                .min_by(|a, b| (a.1 - share).abs().total_cmp(&(b.1 - share).abs()))
                .map(|(at, _)| *at)
        })
        .collect();
    chosen.dedup();
    chosen.into_iter().map(|at| shortest_after(sorted[at - 1].0, sorted[at].0)).collect()
}

/// The shortest prefix of `value` that sorts after `previous` (`previous < value`).
fn shortest_after(previous: &str, value: &str) -> String {
    let mut end = 0;
    for (index, character) in value.char_indices() {
        end = index + character.len_utf8();
        if &value[..end] > previous {
            break;
        }
    }
    value[..end].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_is_cut_where_its_load_balances() {
        let sorted = [("apple", 100.0), ("apricot", 100.0), ("banana", 100.0), ("cherry", 100.0)];
        assert_eq!(cuts(&sorted, 2), ["b"]);
        assert_eq!(cuts(&sorted, 4), ["apr", "b", "c"]);
        let skewed = [("a", 10.0), ("b", 10.0), ("c", 300.0), ("d", 10.0)];
        assert_eq!(cuts(&skewed, 2), ["c"], "the heavy value starts its own piece");
        assert!(cuts(&[("one", 500.0), ("one", 500.0)], 3).is_empty(), "one value: nothing to cut");
    }

    #[test]
    fn a_cut_is_the_shortest_prefix_after_the_value_before() {
        assert_eq!(shortest_after("abc", "abd"), "abd");
        assert_eq!(shortest_after("ab", "abc"), "abc");
        assert_eq!(shortest_after("a", "b"), "b");
        assert_eq!(shortest_after("é", "éa"), "éa");
    }
}
