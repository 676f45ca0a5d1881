//! Hash routing: the shard of a value is its SHA-256, read as a big-endian integer, modulo the
//! shard count. The same as Python's `int.from_bytes(sha256(s.encode()).digest(), "big") % n`.

use sha2::{Digest, Sha256};

/// The hash shard (in `0..shards`) of `value`; `shards` must be at least 1.
///
/// ```
/// use dynashard::shard::hash_shard;
/// assert_eq!(hash_shard("Leaving Home", 21), 6);
/// assert_eq!(hash_shard("Heavy Migration", 21), 8);
/// ```
pub fn hash_shard(value: &str, shards: u32) -> u32 {
    hash_bytes_shard(value.as_bytes(), shards)
}

/// The hash shard of raw bytes (see [`hash_shard`]).
pub fn hash_bytes_shard(bytes: &[u8], shards: u32) -> u32 {
    let shards = u64::from(shards.max(1));
    let digest = Sha256::digest(bytes);
    // The digest is a 256-bit big-endian number; reduce it byte by byte, Horner style.
    let remainder = digest.iter().fold(0u64, |remainder, byte| (remainder * 256 + u64::from(*byte)) % shards);
    remainder as u32
}

/// A uniformly random shard in `0..shards` (random sharding); `shards` must be at least 1.
pub fn random_shard(shards: u32) -> u32 {
    use rand::RngExt;
    rand::rng().random_range(0..shards.max(1))
}

/// The partition key value of one shard: the composed key, `#`, the shard id (`album#7`).
pub fn shard_partition(partition: &str, shard: u32) -> String {
    format!("{partition}#{shard}")
}

/// The composed partition key inside a shard's partition key: `shard_partition`'s input back
/// (`file#$/a#3` gives `file#$/a`). Escaped `#`s in key values are `$#`, so the last `#` is
/// always the shard's.
pub fn logical_partition(sharded: &str) -> &str {
    sharded.rsplit_once('#').map_or(sharded, |(partition, _)| partition)
}

/// The partition of overflow sub-shard `sub` of range shard `shard` (`albums#7#2`).
pub fn sub_shard_partition(partition: &str, shard: u32, sub: u32) -> String {
    format!("{partition}#{shard}#{sub}")
}

/// The partition of an item in range shard `shard` spread over `overflow` sub-shards: the
/// sub-shard is a hash of the item's base-table key, so a hot value spreads evenly and every
/// item has one fixed place.
pub fn overflow_partition(
    partition: &str,
    shard: u32,
    base_pk: &str,
    base_sk: &str,
    overflow: u32,
) -> String {
    let key = format!("{base_pk}\u{1}{base_sk}");
    sub_shard_partition(partition, shard, hash_shard(&key, overflow))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logical_partition_undoes_shard_partition() {
        for partition in ["file", "file#a$#b", "a$#", ""] {
            assert_eq!(logical_partition(&shard_partition(partition, 17)), partition);
        }
    }

    #[test]
    fn single_shard_is_always_zero() {
        assert_eq!(hash_shard("anything", 1), 0);
        assert_eq!(hash_shard("", 1), 0);
    }

    #[test]
    fn large_shard_counts_do_not_overflow() {
        assert!(hash_shard("x", u32::MAX) < u32::MAX);
    }
}
