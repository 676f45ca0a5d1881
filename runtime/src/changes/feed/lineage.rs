//! Which shards of a stream a pass of a change feed reads, sans I/O: the shards the stream lists,
//! the shards the feed has recorded, and what each lease says, in; the shards to record, to read
//! and to forget, or the gap that makes the feed incomplete, out.
//!
//! The rules:
//! - A shard is read only after its parent has been read to its end, so that the changes of one
//!   item come in the order they were made (a stream splits a shard into children that hold the
//!   later changes of the same items).
//! - The feed records every shard it sees, with a lease item made before the shard is recorded.
//!   A recorded shard that is not read to its end and is no longer listed was trimmed (a stream
//!   keeps records 24 hours) before the feed read it: a gap. One without its lease item was
//!   forgotten by another process meanwhile (below): not a gap.
//! - After the first pass, a new shard whose parent is neither recorded nor listed descends from a
//!   shard the feed never saw, created and trimmed while the feed was not read: a gap too. On the
//!   first pass, the shards listed are the feed's origin, and their parents are history before it.
//! - A recorded shard read to its end and no longer listed is forgotten: its children were listed
//!   when it ended (a stream creates them as it closes the parent), so they are recorded.

pub(crate) use crate::client::ListedShard;
use std::collections::{BTreeMap, BTreeSet};

/// What one pass does.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Shards to record (first seen now).
    pub record: Vec<String>,
    /// Shards that may be read now, in the order listed: not ended, parent ended or unknown.
    pub ready: Vec<String>,
    /// Shards read to their end and no longer listed: forget them.
    pub forget: Vec<String>,
    /// Why the feed misses changes, if it does.
    pub gap: Option<String>,
}

/// Plans a pass: `listed` as the stream lists it now, `recorded` the shards the feed recorded
/// before (`None` on its first pass), `leased` those with a lease item, `ended` those read to
/// their end.
pub(crate) fn plan(
    listed: &[ListedShard],
    recorded: Option<&BTreeSet<String>>,
    leased: &BTreeSet<String>,
    ended: &BTreeSet<String>,
) -> Plan {
    let first = recorded.is_none();
    let empty = BTreeSet::new();
    let recorded = recorded.unwrap_or(&empty);
    let listed_ids: BTreeMap<&str, &ListedShard> =
        listed.iter().map(|shard| (shard.id.as_str(), shard)).collect();
    let mut plan = Plan::default();
    for shard in recorded {
        if !listed_ids.contains_key(shard.as_str()) {
            if ended.contains(shard) {
                plan.forget.push(shard.clone());
            } else if leased.contains(shard) && plan.gap.is_none() {
                plan.gap =
                    Some(format!("shard {shard} was trimmed from the stream before it was read to its end"));
            }
        }
    }
    for shard in listed {
        let known_parent = |parent: &str| recorded.contains(parent) || listed_ids.contains_key(parent);
        if !recorded.contains(&shard.id) {
            plan.record.push(shard.id.clone());
            match &shard.parent {
                Some(parent) if !first && !known_parent(parent) && plan.gap.is_none() => {
                    plan.gap = Some(format!(
                        "shard {} descends from shard {parent}, which was trimmed from the stream unread",
                        shard.id
                    ));
                }
                _ => {}
            }
        }
        if ended.contains(&shard.id) {
            continue;
        }
        let parent_done = match &shard.parent {
            None => true,
            Some(parent) => ended.contains(parent) || !known_parent(parent),
        };
        if parent_done {
            plan.ready.push(shard.id.clone());
        }
    }
    plan
}

/// Whether `listed`, a listing made earlier, still holds every shard a pass could read, given
/// the shards the feed has `recorded` and those `ended` (read to their end): it holds the
/// recorded shards and no other (one recorded and not listed was found by a newer listing; one
/// listed and not recorded was forgotten since, trimmed from the stream), and every shard in it
/// that ended has a child in it. A stream adds shards only as children of one it closes, and a
/// closed shard is read to its end before its children are read, so a listing that passes misses
/// nothing the pass would read now.
pub(crate) fn still_covers(
    listed: &[ListedShard],
    recorded: &BTreeSet<String>,
    ended: &BTreeSet<String>,
) -> bool {
    let ids: BTreeSet<&str> = listed.iter().map(|shard| shard.id.as_str()).collect();
    let parents: BTreeSet<&str> = listed.iter().filter_map(|shard| shard.parent.as_deref()).collect();
    ids.len() == recorded.len()
        && recorded.iter().all(|shard| ids.contains(shard.as_str()))
        && ids.iter().all(|shard| !ended.contains(*shard) || parents.contains(shard))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shard(id: &str, parent: Option<&str>) -> ListedShard {
        ListedShard { id: id.into(), parent: parent.map(str::to_owned), ..ListedShard::default() }
    }

    fn set(ids: &[&str]) -> BTreeSet<String> {
        ids.iter().map(|id| id.to_string()).collect()
    }

    #[test]
    fn the_first_pass_records_every_shard_and_reads_the_oldest_first() {
        let listed = [shard("a", Some("gone")), shard("b", Some("a")), shard("c", None)];
        let planned = plan(&listed, None, &set(&[]), &set(&[]));
        assert_eq!(planned.record, ["a", "b", "c"]);
        assert_eq!(planned.ready, ["a", "c"], "b waits for its parent a; a's parent is history");
        assert_eq!(planned.gap, None);
    }

    #[test]
    fn a_child_is_read_once_its_parent_ended() {
        let listed = [shard("a", None), shard("b", Some("a"))];
        let planned = plan(&listed, Some(&set(&["a", "b"])), &set(&["a", "b"]), &set(&["a"]));
        assert_eq!(planned.ready, ["b"]);
        assert!(planned.record.is_empty() && planned.forget.is_empty() && planned.gap.is_none());
    }

    #[test]
    fn ended_shards_no_longer_listed_are_forgotten() {
        let listed = [shard("b", Some("a"))];
        let planned = plan(&listed, Some(&set(&["a", "b"])), &set(&["a", "b"]), &set(&["a"]));
        assert_eq!(planned.forget, ["a"]);
        assert_eq!(planned.ready, ["b"], "its parent ended");
        assert_eq!(planned.gap, None);
    }

    #[test]
    fn a_shard_trimmed_before_its_end_is_a_gap() {
        let listed = [shard("b", Some("a"))];
        let planned = plan(&listed, Some(&set(&["a", "b"])), &set(&["a", "b"]), &set(&[]));
        assert!(planned.gap.unwrap().contains("shard a was trimmed"));
        let forgotten = plan(&listed, Some(&set(&["a", "b"])), &set(&["b"]), &set(&[]));
        assert_eq!(forgotten.gap, None, "its lease is gone: another process forgot it meanwhile");
    }

    #[test]
    fn a_new_shard_of_an_unseen_parent_is_a_gap_after_the_first_pass() {
        let listed = [shard("c", Some("b"))];
        let planned = plan(&listed, Some(&set(&["a"])), &set(&["a"]), &set(&["a"]));
        assert!(planned.gap.unwrap().contains("descends from shard b"));
        let listed = [shard("c", Some("b")), shard("b", Some("a"))];
        let planned = plan(&listed, Some(&set(&["a"])), &set(&["a"]), &set(&["a"]));
        assert_eq!(planned.gap, None, "its parent is listed: not a gap");
        assert_eq!(planned.record, ["c", "b"]);
        assert_eq!(planned.ready, ["b"]);
    }

    #[test]
    fn a_listing_covers_a_pass_until_a_shard_ends_without_its_children_or_another_records_more() {
        let listed = [shard("a", None), shard("b", Some("a")), shard("c", None)];
        let recorded = set(&["a", "b", "c"]);
        assert!(still_covers(&listed, &recorded, &set(&[])), "nothing ended");
        assert!(still_covers(&listed, &recorded, &set(&["a"])), "a ended, and its child b is listed");
        assert!(!still_covers(&listed, &recorded, &set(&["a", "c"])), "c ended: its children are not listed");
        assert!(!still_covers(&listed, &recorded, &set(&["b"])), "b ended: its children are not listed");
        assert!(!still_covers(&listed, &set(&["a", "b", "c", "d"]), &set(&[])), "another process recorded d");
        assert!(!still_covers(&listed, &set(&["b", "c"]), &set(&[])), "another process forgot a");
        assert!(still_covers(&[], &set(&[]), &set(&["gone"])), "a shard ended that this listing never held");
    }
}
