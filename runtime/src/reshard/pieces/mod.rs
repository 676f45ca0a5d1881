//! The pieces a scan of a source whose partitions are known is cut into: a partition, or a slice
//! of its sort keys, each read by Query, so that the scan reads the source's items and nothing
//! else (a parallel Scan of an index reads every item of it, other entities' too, and a local
//! DynamoDB walks all of them for each segment).
//!
//! Sans-IO. The cuts of a partition are interpolated between its first and last sort key as
//! sampled; whatever the data, and whatever was written since, the pieces of one partition hold
//! every sort key exactly once (the first is open below, the last open above, each ends where
//! the next starts), so a sample only balances the pieces, never decides what is read.

mod record;

use crate::shard::{shard_partition, BoundarySource, Layout};
pub(crate) use record::{PieceRecords, Source};
use serde::{Deserialize, Serialize};

/// The most bytes of a sort key DynamoDB takes in a key condition: a longer cut is not made.
const MAX_SORT_KEY: usize = 1024;
/// Characters of the sort keys past their common prefix that cuts are interpolated over.
const DIGITS: usize = 3;

/// A slice of one partition of the source index: the sort keys from `from` (inclusive) to
/// `until` (exclusive), either end open when `None`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Piece {
    /// The partition key value.
    pub partition: String,
    /// The least sort key the piece holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The sort key the next piece of the partition starts at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
}

impl Piece {
    /// Whether it holds no sort key at all (it ends where it starts): nothing to read.
    pub fn is_empty(&self) -> bool {
        matches!((&self.from, &self.until), (Some(from), Some(until)) if from >= until)
    }

    /// Whether the piece holds the sort key `sort`.
    pub fn holds(&self, sort: &str) -> bool {
        self.from.as_deref().is_none_or(|from| sort >= from)
            && self.until.as_deref().is_none_or(|until| sort < until)
    }

    /// The key condition reading it, over `#pk`, `#sk`, `:pk`, `:from` and `:until`. A piece
    /// bounded at both ends reads `BETWEEN`, which holds `until` too: the reader drops the items
    /// at `until` (see [`Piece::holds`]), which belong to the next piece.
    pub fn condition(&self) -> &'static str {
        match (&self.from, &self.until) {
            (None, None) => "#pk = :pk",
            (None, Some(_)) => "#pk = :pk AND #sk < :until",
            (Some(_), None) => "#pk = :pk AND #sk >= :from",
            (Some(_), Some(_)) => "#pk = :pk AND #sk BETWEEN :from AND :until",
        }
    }
}

/// Every partition items of a mapping whose logical partition is `partition` can be in, under
/// `layout`, when that is known without reading: hash shards, or range shards cut at fixed
/// boundaries and not split. Not for declared range boundaries, which can be replaced while
/// items stay where the old ones put them.
pub(crate) fn known_partitions(partition: Option<&str>, layout: &Layout) -> Option<Vec<String>> {
    let shards = match layout {
        Layout::Hash { shards } => *shards,
        Layout::Range { boundaries: BoundarySource::Fixed(boundaries), overflow: 1, .. } => {
            boundaries.shards()
        }
        _ => return None,
    };
    let partition = partition?;
    Some((0..shards).map(|shard| shard_partition(partition, shard)).collect())
}

/// One partition as sampled: its first and last sort key, `None` when it held nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sampled {
    /// The partition key value.
    pub partition: String,
    /// Its first and last sort key.
    pub bounds: Option<(String, String)>,
}

/// The pieces a partition is cut into when about `wanted` are wanted of `partitions`: the same
/// number each, at least one.
fn each(partitions: usize, wanted: u32) -> u32 {
    wanted.div_ceil(partitions.max(1) as u32).max(1)
}

/// How many pieces [`pieces`] cuts `partitions` partitions into, whatever their sort keys: known
/// before any is read, so a scan's segments are counted before its pieces are cut.
pub(crate) fn count(partitions: usize, wanted: u32) -> u32 {
    partitions as u32 * each(partitions, wanted)
}

/// The pieces of `partitions`, [`count`] of them: the same number a partition, cut where [`cuts`]
/// puts them (no cut longer than `longest` bytes), and where a partition has fewer cuts than
/// pieces (too few distinct sort keys, or sort keys too long), the rest [empty](Piece::is_empty).
pub(crate) fn pieces(partitions: &[Sampled], wanted: u32, longest: usize) -> Vec<Piece> {
    let each = each(partitions.len(), wanted);
    partitions
        .iter()
        .flat_map(|sampled| {
            let cuts = match &sampled.bounds {
                Some((first, last)) => cuts(first, last, each, longest),
                None => Vec::new(),
            };
            let starts = std::iter::once(None).chain(cuts.iter().cloned().map(Some));
            let ends = cuts.iter().cloned().map(Some).chain(std::iter::once(None));
            let empty = Piece {
                partition: sampled.partition.clone(),
                from: Some(String::new()),
                until: Some(String::new()),
            };
            let mut pieces: Vec<Piece> = starts
                .zip(ends)
                .map(|(from, until)| Piece { partition: sampled.partition.clone(), from, until })
                .collect();
            pieces.resize(each as usize, empty);
            pieces
        })
        .collect()
}

/// Up to `pieces - 1` sort keys, strictly ascending, spread evenly between `first` and `last`
/// (by the first characters after their common prefix, as numbers whose digits are the
/// characters from the lowest to the highest of those the two hold there: keys of digits or
/// letters are cut by digits or letters, not by the whole of Unicode, most of which no key
/// uses): where the pieces of a partition are cut. None when `first` is not below `last`, none
/// outside the two, and none longer than `longest` bytes or than a key condition takes.
pub(crate) fn cuts(first: &str, last: &str, pieces: u32, longest: usize) -> Vec<String> {
    if first >= last || pieces < 2 {
        return Vec::new();
    }
    let prefix: String =
        first.chars().zip(last.chars()).take_while(|(a, b)| a == b).map(|(a, _)| a).collect();
    let (first_rest, last_rest) = (&first[prefix.len()..], &last[prefix.len()..]);
    let alphabet = Alphabet::of(first_rest, last_rest);
    let (low, high) = (alphabet.number(first_rest), alphabet.number(last_rest));
    let mut cuts: Vec<String> = (1..pieces as u128)
        .map(|step| low + (high - low) * step / pieces as u128)
        .map(|value| {
            let mut cut = prefix.clone();
            cut.extend(alphabet.characters(value));
            cut
        })
        .filter(|cut| cut.as_str() > first && cut.as_str() <= last && cut.len() <= longest.min(MAX_SORT_KEY))
        .collect();
    cuts.sort();
    cuts.dedup();
    cuts
}

/// The digits of the numbers cuts are made of: the characters from `low` to `low + base - 1`
/// (as [`digit`] numbers them, the surrogates' gap closed).
struct Alphabet {
    low: u128,
    base: u128,
}

impl Alphabet {
    /// From the lowest to the highest character among the first [`DIGITS`] of `a` and `b`,
    /// widened to the whole run of decimal digits or of letters an end is one of (keys between
    /// "00003" and "12797" hold 8s and 9s too).
    fn of(a: &str, b: &str) -> Self {
        let seen = a.chars().take(DIGITS).chain(b.chars().take(DIGITS));
        let (low, high) = seen.fold((char::MAX, '\0'), |(low, high), c| (low.min(c), high.max(c)));
        let low = match low {
            '1'..='9' => '0',
            'b'..='z' => 'a',
            'B'..='Z' => 'A',
            other => other,
        };
        let high = match high {
            '0'..='8' => '9',
            'a'..='y' => 'z',
            'A'..='Y' => 'Z',
            other => other,
        };
        let (low, high) = (digit(low.min(high)), digit(high));
        Self { low, base: (high - low + 1).max(2) }
    }

    /// The first [`DIGITS`] characters of `text` as a number, a missing one as the lowest.
    fn number(&self, text: &str) -> u128 {
        let mut chars = text.chars();
        (0..DIGITS).fold(0, |value, _| {
            let d = chars.next().map_or(0, |c| digit(c).clamp(self.low, self.low + self.base - 1) - self.low);
            value * self.base + d
        })
    }

    /// The [`DIGITS`] characters of `value`, most significant first.
    fn characters(&self, value: u128) -> impl Iterator<Item = char> + '_ {
        (0..DIGITS).rev().map(move |place| {
            let digit = self.low + (value / self.base.pow(place as u32)) % self.base;
            let scalar = if digit >= 0xD800 { digit + 0x800 } else { digit };
            char::from_u32(scalar as u32).unwrap_or(char::MAX)
        })
    }
}

/// A character's digit: its scalar value with the surrogates' gap closed, in the same order.
fn digit(c: char) -> u128 {
    let value = c as u128;
    if value >= 0xE000 {
        value - 0x800
    } else {
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sampled(partition: &str, bounds: Option<(&str, &str)>) -> Sampled {
        Sampled {
            partition: partition.to_owned(),
            bounds: bounds.map(|(first, last)| (first.to_owned(), last.to_owned())),
        }
    }

    #[test]
    fn partitions_are_known_for_hash_and_fixed_range_shards() {
        let hash = known_partitions(Some("albums"), &Layout::hash(3));
        assert_eq!(hash, Some(vec!["albums#0".to_owned(), "albums#1".to_owned(), "albums#2".to_owned()]));
        assert_eq!(known_partitions(None, &Layout::hash(3)), None, "a template naming a field");
        let boundaries = crate::shard::Boundaries::from_checked(&["", "m"]);
        assert_eq!(known_partitions(Some("a"), &Layout::range(&boundaries)).map(|all| all.len()), Some(2));
        assert_eq!(known_partitions(Some("a"), &Layout::Random { shards: 2 }), None);
        assert_eq!(known_partitions(Some("a"), &Layout::Dynamic { max: 4, readable: None }), None);
    }

    #[test]
    fn cuts_are_spread_between_the_bounds() {
        let cuts = cuts("album#a", "album#z", 4, MAX_SORT_KEY);
        assert_eq!(cuts.len(), 3);
        assert!(cuts.iter().all(|cut| cut.starts_with("album#") && cut.as_str() > "album#a"));
        assert!(cuts.windows(2).all(|pair| pair[0] < pair[1]));
        assert!(cuts[1].as_str() > "album#l" && cuts[1].as_str() < "album#o", "{cuts:?}");
    }

    #[test]
    fn no_cuts_without_room() {
        assert!(cuts("b", "a", 4, MAX_SORT_KEY).is_empty());
        assert!(cuts("a", "a", 4, MAX_SORT_KEY).is_empty());
        assert!(cuts("a", "b", 1, MAX_SORT_KEY).is_empty());
        // Keys whose common prefix leaves no room under the key-condition limit.
        let long = "x".repeat(1_023);
        assert!(cuts(&format!("{long}a"), &format!("{long}z"), 4, MAX_SORT_KEY).is_empty());
    }

    #[test]
    fn every_partition_has_a_piece_open_at_both_ends() {
        let pieces =
            pieces(&[sampled("albums#0", None), sampled("albums#1", Some(("a", "z")))], 6, MAX_SORT_KEY);
        assert_eq!(pieces.len() as u32, count(2, 6));
        assert_eq!(pieces[0], Piece { partition: "albums#0".into(), from: None, until: None });
        assert!(pieces[1].is_empty() && pieces[2].is_empty(), "an empty partition's other pieces");
        assert!(!pieces[0].is_empty());
        let second: Vec<&Piece> = pieces.iter().filter(|piece| piece.partition == "albums#1").collect();
        assert_eq!(second.len(), 3);
        assert_eq!(second[0].from, None);
        assert_eq!(second[2].until, None);
        assert_eq!(second[0].until, second[1].from);
        assert_eq!(second[0].condition(), "#pk = :pk AND #sk < :until");
        assert_eq!(second[1].condition(), "#pk = :pk AND #sk BETWEEN :from AND :until");
        assert_eq!(second[2].condition(), "#pk = :pk AND #sk >= :from");
    }

    #[test]
    fn keys_of_digits_are_cut_into_pieces_of_about_their_share() {
        let keys: Vec<String> = (3..12_798).map(|n| format!("title {n:06}")).collect();
        let partition = sampled("p", Some((&keys[0], &keys[keys.len() - 1])));
        let pieces = pieces(&[partition], 16, MAX_SORT_KEY);
        let held: Vec<usize> =
            pieces.iter().map(|piece| keys.iter().filter(|key| piece.holds(key)).count()).collect();
        assert_eq!(held.iter().sum::<usize>(), keys.len());
        assert!(held.iter().all(|count| *count < 2 * keys.len() / 16), "{held:?}");
    }

    #[test]
    fn surrogates_and_the_last_scalar_are_spanned() {
        let cuts = cuts("\u{D7FF}", "\u{10FFFF}", 8, MAX_SORT_KEY);
        assert_eq!(cuts.len(), 7);
        assert!(cuts.iter().all(|cut| cut.as_str() > "\u{D7FF}" && cut.as_str() < "\u{10FFFF}"));
    }

    proptest! {
        /// Whatever was sampled, every sort key falls in exactly one piece of its partition.
        #[test]
        fn each_sort_key_is_in_one_piece(
            keys in proptest::collection::vec("\\PC{0,12}", 1..40),
            first in "\\PC{0,12}",
            last in "\\PC{0,12}",
            wanted in 1u32..70,
        ) {
            let pieces = pieces(&[sampled("p", Some((&first, &last)))], wanted, MAX_SORT_KEY);
            prop_assert_eq!(pieces.len() as u32, count(1, wanted));
            for key in keys.iter().filter(|key| !key.is_empty()) {
                prop_assert_eq!(pieces.iter().filter(|piece| piece.holds(key)).count(), 1, "{}", key);
            }
        }

        /// Cuts drawn from a partition's own keys are ascending, within its bounds, and as many
        /// as asked while the keys leave room.
        #[test]
        fn cuts_ascend_within_the_bounds(first in "[a-z]{1,3}", last in "[a-z]{1,3}", wanted in 2u32..64) {
            let cuts = cuts(&first, &last, wanted, MAX_SORT_KEY);
            prop_assert!(cuts.windows(2).all(|pair| pair[0] < pair[1]));
            prop_assert!(cuts.len() < wanted as usize);
            for cut in &cuts {
                prop_assert!(*cut >= first && *cut <= last, "{} not in {}..{}", cut, first, last);
            }
        }
    }
}
