//! Many normalized keys held compactly: one text buffer plus a fixed-size entry per key, sorted
//! in place and collapsed into runs of equal keys.
//!
//! A key costs its normalized bytes plus 16 bytes of entry, and no allocation of its own, so
//! millions of keys fit in about the size of the input.

use dynashard::shard::Normalization;

/// One key: where its normalized text lies in the buffer, and its first eight bytes (zero padded)
/// so that most comparisons while sorting never touch the buffer.
#[derive(Debug, Clone, Copy)]
struct Entry {
    prefix: u64,
    start: u32,
    len: u32,
}

/// Why a key could not be added.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeySetError {
    /// The normalized keys outgrew the 4 GiB buffer.
    #[error("the normalized keys exceed 4 GiB; cut boundaries from a sample of the keys instead")]
    TooLarge,
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
        match self.normalization {
            Normalization::None => self.text.push_str(key),
            other => self.text.push_str(&other.apply(key)),
        }
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

    /// Sorts the keys by their normalized UTF-8 bytes and collapses equal keys into runs.
    pub fn into_runs(mut self) -> KeyRuns {
        let text = self.text.as_bytes();
        self.entries.sort_unstable_by(|a, b| {
            a.prefix.cmp(&b.prefix).then_with(|| slice(text, a).cmp(slice(text, b)))
        });
        let mut cumulative = Vec::new();
        for (index, entry) in self.entries.iter().enumerate() {
            let starts_run = match index.checked_sub(1) {
                None => true,
                Some(previous) => slice(text, &self.entries[previous]) != slice(text, entry),
            };
            if starts_run {
                cumulative.push(index as u64);
            }
        }
        cumulative.push(self.entries.len() as u64);
        self.entries.shrink_to_fit();
        cumulative.shrink_to_fit();
        KeyRuns { text: self.text, entries: self.entries, cumulative }
    }
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

    proptest! {
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
