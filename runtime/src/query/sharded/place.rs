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

/// A sort key in the gap right after every key equal to `key`, in a read's direction, and before
/// every later key: `key` and a zero byte ascending; descending, `key` with its last byte lowered
/// and a 0xFF byte after it, which no UTF-8 text holds (`key` cut short when its last byte is
/// zero). `None` descending after the empty key, before which nothing lies.
pub(crate) fn just_after(key: &[u8], descending: bool) -> Option<Vec<u8>> {
    if !descending {
        let mut after = key.to_vec();
        after.push(0);
        return Some(after);
    }
    let (&last, rest) = key.split_last()?;
    let mut after = rest.to_vec();
    if last > 0 {
        after.extend([last - 1, 0xFF]);
    }
    Some(after)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn just_after_a_key_lies_between_it_and_every_later_key() {
        let keys = ["", "\0", "a", "a\0", "ab", "b", "é", "éa", "z\u{10FFFF}", "zz"];
        for descending in [false, true] {
            for key in keys {
                let Some(gap) = just_after(key.as_bytes(), descending) else {
                    assert!(descending && key.is_empty());
                    continue;
                };
                let gap = place(0, Some(std::str::from_utf8(&gap).unwrap_or("")), 0, descending);
                let gap = Place { key: just_after(key.as_bytes(), descending), ..gap };
                for other in keys {
                    let other_place = place(0, Some(other), 0, descending);
                    let later = if descending { other < key } else { other > key };
                    // Every later key is at or after the gap; the key itself and earlier ones before it.
                    assert_eq!(other_place >= gap, later, "{key:?} {other:?} descending {descending}");
                }
            }
        }
    }

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
