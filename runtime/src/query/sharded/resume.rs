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

use super::heap::Continuation;
use super::place::ties_before;
use crate::error::Item;
use crate::query::SortRange;

/// The last item of a page, and its lane (by natural number).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PageEnd {
    pub lane: u64,
    pub key: Item,
}

/// Where a read starts.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Start {
    /// At the beginning.
    Beginning,
    /// Right after the last item of an earlier page.
    After(PageEnd),
}

/// How the lanes of a page end's group resume.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Resumed {
    /// The group, in read order.
    pub group: u64,
    /// The read's sort-key range from the page end's sort key on.
    pub range: SortRange,
    /// The page end's sort key, dropped from the lanes that come before its lane at equal keys.
    pub sort_key: Option<String>,
    /// The page end's place within its group.
    pub end: usize,
    pub descending: bool,
}

impl Resumed {
    /// The resumption of `range` at the page end at place `end` of group `group`, with sort key
    /// `sort_key` and keys `key`; the continuations of the group's `width` lanes.
    pub(crate) fn at(
        range: &SortRange,
        group: u64,
        end: usize,
        width: usize,
        sort_key: Option<&str>,
        key: Item,
        descending: bool,
    ) -> (Self, Vec<Continuation<Item>>) {
        let mut key = Some(key);
        let starts = (0..width)
            .map(|lane| {
                if lane == end {
                    Continuation::Start(key.take())
                } else if sort_key.is_none() && ties_before(lane, end, descending) {
                    // Without a sort key, every item ties: the lanes before the end are done.
                    Continuation::Done
                } else {
                    Continuation::Start(None)
                }
            })
            .collect();
        let range = match sort_key {
            Some(sort_key) => range.resumed_at(sort_key, descending),
            None => range.clone(),
        };
        let resumed = Resumed { group, range, sort_key: sort_key.map(str::to_owned), end, descending };
        (resumed, starts)
    }

    /// Whether lane `lane` of the group drops items whose sort key is `sort_key`.
    pub(crate) fn drops(&self, lane: usize, sort_key: Option<&str>) -> bool {
        ties_before(lane, self.end, self.descending)
            && sort_key.is_some()
            && sort_key == self.sort_key.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::types::AttributeValue;

    fn key() -> Item {
        [("sk".to_owned(), AttributeValue::S("m".into()))].into_iter().collect()
    }

    #[test]
    fn the_end_lane_resumes_after_the_item_and_earlier_lanes_drop_ties() {
        let (resumed, starts) = Resumed::at(&SortRange::all(), 0, 2, 4, Some("m"), key(), false);
        assert_eq!(starts[2], Continuation::Start(Some(key())));
        assert!(starts
            .iter()
            .enumerate()
            .all(|(lane, start)| lane == 2 || *start == Continuation::Start(None)));
        assert!(resumed.drops(0, Some("m")) && resumed.drops(1, Some("m")));
        assert!(!resumed.drops(3, Some("m")) && !resumed.drops(0, Some("n")) && !resumed.drops(2, Some("m")));
        let (descending, _) = Resumed::at(&SortRange::all(), 0, 2, 4, Some("m"), key(), true);
        assert!(descending.drops(3, Some("m")) && !descending.drops(1, Some("m")));
    }

    #[test]
    fn without_a_sort_key_earlier_lanes_are_done() {
        let (_, starts) = Resumed::at(&SortRange::all(), 0, 1, 3, None, key(), false);
        assert_eq!(starts, [Continuation::Done, Continuation::Start(Some(key())), Continuation::Start(None)]);
    }
}
