//! Many normalized keys held compactly: one text buffer plus a fixed-size entry per key, sorted
//! in place and collapsed into runs of equal keys.
//!
//! A key costs its normalized bytes plus 16 bytes of entry, and no allocation of its own, so
//! millions of keys fit in about the size of the input. Sets filled on several threads are joined
//! with [`KeySet::append`]; sorting and collapsing use every core (rayon's global pool).

#[path = "key_sort.rs"]
mod key_sort;

use crate::error::KeySetError;
use dynashard::shard::Normalization;
use rayon::prelude::*;

/// One key: where its normalized text lies in the buffer, and its first eight bytes (zero padded)
/// so that most comparisons while sorting never touch the buffer.
#[derive(Debug, Clone, Copy)]
struct Entry {
    prefix: u64,
    start: u32,
    len: u32,
}

/// Normalized keys, in input order until [`KeySet::into_runs`] sorts them.
#[derive(Debug)]
pub struct KeySet {
    normalization: Normalization,
    text: String,
    entries: Vec<Entry>,
}

impl KeySet {
    /// An empty set that normalizes every key with `normalization`; `capacity_bytes` is a hint of
    /// the input size.
    pub fn new(normalization: Normalization, capacity_bytes: usize) -> Self {
        Self { normalization, text: String::with_capacity(capacity_bytes), entries: Vec::new() }
    }

    /// The normalization applied to every key.
    pub fn normalization(&self) -> Normalization {
        self.normalization
    }

    /// Normalizes `key` and adds it.
    pub fn push(&mut self, key: &str) -> Result<(), KeySetError> {
        let start = self.text.len();
        normalize_into(self.normalization, key, &mut self.text);
        let (Ok(start_offset), Ok(end_offset)) = (u32::try_from(start), u32::try_from(self.text.len()))
        else {
            self.text.truncate(start);
            return Err(KeySetError::TooLarge);
        };
        let prefix = prefix_of(&self.text.as_bytes()[start..]);
        self.entries.push(Entry { prefix, start: start_offset, len: end_offset - start_offset });
        Ok(())
    }

    /// The number of keys added.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no key was added.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The normalized keys in the order they were added.
    #[cfg(test)]
    pub(crate) fn keys(&self) -> Vec<&str> {
        self.entries
            .iter()
            .map(|entry| &self.text[entry.start as usize..(entry.start + entry.len) as usize])
            .collect()
    }

    /// Moves every key of `other` (normalized the same way) to the end of this set, in order,
    /// and leaves `other` empty with its buffers' capacity.
    pub fn append(&mut self, other: &mut KeySet) -> Result<(), KeySetError> {
        debug_assert_eq!(self.normalization, other.normalization);
        let base = self.text.len();
        // Both are lengths of allocations, so their sum cannot overflow.
        let (Ok(offset), Ok(_)) = (u32::try_from(base), u32::try_from(base + other.text.len())) else {
            return Err(KeySetError::TooLarge);
        };
        self.text.push_str(&other.text);
        self.entries
            .extend(other.entries.iter().map(|entry| Entry { start: entry.start + offset, ..*entry }));
        other.text.clear();
        other.entries.clear();
        Ok(())
    }

    /// Sorts the keys by their normalized UTF-8 bytes and collapses equal keys into runs.
    pub fn into_runs(mut self) -> KeyRuns {
        let text = self.text.as_bytes();
        key_sort::sort(text, &mut self.entries);
        let cumulative = run_starts(text, &self.entries);
        self.entries.shrink_to_fit();
        KeyRuns { text: self.text, entries: self.entries, cumulative }
    }
}

/// Appends `key` normalized by `normalization` to `text`. ASCII keys are lowercased in place:
/// NFKD leaves ASCII unchanged, so this equals [`Normalization::apply`] without its allocations.
fn normalize_into(normalization: Normalization, key: &str, text: &mut String) {
    match normalization {
        Normalization::None => text.push_str(key),
        Normalization::Lower | Normalization::NfkdLower if key.is_ascii() => {
            let start = text.len();
            text.push_str(key);
            text[start..].make_ascii_lowercase();
        }
        other => text.push_str(&other.apply(key)),
    }
}

/// The index of the first entry of every run of equal keys in the sorted `entries`, then their
/// number: the runs' cumulative counts. Chunks are compared in parallel into a bitmap of run
/// starts (one bit per key), which is then counted and read out in parallel, so that the text is
/// read once and the result is allocated once, at its exact size.
fn run_starts(text: &[u8], entries: &[Entry]) -> Vec<u64> {
    let mut bits = vec![0u64; entries.len().div_ceil(64)];
    let chunk_words = bits.len().div_ceil(rayon::current_num_threads() * 4).max(1 << 10);
    let counts: Vec<usize> = bits
        .par_chunks_mut(chunk_words)
        .enumerate()
        .map(|(chunk, words)| {
            let first = chunk * chunk_words * 64;
            let end = (first + words.len() * 64).min(entries.len());
            for index in first..end {
                let starts_run = match index.checked_sub(1) {
                    None => true,
                    Some(previous) => differ(text, &entries[previous], &entries[index]),
                };
                words[(index - first) / 64] |= u64::from(starts_run) << (index % 64);
            }
            words.iter().map(|word| word.count_ones() as usize).sum()
        })
        .collect();
    let runs: usize = counts.iter().sum();
    let mut cumulative = vec![0u64; runs + 1];
    let mut outputs = Vec::with_capacity(counts.len());
    let mut rest = &mut cumulative[..runs];
    for &count in &counts {
        let (output, tail) = std::mem::take(&mut rest).split_at_mut(count);
        outputs.push(output);
        rest = tail;
    }
    outputs.into_par_iter().zip(bits.par_chunks(chunk_words)).enumerate().for_each(
        |(chunk, (output, words))| {
            let starts = words.iter().enumerate().flat_map(|(word_index, &word)| {
                let base = ((chunk * chunk_words + word_index) * 64) as u64;
                set_bits(word).map(move |bit| base + bit)
            });
            for (slot, start) in output.iter_mut().zip(starts) {
                *slot = start;
            }
        },
    );
    cumulative[runs] = entries.len() as u64;
    cumulative
}

/// The positions of the set bits of `word`, lowest first.
fn set_bits(mut word: u64) -> impl Iterator<Item = u64> {
    std::iter::from_fn(move || {
        let bit = word.trailing_zeros();
        word &= word.wrapping_sub(1);
        (bit < 64).then_some(u64::from(bit))
    })
}

/// Whether two entries hold different keys; the text is read only when the prefixes and the
/// lengths agree.
fn differ(text: &[u8], a: &Entry, b: &Entry) -> bool {
    a.prefix != b.prefix || a.len != b.len || slice(text, a) != slice(text, b)
}

/// Sorted keys collapsed into runs of equal normalized keys.
#[derive(Debug)]
pub struct KeyRuns {
    text: String,
    entries: Vec<Entry>,
    /// `cumulative[r]` is the number of keys before run `r`; the last element is the total.
    cumulative: Vec<u64>,
}

impl KeyRuns {
    /// The number of distinct keys (runs).
    pub fn distinct(&self) -> usize {
        self.cumulative.len() - 1
    }

    /// The number of keys, duplicates included.
    pub fn total(&self) -> u64 {
        self.cumulative.last().copied().unwrap_or(0)
    }

    /// Keys before each run, ending with the total: `distinct() + 1` values.
    pub fn cumulative(&self) -> &[u64] {
        &self.cumulative
    }

    /// How many keys run `run` holds.
    pub fn count(&self, run: usize) -> u64 {
        self.cumulative[run + 1] - self.cumulative[run]
    }

    /// The normalized key of run `run`.
    pub fn key(&self, run: usize) -> &str {
        let entry = &self.entries[self.cumulative[run] as usize];
        &self.text[entry.start as usize..(entry.start + entry.len) as usize]
    }
}

fn slice<'a>(text: &'a [u8], entry: &Entry) -> &'a [u8] {
    &text[entry.start as usize..(entry.start + entry.len) as usize]
}

/// The first eight bytes as a big-endian number, zero padded: comparing prefixes agrees with
/// comparing the bytes whenever the prefixes differ.
fn prefix_of(bytes: &[u8]) -> u64 {
    if let Some(first) = bytes.first_chunk::<8>() {
        return u64::from_be_bytes(*first);
    }
    let mut padded = [0u8; 8];
    let len = bytes.len().min(8);
    padded[..len].copy_from_slice(&bytes[..len]);
    u64::from_be_bytes(padded)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn runs_of(keys: &[&str], normalization: Normalization) -> KeyRuns {
        let mut set = KeySet::new(normalization, 0);
        for key in keys {
            set.push(key).expect("small input");
        }
        set.into_runs()
    }

    #[test]
    fn collapses_normalized_duplicates() {
        let runs = runs_of(&["Demo", "demo", "DEMO", "Abba", "Ｄｅｍｏ"], Normalization::NfkdLower);
        assert_eq!(runs.distinct(), 2);
        assert_eq!(runs.total(), 5);
        assert_eq!((runs.key(0), runs.count(0)), ("abba", 1));
        assert_eq!((runs.key(1), runs.count(1)), ("demo", 4));
    }

    #[test]
    fn without_normalization_case_stays_apart() {
        let runs = runs_of(&["b", "B", "a\0", "a"], Normalization::None);
        let keys: Vec<&str> = (0..runs.distinct()).map(|r| runs.key(r)).collect();
        assert_eq!(keys, ["B", "a", "a\0", "b"]);
    }

    #[test]
    fn appending_keeps_the_order_and_empties_the_other_set() {
        let mut first = KeySet::new(Normalization::NfkdLower, 0);
        let mut second = KeySet::new(Normalization::NfkdLower, 0);
        first.push("Abba").expect("small input");
        second.push("Ｄｅｍｏ").expect("small input");
        second.push("Café").expect("small input");
        first.append(&mut second).expect("small input");
        assert_eq!(first.keys(), ["abba", "demo", "cafe\u{301}"]);
        assert!(second.is_empty() && second.text.is_empty());
        second.push("B").expect("small input");
        first.append(&mut second).expect("small input");
        assert_eq!(first.len(), 4);
        assert_eq!(first.into_runs().key(1), "b");
    }

    #[test]
    fn runs_are_found_across_chunks() {
        // 200,000 keys: several bitmap chunks of 65,536 keys, runs crossing their edges.
        let keys: Vec<String> = (0..200_000u32).map(|i| format!("key {:05}", (i * 7_919) % 3_000)).collect();
        let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
        let runs = runs_of(&refs, Normalization::None);
        assert_eq!(runs.distinct(), 3_000);
        assert_eq!(runs.total(), 200_000);
        assert!((0..3_000).all(|r| runs.key(r) == format!("key {r:05}") && runs.count(r) >= 66));
    }

    proptest! {
        /// Long shared prefixes and trailing NUL bytes: ties deeper than the refined levels.
        #[test]
        fn long_ties_sort_like_a_plain_sort(keys in prop::collection::vec("(a{0,70}|[a\u{0}]{0,70})", 0..40)) {
            let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
            let runs = runs_of(&refs, Normalization::None);
            let mut sorted = keys.clone();
            sorted.sort();
            sorted.dedup();
            let actual: Vec<&str> = (0..runs.distinct()).map(|r| runs.key(r)).collect();
            prop_assert_eq!(actual, sorted);
        }

        /// The ASCII shortcut of `push` normalizes exactly as the library does.
        #[test]
        fn push_normalizes_like_the_library(
            key in "[ -~]{0,12}|[A-Za-z \u{C9}\u{130}\u{3A3}\u{FB01}\u{FF24}\u{1F345}]{0,8}",
            normalization in prop::sample::select(vec![Normalization::NfkdLower, Normalization::Lower, Normalization::None]),
        ) {
            let mut set = KeySet::new(normalization, 0);
            set.push(&key).expect("small input");
            let expected = normalization.apply(&key);
            prop_assert_eq!(set.keys(), [expected.as_str()]);
        }

        #[test]
        fn sorted_runs_match_a_plain_sort(keys in prop::collection::vec("[a-c\u{0}é]{0,10}", 0..60)) {
            let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
            let runs = runs_of(&refs, Normalization::None);
            let mut expected: Vec<(String, u64)> = Vec::new();
            let mut sorted = keys.clone();
            sorted.sort();
            for key in sorted {
                match expected.last_mut() {
                    Some((last, count)) if *last == key => *count += 1,
                    _ => expected.push((key, 1)),
                }
            }
            let actual: Vec<(String, u64)> =
                (0..runs.distinct()).map(|r| (runs.key(r).to_owned(), runs.count(r))).collect();
            prop_assert_eq!(actual, expected);
            prop_assert_eq!(runs.total(), keys.len() as u64);
        }
    }
}
