//! A page end's *horizon*: what the merge knows, when a page ends, about where each lane's next
//! items lie, so that the pages after it ask only the lanes that can hold their items.
//!
//! When a page ends, each lane's next item is known to lie at or after its first buffered item,
//! the floor where its reading stopped, or the edge it was parked at and was not read past since;
//! or it is unknown (never read, read up to the page end, or a request in flight). These cut into
//! bands ([`super::super::bands`]); the next page parks each lane at its band's edge
//! ([`Merger::told`]): a parked lane blocks the merge right after the edge, like a lane
//! whose reading stopped there, so it is read only if the merge gets that far, and nothing
//! before it can be skipped. Lanes whose next items are unknown are read as usual. A lane parked
//! and not read keeps its edge in the next page's bands, so what a first page saw of 500 keys
//! serves the pages after it until they reach it.

use super::super::bands::{cut, parks, Bands, Bound, Next};
use super::Merger;

/// What a page end tells a lane of the page that follows it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Told {
    /// Where it is parked: it holds nothing before this bound.
    pub parked: Option<Bound>,
    /// How many items of the page it holds: it is asked for those and the one after them.
    pub held: Option<usize>,
}

impl<T, C: Clone> Merger<T, C> {
    /// Tells the first group's lanes (by position in the group) what a page end knows of them.
    pub(crate) fn told(mut self, told: Vec<Told>) -> Self {
        self.first_told = told;
        self
    }

    /// The bands for the pages after this one, of about `items` lanes each (pages of `items`),
    /// and the items each lane read as usual holds up to the first edge, when all of them are
    /// buffered (by position); `None` when no lane can be parked, or the read has groups of
    /// lanes one after another.
    pub(crate) fn horizon(&self, items: usize) -> Option<(Bands, Vec<Option<usize>>)> {
        if self.groups.count != 1 || self.next_group != 1 || items == 0 {
            return None;
        }
        let next: Vec<Next> = (0..self.groups.width)
            .map(|lane| {
                let Some(state) = self.lanes.get(&lane) else { return Next::Done };
                let inclusive = |key: &Vec<u8>| Next::At(Bound { key: key.clone(), exclusive: false });
                match (&state.parked, state.buffer.front(), &state.floor) {
                    (Some(bound), ..) => Next::At(bound.clone()),
                    (None, Some((key, _)), _) => inclusive(key),
                    (None, None, _) if !state.has_more() => Next::Done,
                    (None, None, Some(floor)) => inclusive(floor),
                    (None, None, None) => Next::Unknown,
                }
            })
            .collect();
        // The next page ends by the `items`-th item buffered, if that many are: chosen among
        // borrowed keys (a stream asks before every item), in output order (key, then lane).
        let descending = self.descending;
        let mut buffered: Vec<(&[u8], usize)> = self
            .lanes
            .iter()
            .flat_map(|(&lane, state)| state.buffer.iter().map(move |(key, _)| (key.as_slice(), lane)))
            .collect();
        let in_output_order = |a: &(&[u8], usize), b: &(&[u8], usize)| {
            if descending {
                b.cmp(a)
            } else {
                a.cmp(b)
            }
        };
        let horizon = match items.checked_sub(1) {
            Some(nth) if nth < buffered.len() => {
                Some(buffered.select_nth_unstable_by(nth, in_output_order).1 .0.to_vec())
            }
            _ => None,
        };
        let bands = cut(&next, items, horizon.as_deref(), descending)?;
        let edge = &bands.edges[0];
        let held = bands
            .codes
            .iter()
            .enumerate()
            .map(|(lane, &code)| {
                let state = self.lanes.get(&lane).filter(|_| code == 0)?;
                let after =
                    |key: &Vec<u8>| parks(edge, &Bound { key: key.clone(), exclusive: false }, descending);
                // Every item up to the edge is buffered when one after it is, or none is left.
                let complete = state.buffer.back().is_some_and(|(key, _)| after(key)) || !state.has_more();
                complete.then(|| state.buffer.iter().take_while(|(key, _)| !after(key)).count())
            })
            .collect();
        Some((bands, held))
    }
}
