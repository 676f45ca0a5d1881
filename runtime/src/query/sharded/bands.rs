//! A page end's *bands*: what a merge knows, when a page ends, of where every lane's next item
//! lies, kept in a few sort keys (the *edges*) so that a cursor can carry it for many pages.
//!
//! Each lane's next item is known to lie at or after a [`Bound`] (the first item it buffers, the
//! key where its reading stopped, or the edge it was parked at and never read past), or is
//! unknown. Sorted by bound, the lanes are cut into bands of about a page's worth of lanes; each
//! cut is an edge, a short sort key strictly before every bound after the cut. A lane is then
//! *parked* at the last edge before its bound: it holds nothing at or before that edge, so the
//! pages that follow read it only when their merge gets past the edge. The lanes before the
//! first edge are read as usual, so that the next page's first requests tell where the others
//! stand; when the page end buffers a next page's worth of items, the first edge is the last of
//! them (the next page ends by it), so that only lanes that can hold its items are read.
//!
//! Rounding a bound down to an edge never makes a lane skip an item it holds (an edge comes
//! strictly before the bound, whatever the keys); it only makes a lane read a little earlier
//! than its next item needs. Edges are short (a prefix of a key, cut after the first byte that
//! tells the two sides apart) and always whole UTF-8 text.

use super::place::just_after;
use std::cmp::Ordering;

/// Edges a page end keeps at most: each lane's band fits in four bits, none meaning read.
pub(crate) const MAX_EDGES: usize = 15;

/// The bytes of edges a page end keeps at most besides its first (a cursor carries them): keys
/// of 1 KB that differ only at their end would otherwise make a cursor of 15 KB.
pub(crate) const EDGE_BYTES: usize = 512;

/// Where a lane's next item lies at the earliest: at or after `key`, or after it when
/// `exclusive` (a lane parked at an edge holds nothing at it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Bound {
    pub key: Vec<u8>,
    pub exclusive: bool,
}

impl Bound {
    /// The floor a merge gives a lane with this bound: the key where it may block. `None`
    /// descending after the empty key, after which nothing lies.
    pub(crate) fn floor(&self, descending: bool) -> Option<Vec<u8>> {
        if self.exclusive {
            just_after(&self.key, descending)
        } else {
            Some(self.key.clone())
        }
    }
}

/// What a page end knows of a lane's next item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Next {
    /// Nothing: the lane is read as usual.
    Unknown,
    /// It holds no more items.
    Done,
    /// Its next item lies at or after the bound.
    At(Bound),
}

/// Lanes cut into bands: `edges` in read order, and each lane's band (by position): `0` read as
/// usual, `j` parked at `edges[j - 1]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Bands {
    pub edges: Vec<Vec<u8>>,
    pub codes: Vec<u8>,
}

/// The bands of lanes whose next items are `next` (by position), about `per_band` lanes a band;
/// `None` when no lane can be parked.
///
/// The lanes read as usual are those with no bound, and with `horizon` (the sort key by which
/// the next page ends if the items buffered are all there is before it) those that may hold
/// items at or before it, when they are no more than a band; else the first `per_band` lanes
/// by bound.
pub(crate) fn cut(next: &[Next], per_band: usize, horizon: Option<&[u8]>, descending: bool) -> Option<Bands> {
    let order = |a: &[u8], b: &[u8]| if descending { b.cmp(a) } else { a.cmp(b) };
    let mut bounded: Vec<&Bound> = next
        .iter()
        .filter_map(|next| match next {
            Next::At(bound) => Some(bound),
            Next::Unknown | Next::Done => None,
        })
        .collect();
    // Inclusive bounds first among equal keys: an edge at that key parks only the exclusive ones.
    bounded.sort_by(|a, b| order(&a.key, &b.key).then(a.exclusive.cmp(&b.exclusive)));
    let per_band = per_band.max(1);
    let mut edges: Vec<Vec<u8>> = Vec::new();
    let mut cut_at = per_band;
    if let Some(horizon) = horizon.filter(|horizon| std::str::from_utf8(horizon).is_ok()) {
        // Items buffered from a few lanes say little of where the others' items fall: no more
        // than a band is read before the first edge.
        let within = bounded.partition_point(|bound| !parks(horizon, bound, descending));
        if within <= per_band {
            edges.push(horizon.to_vec());
            cut_at = within + per_band;
        }
    }
    while edges.len() < MAX_EDGES && cut_at < bounded.len() {
        // The first place from `cut_at` on where an edge fits between one bound and the next.
        let found = (cut_at..bounded.len()).find_map(|at| {
            let edge = edge_between(&bounded[at.checked_sub(1)?].key, bounded[at], descending)?;
            let later = edges.last().is_none_or(|last| order(last, &edge) == Ordering::Less);
            later.then_some((at, edge))
        });
        let Some((at, edge)) = found else { break };
        // Keys sharing long prefixes make long edges: past the cursor's budget, the lanes left
        // share the last edge.
        let bytes: usize = edges.iter().map(Vec::len).sum();
        if !edges.is_empty() && bytes - edges[0].len() + edge.len() > EDGE_BYTES {
            break;
        }
        edges.push(edge);
        cut_at = at + per_band;
    }
    if edges.is_empty() {
        return None;
    }
    let last = edges.len() as u8;
    let codes = next
        .iter()
        .map(|next| match next {
            Next::Unknown => 0,
            Next::Done => last,
            Next::At(bound) => edges.iter().take_while(|edge| parks(edge, bound, descending)).count() as u8,
        })
        .collect();
    Some(Bands { edges, codes })
}

/// Whether a lane with `bound` holds nothing at or before `edge`.
pub(crate) fn parks(edge: &[u8], bound: &Bound, descending: bool) -> bool {
    let order = if descending { bound.key.as_slice().cmp(edge) } else { edge.cmp(&bound.key) };
    order == Ordering::Less || (bound.exclusive && order == Ordering::Equal)
}

/// A short edge that parks `after` and comes no earlier than the key `before` (which precedes
/// `after` in read order), when there is one that is whole UTF-8 text.
fn edge_between(before: &[u8], after: &Bound, descending: bool) -> Option<Vec<u8>> {
    if after.exclusive {
        return std::str::from_utf8(&after.key).is_ok().then(|| after.key.clone());
    }
    let common = before.iter().zip(&after.key).take_while(|(a, b)| a == b).count();
    let text = |bytes: &[u8]| std::str::from_utf8(bytes).is_ok().then(|| bytes.to_vec());
    let edge = if descending {
        // A prefix of `before` through the first byte where it passes `after`: after `after`
        // in bytes, so before it in read order, and no later than `before`.
        shortest_prefix(before, common + 1)
    } else {
        // A proper prefix of `after` through the first byte where it passes `before`.
        shortest_prefix(&after.key, common + 1).filter(|prefix| prefix.len() < after.key.len())
    };
    let edge = edge.or_else(|| (!descending).then(|| before.to_vec()));
    edge.and_then(|edge| text(&edge)).filter(|edge| parks(edge, after, descending))
}

/// The shortest prefix of `key` of at least `len` bytes that ends on a character boundary.
fn shortest_prefix(key: &[u8], len: usize) -> Option<Vec<u8>> {
    (len..=key.len()).find(|&end| std::str::from_utf8(&key[..end]).is_ok()).map(|end| key[..end].to_vec())
}

#[cfg(test)]
mod tests;
