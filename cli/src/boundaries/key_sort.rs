//! Sorting key entries by the bytes of their keys on every core, reading each key's text a few
//! times rather than at every comparison.
//!
//! A plain comparison sort reads the text of two keys (scattered over the buffer: a cache miss
//! each) whenever their eight-byte prefixes tie, and with many shared prefixes ("the ", "live in
//! ") and duplicates that is most comparisons. Instead the entries are sorted by prefix alone,
//! and every group of equal prefixes is refined: its entries' prefix fields are overwritten with
//! the next eight bytes of their keys, the group is sorted by those, and equal ones recurse.
//! After a few levels, long ties fall back to comparing the rest of the text. Every group gets
//! its first-level prefix back at the end.
//!
//! Prefixes are zero padded, so keys that agree on the padded bytes so far and end within them
//! differ only in trailing NUL bytes; the shorter is then a prefix of the longer and sorts first.

use super::{prefix_of, slice, Entry};
use rayon::prelude::*;
use std::cmp::Ordering;

/// Levels of eight bytes refined by sorting on prefix fields; ties beyond them compare text.
const LEVELS: usize = 6;
/// Groups at least this large are sorted on several threads.
const PARALLEL: usize = 1 << 15;
/// Parts per thread that the prefix-sorted entries are cut into for refining.
const PARTS_PER_THREAD: usize = 8;

/// Sorts `entries` by the bytes of their keys in `text`; the entries keep their prefix fields.
pub(super) fn sort(text: &[u8], entries: &mut [Entry]) {
    entries.par_sort_unstable_by_key(|entry| entry.prefix);
    let parts = rayon::current_num_threads().max(1) * PARTS_PER_THREAD;
    let step = (entries.len() / parts).max(1);
    let mut chunks = Vec::with_capacity(parts + 1);
    let mut rest = entries;
    while !rest.is_empty() {
        // Cut only between different prefixes so that no group spans two chunks.
        let mut end = step.min(rest.len());
        while end < rest.len() && rest[end].prefix == rest[end - 1].prefix {
            end += 1;
        }
        let (chunk, tail) = std::mem::take(&mut rest).split_at_mut(end);
        chunks.push(chunk);
        rest = tail;
    }
    chunks.into_par_iter().for_each(|chunk| {
        for group in chunk.chunk_by_mut(|a, b| a.prefix == b.prefix).filter(|group| group.len() > 1) {
            let prefix = group[0].prefix;
            refine(text, group, 1);
            for entry in group.iter_mut() {
                entry.prefix = prefix;
            }
        }
    });
}

/// Sorts `group`, whose keys agree on their first `8 * depth` bytes (zero padded).
fn refine(text: &[u8], group: &mut [Entry], depth: usize) {
    let offset = 8 * depth;
    if group.iter().all(|entry| entry.len as usize <= offset) {
        // Equal but for trailing NUL bytes: the shorter key first.
        group.sort_unstable_by_key(|entry| entry.len);
        return;
    }
    if depth > LEVELS {
        group.sort_unstable_by(|a, b| compare_from(text, offset, a, b));
        return;
    }
    for entry in group.iter_mut() {
        entry.prefix = prefix_of(rest(text, entry, offset));
    }
    if group.len() >= PARALLEL {
        group.par_sort_unstable_by_key(|entry| entry.prefix);
    } else {
        group.sort_unstable_by_key(|entry| entry.prefix);
    }
    for tied in group.chunk_by_mut(|a, b| a.prefix == b.prefix).filter(|tied| tied.len() > 1) {
        refine(text, tied, depth + 1);
    }
}

/// The order of two keys that agree on their first `offset` bytes (zero padded).
fn compare_from(text: &[u8], offset: usize, a: &Entry, b: &Entry) -> Ordering {
    rest(text, a, offset).cmp(rest(text, b, offset)).then(a.len.cmp(&b.len))
}

/// The bytes of the key from `offset` on (none when it is shorter).
fn rest<'a>(text: &'a [u8], entry: &Entry, offset: usize) -> &'a [u8] {
    slice(text, entry).get(offset..).unwrap_or(&[])
}
