//! Resuming a read after the last item of an earlier page: the *page end*.
//!
//! A cursor holds one item, whatever the shard count: the page's last item (its keys) and its
//! lane. Every lane of that item's group resumes at the item's sort key, in the direction of the
//! read. The item's own lane resumes right after it (DynamoDB's `ExclusiveStartKey`); a lane that
//! comes before it among equal sort keys drops the items with that key, which were on earlier
//! pages; every later lane keeps them. Later groups start at their beginning, earlier ones are
//! done. So a page never returns an item that sorts before the previous page's last one, even
//! with writers inserting between pages, and each lane of the group is asked afresh, not after
//! what a previous page happened to read from it.
//!
//! A page end read in another layout (before a cut-over, a reverse, or a raise that changed the
//! lanes) has no lane here: every lane resumes at its sort key and drops the items with that key
//! that earlier pages returned, named in the page end's [`Ties`] (see
//! [`super::crossing`]). The ties stay with the page ends that follow while they share that
//! sort key.

mod horizon;

pub(crate) use horizon::Horizon;

use super::heap::Continuation;
use super::lanes::Lanes;
use super::place::ties_before;
use crate::error::Item;
use crate::fingerprint::fingerprint;
use crate::key_record::key_record;
use crate::query::{QueryPlan, SortRange};
use crate::table::TableDefinition;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Items already returned that share the page end's sort key and that the lane rule does not
/// cover: the identities ([`identity`]) of their table keys.
pub(crate) type Ties = Arc<BTreeSet<String>>;

/// The last item of a page, and its lane (by natural number).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PageEnd {
    /// The item's lane; `None` when it was read in another layout.
    pub lane: Option<u64>,
    pub key: Item,
    /// Items with the same sort key returned before it, besides those the lane rule covers.
    pub ties: Ties,
    /// Where the next page ends at the latest, and the lanes that may hold items before it.
    pub horizon: Option<Arc<Horizon>>,
    /// For the end right after a page's first item: what the page before it held, its first
    /// sort key and the lanes of its items, so that a previous page from here asks only those
    /// (see [`Horizon::first`]).
    pub back: Option<Arc<Horizon>>,
}

impl PageEnd {
    /// The end at `key`, in lane `lane`, with no ties carried.
    pub(crate) fn at(lane: u64, key: Item) -> Self {
        PageEnd { lane: Some(lane), key, ties: Ties::default(), horizon: None, back: None }
    }
}

/// Where a read starts.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Start {
    /// At the beginning.
    Beginning,
    /// Right after the last item of an earlier page.
    After(PageEnd),
}

/// The identity of an item by its table key, the same in every layout of every index: a short
/// digest, so that a cursor can name items without holding their keys.
pub(crate) fn identity(table: &TableDefinition, item: &Item) -> String {
    let key: Item = std::iter::once(table.partition_key)
        .chain(table.sort_key)
        .filter_map(|name| item.get(name).map(|value| (name.to_owned(), value.clone())))
        .collect();
    fingerprint(&key_record(&key), 8)
}

/// How the lanes of a page end's group resume.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Resumed {
    /// The group, in read order.
    pub group: u64,
    /// Whether the page end came from another layout: then every group from `group` on resumes
    /// at its sort key (groups are not the same across layouts).
    pub every_group: bool,
    /// The read's sort-key range from the page end's sort key on.
    pub range: SortRange,
    /// The page end's sort key, dropped from the lanes that come before its lane at equal keys.
    pub sort_key: Option<String>,
    /// The page end's place within its group (`None`: from another layout).
    pub end: Option<usize>,
    /// Items with the page end's sort key that were returned before.
    pub ties: Ties,
    pub descending: bool,
}

impl Resumed {
    /// The resumption of `range` at page end `end` (its place in group `group`, or `None` when
    /// read in another layout), with sort key `sort_key`; the continuations of the group's
    /// `width` lanes.
    pub(crate) fn at(
        range: &SortRange,
        (group, place): (u64, Option<usize>),
        width: usize,
        sort_key: Option<&str>,
        end: PageEnd,
        descending: bool,
    ) -> (Self, Vec<Continuation<Item>>) {
        let mut key = Some(end.key);
        let starts = (0..width)
            .map(|lane| match place {
                Some(place) if lane == place => Continuation::Start(key.take()),
                // Without a sort key, every item ties: the lanes before the end are done.
                Some(place) if sort_key.is_none() && ties_before(lane, place, descending) => {
                    Continuation::Done
                }
                _ => Continuation::Start(None),
            })
            .collect();
        let range = match sort_key {
            Some(sort_key) => range.resumed_at(sort_key, descending),
            None => range.clone(),
        };
        let resumed = Resumed {
            group,
            every_group: place.is_none(),
            range,
            sort_key: sort_key.map(str::to_owned),
            end: place,
            ties: end.ties,
            descending,
        };
        (resumed, starts)
    }

    /// Whether the lanes of group `group` resume here.
    pub(crate) fn covers(&self, group: u64) -> bool {
        group == self.group || (self.every_group && group > self.group)
    }

    /// Whether lane `lane` of a group it covers drops the item `identity` whose sort key is
    /// `sort_key`: an earlier page returned it.
    pub(crate) fn drops(
        &self,
        lane: usize,
        sort_key: Option<&str>,
        identity: impl FnOnce() -> String,
    ) -> bool {
        if sort_key.is_none() || sort_key != self.sort_key.as_deref() {
            return false;
        }
        let before_end = self.end.is_some_and(|end| ties_before(lane, end, self.descending));
        before_end || (!self.ties.is_empty() && self.ties.contains(&identity()))
    }
}

/// Marks done the lanes of a merge whose own range lies wholly before the page end `resumed`
/// resumes at: nothing of theirs is left.
pub(crate) fn finish_passed_lanes(
    plan: &QueryPlan,
    lanes: &Lanes,
    resumed: &Resumed,
    starts: &mut [Continuation<Item>],
) {
    let Some(key) = resumed.sort_key.as_deref() else { return };
    let base = usize::try_from(resumed.group).unwrap_or(0).saturating_mul(lanes.groups().width);
    for (offset, start) in starts.iter_mut().enumerate() {
        let natural = lanes.natural(base + offset);
        if plan.range_of(natural).part_from(key, plan.descending).is_none() {
            *start = Continuation::Done;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::types::AttributeValue;

    fn key() -> Item {
        [("sk".to_owned(), AttributeValue::S("m".into()))].into_iter().collect()
    }

    fn end(ties: &[&str]) -> PageEnd {
        PageEnd {
            lane: Some(2),
            key: key(),
            ties: Arc::new(ties.iter().map(|tie| (*tie).to_owned()).collect()),
            horizon: None,
            back: None,
        }
    }

    #[test]
    fn the_end_lane_resumes_after_the_item_and_earlier_lanes_drop_ties() {
        let (resumed, starts) = Resumed::at(&SortRange::all(), (0, Some(2)), 4, Some("m"), end(&[]), false);
        assert_eq!(starts[2], Continuation::Start(Some(key())));
        assert!(starts
            .iter()
            .enumerate()
            .all(|(lane, start)| lane == 2 || *start == Continuation::Start(None)));
        let drops = |resumed: &Resumed, lane, sort_key| resumed.drops(lane, sort_key, || "x".into());
        assert!(drops(&resumed, 0, Some("m")) && drops(&resumed, 1, Some("m")));
        assert!(
            !drops(&resumed, 3, Some("m"))
                && !drops(&resumed, 0, Some("n"))
                && !drops(&resumed, 2, Some("m"))
        );
        let (descending, _) = Resumed::at(&SortRange::all(), (0, Some(2)), 4, Some("m"), end(&[]), true);
        assert!(drops(&descending, 3, Some("m")) && !drops(&descending, 1, Some("m")));
        assert!(resumed.covers(0) && !resumed.covers(1));
    }

    #[test]
    fn without_a_sort_key_earlier_lanes_are_done() {
        let (_, starts) = Resumed::at(&SortRange::all(), (0, Some(1)), 3, None, end(&[]), false);
        assert_eq!(starts, [Continuation::Done, Continuation::Start(Some(key())), Continuation::Start(None)]);
    }

    #[test]
    fn an_end_from_another_layout_drops_only_the_ties_it_names_in_every_lane_and_group() {
        let (resumed, starts) =
            Resumed::at(&SortRange::all(), (0, None), 3, Some("m"), end(&["a", "b"]), false);
        assert!(starts.iter().all(|start| *start == Continuation::Start(None)));
        for lane in 0..3 {
            assert!(resumed.drops(lane, Some("m"), || "a".into()));
            assert!(!resumed.drops(lane, Some("m"), || "c".into()));
            assert!(!resumed.drops(lane, Some("n"), || "a".into()));
        }
        assert!(resumed.covers(0) && resumed.covers(7));
        // Carried ties drop in the same layout too, besides the lane rule.
        let (same, _) = Resumed::at(&SortRange::all(), (0, Some(1)), 3, Some("m"), end(&["a"]), false);
        assert!(same.drops(2, Some("m"), || "a".into()) && !same.drops(2, Some("m"), || "c".into()));
    }
}
