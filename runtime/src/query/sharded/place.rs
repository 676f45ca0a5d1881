//! A place in the output order of a sharded read: group, then sort key, then lane.

use std::cmp::Ordering;

/// A place in the output order.
///
/// Groups (time buckets, range shards) come one after another in the order they are read; within
/// a group, places order by sort-key bytes (`None`: before every key), ties by lane. A descending
/// read reverses the order within a group, not the order of the groups, which are numbered in
/// the order they are read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    pub group: u64,
    pub key: Option<Vec<u8>>,
    pub lane: usize,
    pub descending: bool,
}

impl Ord for Place {
    /// `Less` means earlier in the output.
    fn cmp(&self, other: &Self) -> Ordering {
        let within = match (&self.key, &other.key) {
            (None, None) => self.lane.cmp(&other.lane),
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (Some(a), Some(b)) => {
                let natural = a.cmp(b).then(self.lane.cmp(&other.lane));
                if self.descending {
                    natural.reverse()
                } else {
                    natural
                }
            }
        };
        self.group.cmp(&other.group).then(within)
    }
}

impl PartialOrd for Place {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Whether an item of `lane` with sort key `key` comes before (or is) the item of lane `end` with
/// the same key, in a read's tie order: lower lanes first, higher first when descending.
pub(crate) fn ties_before(lane: usize, end: usize, descending: bool) -> bool {
    if descending {
        lane > end
    } else {
        lane < end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(group: u64, key: Option<&str>, lane: usize, descending: bool) -> Place {
        Place { group, key: key.map(|key| key.as_bytes().to_vec()), lane, descending }
    }

    #[test]
    fn groups_first_then_keys_then_lanes() {
        for descending in [false, true] {
            assert!(place(0, Some("z"), 9, descending) < place(1, None, 0, descending));
            assert!(place(1, None, 5, descending) < place(1, Some("a"), 0, descending));
        }
        assert!(place(0, Some("a"), 1, false) < place(0, Some("b"), 0, false));
        assert!(place(0, Some("b"), 0, true) < place(0, Some("a"), 1, true));
        assert!(place(0, Some("a"), 0, false) < place(0, Some("a"), 1, false));
        assert!(place(0, Some("a"), 1, true) < place(0, Some("a"), 0, true));
        assert!(ties_before(0, 1, false) && ties_before(1, 0, true) && !ties_before(1, 1, false));
    }
}
