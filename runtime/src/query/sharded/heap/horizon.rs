//! A page end's *horizon*: what the merge knows, when a page ends, about where each lane's next
//! items lie, so that the next page asks only the lanes that can hold its items.
//!
//! When a page ends, the merge holds items it read but did not emit. If at least `items` of them
//! are buffered, the next page of `items` lies at or before the `items`-th of them, the horizon:
//! a lane whose next item is known to come after it (its first buffered item, or the floor where
//! its reading stopped) cannot hold any of that page. The next page parks those lanes at the
//! horizon ([`Merger::with_floors`]): a parked lane blocks the merge right after the horizon's
//! sort key (every lane whose next item may have that key is read), like a lane whose reading
//! stopped there, so it is read only if the merge gets that far (items
//! deleted meanwhile, or a longer page), and nothing before it can be skipped. Lanes whose next
//! items are unknown (never read, or read up to the page end) are read as usual.

use super::{Merger, Place};

impl<T, C: Clone> Merger<T, C> {
    /// Parks the first group's lanes at `floors` (by position in the group; `None`: not parked):
    /// each is known to hold nothing before its floor's sort key, nor at it.
    pub(crate) fn with_floors(mut self, floors: Vec<Option<Vec<u8>>>) -> Self {
        self.first_floors = floors;
        self
    }

    /// The horizon for a next page of `items`: its sort key, and the lanes that may hold items
    /// before it (every other lane of the read holds none); `None` when fewer than `items` are
    /// buffered, or the read has groups of lanes one after another.
    pub(crate) fn horizon(&self, items: usize) -> Option<(Vec<u8>, Vec<usize>)> {
        if self.groups.count != 1 || self.next_group != 1 || items == 0 {
            return None;
        }
        let descending = self.descending;
        let place = |key: &Vec<u8>, lane: usize| Place { group: 0, key: Some(key.clone()), lane, descending };
        let mut buffered: Vec<Place> = self
            .lanes
            .iter()
            .flat_map(|(&lane, state)| state.buffer.iter().map(move |(key, _)| place(key, lane)))
            .collect();
        if buffered.len() < items {
            return None;
        }
        let (_, horizon, _) = buffered.select_nth_unstable(items - 1);
        let horizon = horizon.clone();
        let read = self
            .lanes
            .iter()
            .filter(|(&lane, state)| {
                // Where the lane's next item lies at the earliest; `None`: unknown.
                let next = match state.buffer.front() {
                    Some((key, _)) => Some(place(key, lane)),
                    None => state.floor.as_ref().map(|floor| place(floor, lane)),
                };
                // A lane whose next item may have the horizon's key is read too, so that every
                // parked lane holds only keys after it (see `place::just_after`).
                next.is_none_or(|next| next <= horizon || next.key == horizon.key)
            })
            .map(|(&lane, _)| lane)
            .collect();
        Some((horizon.key.unwrap_or_default(), read))
    }
}
