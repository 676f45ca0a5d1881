//! Reading one key per line from files or stdin and normalizing the keys on every core.
//!
//! The input is read in blocks of whole lines. Each block is cut at line ends into pieces, and
//! the pieces are normalized in parallel (rayon's global pool, one thread per core) into key sets
//! of their own. While one block is normalized, the pieces of the block before it are appended
//! to the result in input order and the block after it is read. So the keys, the counts and the
//! first error are those of a sequential read, and the memory beyond the result is two blocks of
//! input and two blocks of normalized pieces.

use super::key_set::KeySet;
use crate::error::CliError;
use crate::error::InputError;
use crate::error::KeySetError;
use crate::input::Counts;
use rayon::prelude::*;
use std::fs::File;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The target size of a piece: big enough for thread hand-offs not to matter, small enough for
/// four pieces per thread to spread uneven work.
const PIECE_BYTES: usize = 256 << 10;
/// Pieces per thread in a block.
const PIECES_PER_THREAD: usize = 4;

/// How big pieces and blocks are.
#[derive(Debug, Clone, Copy)]
struct Sizes {
    /// Bytes per piece (at least; a piece ends at a line end).
    piece: usize,
    /// Pieces per block.
    pieces: usize,
}

impl Sizes {
    fn for_this_machine() -> Self {
        Self { piece: PIECE_BYTES, pieces: rayon::current_num_threads().max(1) * PIECES_PER_THREAD }
    }

    fn block(self) -> usize {
        self.piece * self.pieces
    }
}

/// Reads the non-empty lines of `paths` (stdin when there are none, or for `-`), without their
/// `\n` or `\r\n`, normalizes them into `keys` in input order and counts them as
/// [`crate::input::Sources::read`] does. Invalid UTF-8 is an error naming the line, or replaced
/// with U+FFFD when `lossy`. `on_progress` receives the bytes read, in batches.
pub fn read(
    paths: &[PathBuf],
    lossy: bool,
    keys: &mut KeySet,
    mut on_progress: impl FnMut(u64),
) -> Result<Counts, CliError> {
    let stdin = [PathBuf::from("-")];
    let paths = if paths.is_empty() { &stdin[..] } else { paths };
    let mut counts = Counts::default();
    for path in paths {
        let (name, reader) = open(path)?;
        read_one(reader, &name, lossy, Sizes::for_this_machine(), keys, &mut counts, &mut on_progress)?;
    }
    Ok(counts)
}

fn open(path: &Path) -> Result<(String, Box<dyn Read + Send>), InputError> {
    if path.as_os_str() == "-" {
        return Ok(("<stdin>".to_owned(), Box::new(std::io::stdin())));
    }
    let file = File::open(path).map_err(|source| InputError::Open { path: path.to_owned(), source })?;
    Ok((path.display().to_string(), Box::new(file)))
}

/// Reads one input to its end (see the module documentation for the pipeline).
fn read_one(
    reader: impl Read + Send,
    name: &str,
    lossy: bool,
    sizes: Sizes,
    keys: &mut KeySet,
    counts: &mut Counts,
    on_progress: &mut impl FnMut(u64),
) -> Result<(), CliError> {
    let mut source = Source { reader, name, eof: false, target: sizes.block() };
    let mut appender = Appender { name, lines: 0, counts };
    let (mut block, mut next) = (Block::default(), Block::default());
    on_progress(source.fill(&[], &mut block)?);
    let normalization = keys.normalization();
    let mut normalizing: Vec<Piece> = Vec::new();
    let mut normalized: Vec<Piece> = Vec::new();
    loop {
        let finished = block.bytes.is_empty() && source.eof;
        let (lines, tail) = block.bytes.split_at(block.lines_end);
        let ((), (appended, filled)) = rayon::join(
            || normalize(lines, sizes, lossy, normalization, &mut normalizing),
            || {
                let appended = appender.append(keys, &mut normalized);
                let filled = if appended.is_err() || finished { Ok(0) } else { source.fill(tail, &mut next) };
                (appended, filled)
            },
        );
        appended?;
        match filled {
            Ok(bytes) => on_progress(bytes),
            Err(error) => {
                // The lines read before the failure come first, as in a sequential read.
                appender.append(keys, &mut normalizing)?;
                return Err(error.into());
            }
        }
        if finished {
            return Ok(());
        }
        std::mem::swap(&mut normalizing, &mut normalized);
        std::mem::swap(&mut block, &mut next);
    }
}

/// Input bytes: whole lines up to `lines_end`, then the start of a line cut off by the block's end.
#[derive(Debug, Default)]
struct Block {
    bytes: Vec<u8>,
    lines_end: usize,
}

/// An input being read block by block.
struct Source<'a, R> {
    reader: R,
    name: &'a str,
    eof: bool,
    /// The size a block is read to before it is cut at its last line end.
    target: usize,
}

impl<R: Read> Source<'_, R> {
    /// Fills `block` with `carry` (the cut-off line of the block before), then input up to the
    /// target size and on to a line end; at the end of the input the last line needs no `\n`.
    /// Returns the number of bytes read.
    fn fill(&mut self, carry: &[u8], block: &mut Block) -> Result<u64, InputError> {
        block.bytes.clear();
        block.bytes.extend_from_slice(carry);
        let mut read = 0u64;
        // Where to look for a line end: the carry has none.
        let mut searched = carry.len();
        loop {
            if self.eof {
                block.lines_end = block.bytes.len();
                return Ok(read);
            }
            if block.bytes.len() >= self.target {
                if let Some(end) = block.bytes[searched..].iter().rposition(|&byte| byte == b'\n') {
                    block.lines_end = searched + end + 1;
                    return Ok(read);
                }
                // One line longer than a block: read on until it ends.
                searched = block.bytes.len();
            }
            let wanted = self.target.saturating_sub(block.bytes.len()).max(64 << 10) as u64;
            let got = (&mut self.reader)
                .take(wanted)
                .read_to_end(&mut block.bytes)
                .map_err(|source| InputError::Read { name: self.name.to_owned(), source })?;
            read += got as u64;
            self.eof = (got as u64) < wanted;
        }
    }
}

/// The keys of one piece of a block, normalized on its own.
#[derive(Debug)]
struct Piece {
    keys: KeySet,
    /// Lines read, empty ones included (the line that failed excluded).
    lines: u64,
    /// Empty lines.
    skipped: u64,
    /// What stopped the piece before its end.
    error: Option<PieceError>,
}

#[derive(Debug, Clone, Copy)]
enum PieceError {
    /// Invalid UTF-8 on the piece's `line`-th line (from one), at `byte` of that line.
    Utf8 {
        line: u64,
        byte: usize,
    },
    TooLarge,
}

impl Piece {
    /// Splits `bytes` as [`crate::input::for_each_line`] does and normalizes every line.
    fn fill(&mut self, bytes: &[u8], lossy: bool) {
        let outcome = match std::str::from_utf8(bytes) {
            Ok(text) => text.split_inclusive('\n').try_for_each(|line| self.take(trim_line_end(line))),
            Err(_) => bytes.split_inclusive(|&byte| byte == b'\n').try_for_each(|line| {
                let line = trim_line_end_bytes(line);
                match std::str::from_utf8(line) {
                    Ok(text) => self.take(text),
                    Err(_) if lossy => self.take(&String::from_utf8_lossy(line)),
                    Err(error) => Err(PieceError::Utf8 { line: self.lines + 1, byte: error.valid_up_to() }),
                }
            }),
        };
        self.error = outcome.err();
    }

    fn take(&mut self, line: &str) -> Result<(), PieceError> {
        if line.is_empty() {
            self.skipped += 1;
        } else {
            self.keys.push(line).map_err(|KeySetError::TooLarge| PieceError::TooLarge)?;
        }
        self.lines += 1;
        Ok(())
    }
}

/// Cuts `lines` (whole lines) into pieces of about `sizes.piece` bytes and normalizes them in
/// parallel into the first pieces of `pieces`, which ends up holding exactly those.
fn normalize(
    lines: &[u8],
    sizes: Sizes,
    lossy: bool,
    normalization: dynashard::shard::Normalization,
    pieces: &mut Vec<Piece>,
) {
    let ranges = piece_ranges(lines, sizes.piece);
    pieces.truncate(ranges.len());
    while pieces.len() < ranges.len() {
        let keys = KeySet::new(normalization, sizes.piece + sizes.piece / 8);
        pieces.push(Piece { keys, lines: 0, skipped: 0, error: None });
    }
    pieces.par_iter_mut().zip(ranges).for_each(|(piece, range)| piece.fill(&lines[range], lossy));
}

/// Consecutive ranges covering `lines`, each ending at a line end and at least `piece` bytes
/// long (but the last).
fn piece_ranges(lines: &[u8], piece: usize) -> Vec<Range<usize>> {
    let mut ranges = Vec::with_capacity(lines.len() / piece.max(1) + 1);
    let mut start = 0;
    while start < lines.len() {
        let guess = (start + piece.max(1)).min(lines.len());
        let end = match lines[guess - 1..].iter().position(|&byte| byte == b'\n') {
            Some(newline) => guess + newline,
            None => lines.len(),
        };
        ranges.push(start..end);
        start = end;
    }
    ranges
}

/// Moves normalized pieces into the result in input order, counting lines for error messages.
struct Appender<'a> {
    name: &'a str,
    /// Lines of this input before the next piece.
    lines: u64,
    counts: &'a mut Counts,
}

impl Appender<'_> {
    /// Appends every piece of `pieces` up to the first error, which it returns. The pieces are
    /// left empty, their buffers kept for the next block.
    fn append(&mut self, keys: &mut KeySet, pieces: &mut [Piece]) -> Result<(), CliError> {
        for piece in pieces.iter_mut() {
            self.counts.keys += piece.keys.len() as u64;
            self.counts.skipped += piece.skipped;
            keys.append(&mut piece.keys)?;
            match piece.error.take() {
                None => {}
                Some(PieceError::TooLarge) => return Err(KeySetError::TooLarge.into()),
                Some(PieceError::Utf8 { line, byte }) => {
                    let (name, line) = (self.name.to_owned(), self.lines + line);
                    return Err(InputError::InvalidUtf8 { name, line, byte }.into());
                }
            }
            self.lines += piece.lines;
            (piece.lines, piece.skipped) = (0, 0);
        }
        Ok(())
    }
}

/// The line without its trailing `\n` or `\r\n` (as `crate::input`'s reader trims it).
fn trim_line_end(line: &str) -> &str {
    let line = line.strip_suffix('\n').unwrap_or(line);
    line.strip_suffix('\r').unwrap_or(line)
}

fn trim_line_end_bytes(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
#[path = "lines_tests.rs"]
mod tests;
