//! The parallel line reader against the sequential one of `crate::input`, on small blocks and
//! pieces so that every cut falls somewhere interesting.

use super::*;
use crate::input::for_each_line;
use dynashard::shard::Normalization;
use proptest::prelude::*;

/// A reader that hands out at most `step` bytes per call.
struct Trickle<'a> {
    bytes: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buffer.len()).min(self.bytes.len());
        buffer[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// Keys, counts and bytes read by the parallel reader, or its error message.
fn parallel(
    input: &[u8],
    lossy: bool,
    sizes: Sizes,
    step: usize,
) -> Result<(Vec<String>, Counts, u64), String> {
    let mut keys = KeySet::new(Normalization::NfkdLower, 0);
    let mut counts = Counts::default();
    let mut progress = 0;
    let reader = Trickle { bytes: input, step };
    read_one(reader, "test", lossy, sizes, &mut keys, &mut counts, &mut |bytes| progress += bytes)
        .map_err(|error| error.to_string())?;
    Ok((keys.keys().into_iter().map(str::to_owned).collect(), counts, progress))
}

/// The same through `crate::input::for_each_line`, as `Sources::read` does it.
fn sequential(input: &[u8], lossy: bool) -> Result<(Vec<String>, Counts), String> {
    let mut keys = KeySet::new(Normalization::NfkdLower, 0);
    let mut counts = Counts::default();
    for_each_line(
        input,
        "test",
        lossy,
        |_| {},
        |line, _| {
            if line.is_empty() {
                counts.skipped += 1;
                return Ok(());
            }
            counts.keys += 1;
            keys.push(line).map_err(CliError::from)
        },
    )
    .map_err(|error: CliError| error.to_string())?;
    Ok((keys.keys().into_iter().map(str::to_owned).collect(), counts))
}

#[test]
fn reads_like_the_sequential_reader() {
    let input = "Demo\r\n\nＤｅｍｏ\nCafé\r\n\r\nlast\r".as_bytes();
    let sizes = Sizes { piece: 3, pieces: 2 };
    let (keys, counts, progress) = parallel(input, false, sizes, 4).expect("valid input");
    assert_eq!(keys, ["demo", "demo", "cafe\u{301}", "last"]);
    assert_eq!((counts.keys, counts.skipped), (4, 2));
    assert_eq!(progress, input.len() as u64);
    assert_eq!(sequential(input, false).map(|(keys, _)| keys), Ok(keys));
}

#[test]
fn the_first_invalid_line_is_reported() {
    let input = b"a\nb\nc\xff\nd\ne\xfe\n";
    let expected = "test:3: not valid UTF-8 (at byte 1 of the line)";
    for piece in 1..8 {
        let error = parallel(input, false, Sizes { piece, pieces: 2 }, 3).expect_err("invalid");
        assert!(error.starts_with(expected), "{error}");
    }
}

#[test]
fn pieces_cover_the_lines_and_end_at_line_ends() {
    let lines = b"ab\ncdef\n\ng\n";
    assert_eq!(piece_ranges(lines, 1), [0..3, 3..8, 8..9, 9..11]);
    assert_eq!(piece_ranges(lines, 4), [0..8, 8..11]);
    assert_eq!(piece_ranges(lines, 100), vec![Range { start: 0, end: 11 }]);
    assert!(piece_ranges(b"", 4).is_empty());
}

fn input() -> impl Strategy<Value = Vec<u8>> {
    let part = prop::sample::select(vec![
        &b"a"[..],
        b"B",
        b" ",
        b"\n",
        b"\n",
        b"\r",
        b"\r\n",
        "É".as_bytes(),
        "ｶ".as_bytes(),
        b"\xff",
        b"\xc3",
    ]);
    prop::collection::vec(part, 0..60).prop_map(|parts| parts.concat())
}

proptest! {
    /// Keys, counts and errors agree with the sequential reader whatever the block and piece
    /// sizes and however the input arrives.
    #[test]
    fn agrees_with_the_sequential_reader(
        input in input(),
        lossy: bool,
        piece in 1usize..12,
        pieces in 1usize..5,
        step in 1usize..20,
    ) {
        let expected = sequential(&input, lossy);
        let actual = parallel(&input, lossy, Sizes { piece, pieces }, step);
        match (actual, expected) {
            (Ok((keys, counts, progress)), Ok((expected_keys, expected_counts))) => {
                prop_assert_eq!(keys, expected_keys);
                prop_assert_eq!(counts, expected_counts);
                prop_assert_eq!(progress, input.len() as u64);
            }
            (actual, expected) => prop_assert_eq!(actual.map(|(keys, counts, _)| (keys, counts)), expected),
        }
    }
}
