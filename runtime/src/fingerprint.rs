//! Fingerprints of records: a SHA-256 digest of a record's JSON, in hex.
//!
//! A fingerprint binds something stored (a cursor, a resharding record) to what made it: a
//! query, a shard layout, range boundaries. It is computed from a derived [`Serialize`] record of
//! this crate's own types, with a version of its own, so it changes only when dynashard changes
//! the record on purpose, never when a dependency changes how it prints its types.

use serde::Serialize;
use sha2::{Digest, Sha256};

/// The first `bytes` bytes of the SHA-256 of `record`'s JSON, as lowercase hex.
pub(crate) fn fingerprint(record: &impl Serialize, bytes: usize) -> String {
    // A record of strings, numbers, sequences and derived structs always serializes.
    let json = serde_json::to_vec(record).unwrap_or_default();
    hex(&Sha256::digest(json)[..bytes.min(32)])
}

/// Lowercase hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(char::from(DIGITS[usize::from(byte >> 4)]));
        text.push(char::from(DIGITS[usize::from(byte & 0xf)]));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Record<'a> {
        v: u8,
        name: &'a str,
        sizes: &'a [u32],
    }

    #[test]
    fn fingerprints_are_pinned() {
        let record = Record { v: 1, name: "album", sizes: &[3, 21] };
        assert_eq!(fingerprint(&record, 8), "928fa32ad57958df");
        assert_eq!(fingerprint(&record, 64).len(), 64);
        assert_eq!(hex(&[0, 9, 10, 255]), "00090aff");
    }
}
