//! Groups whose lanes are *listed*: a read that knows, from a directory, which lanes of each
//! group can hold items (the non-empty partitions of a time window's buckets) opens only those,
//! and passes every group the directory does not list without a request.
//!
//! The directory is read in the read's order, a part at a time, as the merge reaches it: the
//! listing says which groups are known (every group before `through`) and which of them hold
//! which lanes. The next group to open waits, like an unopened group, until the listing reaches
//! it; a group known and not listed is passed over, as is a lane not listed in a listed group.

use super::{Continuation, Merger};
use std::collections::BTreeMap;

/// What the directory said of the groups read so far.
#[derive(Debug, Default)]
pub(crate) struct Listing {
    /// The lanes (positions in the group) each listed group holds.
    live: BTreeMap<u64, Vec<usize>>,
    /// Every group before it is known: listed in `live`, or empty.
    through: u64,
    /// Whether the merge waits on the listing to go on.
    wanted: bool,
}

impl<T, C: Clone> Merger<T, C> {
    /// The merge with its groups listed: none is opened until [`Merger::list`] says what it
    /// holds.
    pub(crate) fn listed(mut self) -> Self {
        self.listing = Some(Listing { through: self.next_group, ..Listing::default() });
        self
    }

    /// The first group the listing does not reach yet, when the merge needs it to go on: the
    /// next part of the directory to read starts there.
    pub(crate) fn unlisted(&self) -> Option<u64> {
        let listing = self.listing.as_ref()?;
        let needed = listing.wanted || self.blocked.first() == Some(&self.unopened(self.next_group));
        (listing.through < self.groups.count && self.next_group >= listing.through && needed)
            .then_some(listing.through)
    }

    /// Hands the merge what the directory says of the groups before `through`: `groups` lists
    /// the lanes of those that hold items (positions in the group); every other is empty.
    pub(crate) fn list(&mut self, groups: impl IntoIterator<Item = (u64, Vec<usize>)>, through: u64) {
        let next = self.next_group;
        let Some(listing) = self.listing.as_mut() else { return };
        for (group, lanes) in groups {
            if group >= next && group < through {
                listing.live.entry(group).or_default().extend(lanes);
            }
        }
        listing.through = listing.through.max(through).min(self.groups.count);
        listing.wanted = false;
        self.pass_unlisted();
    }

    /// Whether group `group` may be opened now, as far as the listing goes (unlisted reads: always).
    pub(super) fn may_open(&mut self, group: u64) -> bool {
        let Some(listing) = self.listing.as_mut() else { return true };
        if group >= listing.through {
            listing.wanted = true;
            return false;
        }
        true
    }

    /// The start of each lane of group `group` as the listing allows: lanes it does not list
    /// are done before they start.
    pub(super) fn listed_starts(&mut self, group: u64, starts: &mut Vec<Continuation<C>>) {
        let Some(listing) = self.listing.as_mut() else { return };
        let live = listing.live.remove(&group).unwrap_or_default();
        starts.resize_with(self.groups.width, || Continuation::Start(None));
        for (offset, start) in starts.iter_mut().enumerate() {
            if !live.contains(&offset) {
                *start = Continuation::Done;
            }
        }
    }

    /// Moves the next group to open past the groups the listing knows to be empty.
    pub(super) fn pass_unlisted(&mut self) {
        let Some(listing) = self.listing.as_ref() else { return };
        let from = self.next_group;
        let next = match listing.live.range(from..).next() {
            Some((&group, _)) if group < listing.through => group,
            _ => listing.through.max(from),
        };
        if next == from {
            return;
        }
        self.blocked.remove(&self.unopened(from));
        // The starts and floors of a resumed read are its first group's, which holds nothing.
        self.first_starts.clear();
        self.first_told.clear();
        self.next_group = next;
        if next < self.groups.count {
            self.blocked.insert(self.unopened(next));
        }
    }
}
