//! Shard pruning: conditions on the value a sharded index routes by read only the shards that
//! can hold matching items.
//!
//! - Hash shards: equality on the routing placeholder reads the one shard its hash selects.
//! - Range shards: the index is sorted by the normalized routing value (see
//!   [`crate::shard::range_sort_key`]), so conditions compare normalized values and read only
//!   the shards whose ranges overlap the condition, in order.

use super::conditions::{Narrow, PrefixCondition, RangeCondition, Sealed};
use super::range::SortRange;
use super::range::MAX_SUFFIX;
use super::{Done, Query};
use crate::shard::{normalized_prefix, Boundaries, Layout, PART_SEPARATOR};
use std::ops::RangeInclusive;
use std::sync::Arc;

/// The sort key of a range-sharded index: conditions take the routing value as text and compare
/// it normalized, the way routing compares it.
#[derive(Debug)]
pub struct Normalized;

impl<E, F> Query<E, F> {
    /// Attaches shard routing. Generated code calls this.
    #[doc(hidden)]
    pub fn routed(mut self, routing: Option<(Layout, Option<usize>)>) -> Self {
        self.plan.routing = routing;
        self
    }

    /// Keeps only the shards in `range` (shard ids; with overflow sub-shards, each shard is a run
    /// of consecutive partitions).
    pub(crate) fn keep_shards(&mut self, range: RangeInclusive<u32>) {
        let per_shard = self.plan.routing.as_ref().map_or(1, |(layout, _)| layout.partitions_per_shard());
        if let Some(shards) = &mut self.plan.shards {
            let low = *range.start() as usize * per_shard;
            let high = (*range.end() as usize + 1) * per_shard - 1;
            let high = high.min(shards.partitions.len().saturating_sub(1));
            shards.partitions = if low > high { Vec::new() } else { shards.partitions[low..=high].to_vec() };
        }
    }

    /// With hash routing on the placeholder about to be filled, keeps only the shard of `text`.
    pub(crate) fn route_equality(&mut self, text: Option<&str>) {
        let Some((layout, Some(placeholder))) = self.plan.routing.clone() else { return };
        let filled = self.plan.sort_template.map_or(0, |template| {
            template.segments[..self.plan.position.min(template.segments.len())]
                .iter()
                .filter(|segment| matches!(segment, crate::key::Segment::Field(_)))
                .count()
        });
        if let Some(shard) =
            text.filter(|_| filled == placeholder).and_then(|text| layout.equality_shard(text))
        {
            self.keep_shards(shard..=shard);
        }
    }

    /// The boundaries of a query of range shards, which conditions on the routing value prune.
    fn range_routing(&self) -> Option<Arc<Boundaries>> {
        let (layout, _) = self.plan.routing.as_ref()?;
        layout.ordered().map(|(boundaries, _)| boundaries)
    }

    /// Applies a condition on normalized values: the sort-key range, and the shards from the
    /// one holding `low` to the one holding `high` (`None`: the first or the last shard).
    fn normalized(mut self, range: SortRange, low: Option<&str>, high: Option<&str>) -> Query<E, Done> {
        if let Some(boundaries) = self.range_routing() {
            let first = low.map_or(0, |low| boundaries.shard_of_normalized(low));
            let last = high
                .map_or(boundaries.shards().saturating_sub(1), |high| boundaries.shard_of_normalized(high));
            self.keep_shards(first..=last);
        }
        self.plan.range = range;
        self.retype()
    }

    fn normalize(&self, value: &str) -> String {
        self.plan.routing.as_ref().map_or_else(|| value.to_owned(), |(layout, _)| layout.normalize(value))
    }
}

/// Every sort key of items whose normalized value is exactly `normalized` starts with this.
fn exact(normalized: &str) -> String {
    let mut prefix = normalized_prefix(normalized);
    prefix.push(PART_SEPARATOR);
    prefix
}

/// Greater than every sort key of items whose normalized value is `normalized`.
fn after(normalized: &str) -> String {
    exact(normalized) + MAX_SUFFIX
}

impl Sealed for Normalized {}

impl Narrow for Normalized {
    type Arg<'a> = &'a str;
    type Rest = Done;

    /// Items whose value normalizes to the same text as `value` (so `Leaving Home` also finds
    /// `leaving home`): one shard.
    fn eq<E>(query: Query<E, Self>, value: &str) -> Query<E, Done> {
        let n = query.normalize(value);
        query.normalized(SortRange::begins_with(&exact(&n)), Some(&n), Some(&n))
    }
}

impl RangeCondition for Normalized {
    fn lt<E>(query: Query<E, Self>, value: &str) -> Query<E, Done> {
        let n = query.normalize(value);
        query.normalized(SortRange::below("", normalized_prefix(&n), false), None, Some(&n))
    }

    fn le<E>(query: Query<E, Self>, value: &str) -> Query<E, Done> {
        let n = query.normalize(value);
        query.normalized(SortRange::below("", after(&n), true), None, Some(&n))
    }

    fn gt<E>(query: Query<E, Self>, value: &str) -> Query<E, Done> {
        let n = query.normalize(value);
        query.normalized(SortRange::above("", after(&n), false), Some(&n), None)
    }

    fn ge<E>(query: Query<E, Self>, value: &str) -> Query<E, Done> {
        let n = query.normalize(value);
        query.normalized(SortRange::above("", normalized_prefix(&n), true), Some(&n), None)
    }

    fn between<E>(mut query: Query<E, Self>, low: &str, high: &str) -> Query<E, Done> {
        let (low, high) = (query.normalize(low), query.normalize(high));
        if low > high {
            query.fail(super::range::reversed_between());
        }
        let range = SortRange::between(normalized_prefix(&low), after(&high));
        query.normalized(range, Some(&low), Some(&high))
    }
}

impl PrefixCondition for Normalized {
    /// Items whose normalized value starts with the normalized `prefix`.
    fn begins_with<E>(query: Query<E, Self>, prefix: &str) -> Query<E, Done> {
        let n = query.normalize(prefix);
        let last = format!("{n}{MAX_SUFFIX}");
        query.normalized(SortRange::begins_with(&normalized_prefix(&n)), Some(&n), Some(&last))
    }
}

impl<E, F> Query<E, F> {
    /// Keeps items whose next sort-key placeholder, a fixed-width time, lies from `from` to `to`
    /// (both included). Generated code calls this for time-bucketed indexes sorted by their time.
    #[doc(hidden)]
    pub fn time_window<H: crate::key::KeyPart>(mut self, from: H::Arg<'_>, to: H::Arg<'_>) -> Query<E, Done> {
        let (mut low, mut high) = (self.plan.prefix.clone(), self.plan.prefix.clone());
        H::encode(from, &mut low);
        H::encode(to, &mut high);
        high.push_str(MAX_SUFFIX);
        self.plan.range = SortRange::between(low, high);
        self.retype()
    }
}
