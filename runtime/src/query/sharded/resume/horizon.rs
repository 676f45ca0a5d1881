//! What a page end knows of the pages after it, or of the page before it: its [`Horizon`].

use super::super::bands::{Bands, Bound};
use super::super::heap::Told;
use super::super::lanes::Lanes;
use super::super::place::ties_before;
use super::PageEnd;
use std::collections::{BTreeMap, BTreeSet};

/// What a page end knows of the pages after it (see `heap::horizon`): every lane of the end's
/// group but those in `read` holds nothing at or before its edge: `key`, or for a lane `codes`
/// gives `j > 0`, `further[j - 1]`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Horizon {
    pub key: String,
    /// Lanes, by natural number.
    pub read: BTreeSet<u64>,
    /// Items each lane in `read` holds of the next page, when known: every one up to `key`
    /// (ahead), or the page before's (back).
    pub held: BTreeMap<u64, usize>,
    /// Edges after `key`, in read order.
    pub further: Vec<String>,
    /// Each lane's edge (by natural number; missing: `key`).
    pub codes: Vec<u8>,
    /// For a previous page's horizon (the first sort key of the page before, and the lanes of
    /// its items): the lane of the page before's first item. The lanes that come before it among
    /// equal keys may hold items with `key`, on pages before that one: they are parked at `key`,
    /// behind that item, and every other lane right after `key`.
    pub first: Option<u64>,
    /// For a previous page's horizon: whether the page before began at the read's beginning,
    /// so that nothing precedes it.
    pub beginning: bool,
}

impl Horizon {
    /// The horizon of a previous page: lanes `read` hold its items, which begin at `key` in lane
    /// `first`.
    pub(crate) fn back(key: String, held: BTreeMap<u64, usize>, first: u64, beginning: bool) -> Self {
        let read = held.keys().copied().collect();
        Horizon { key, read, held, further: Vec::new(), codes: Vec::new(), first: Some(first), beginning }
    }

    /// The horizon a page end's `bands` make for the pages after it: the first edge its key, the
    /// lanes read as usual named with the items they are known to hold up to it (`held`, by
    /// position), the others' edges by natural number.
    pub(crate) fn ahead(bands: Bands, held: &[Option<usize>], lanes: &Lanes) -> Option<Self> {
        let mut edges = bands.edges.into_iter().map(|edge| String::from_utf8(edge).ok());
        let key = edges.next()??;
        let further = edges.collect::<Option<Vec<String>>>()?;
        let (mut read, mut counts) = (BTreeSet::new(), BTreeMap::new());
        let mut codes = Vec::new();
        for (lane, code) in bands.codes.into_iter().enumerate() {
            let natural = lanes.natural(lane);
            let Some(code) = code.checked_sub(1) else {
                read.insert(natural);
                if let Some(&Some(count)) = held.get(lane).filter(|count| **count > Some(0)) {
                    counts.insert(natural, count);
                }
                continue;
            };
            let at = usize::try_from(natural).ok()?;
            if codes.len() <= at {
                codes.resize(at + 1, 0);
            }
            codes[at] = code;
        }
        // A lane past the end is at `key`: trailing zeros say nothing.
        while codes.last() == Some(&0) {
            codes.pop();
        }
        Some(Horizon { key, read, held: counts, further, codes, first: None, beginning: false })
    }

    /// The edge of lane `natural`, when parked.
    fn edge(&self, natural: u64) -> Option<&str> {
        if self.read.contains(&natural) {
            return None;
        }
        let code = usize::try_from(natural).ok().and_then(|natural| self.codes.get(natural)).copied();
        let further = code.and_then(|code| self.further.get(usize::from(code).checked_sub(1)?));
        Some(further.map_or(self.key.as_str(), String::as_str))
    }
}

impl PageEnd {
    /// What the end's horizon tells each lane of its group (by position in the group): where it
    /// is parked (the lanes the horizon does not name, right after their edges, or at the key:
    /// see [`Horizon::first`]), and how many items of the next page it holds. A read of one group
    /// only, the one that made the horizon.
    pub(crate) fn told(&self, lanes: &Lanes) -> Vec<Told> {
        let groups = lanes.groups();
        if groups.count != 1 || self.lane.is_none() {
            return Vec::new();
        }
        let descending = lanes.descending();
        let Some(horizon) = self.horizon.as_deref() else { return Vec::new() };
        let first = horizon.first.and_then(|first| lanes.lane(first));
        (0..groups.width)
            .map(|lane| {
                let natural = lanes.natural(lane);
                let parked = horizon.edge(natural).map(|edge| {
                    // A lane after the page before's first item among equal keys (read this
                    // way) may hold items with its key, which earlier pages had.
                    let at_key = first.is_some_and(|first| !ties_before(lane, first, descending));
                    Bound { key: edge.as_bytes().to_vec(), exclusive: !at_key }
                });
                let held = horizon.held.get(&natural).copied();
                Told { parked, held }
            })
            .collect()
    }
}
