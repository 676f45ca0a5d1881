//! Reading the shard id back out of a sharded partition key value.
//!
//! The library writes shard `s` of the composed key `k` as `k#s` (`album#7`, see
//! `dynashard::shard::shard_partition`), where `#` inside placeholder values is escaped as `$#`
//! (and `$` as `$$`). So a value ends in a shard id when it ends in `#` plus a canonical decimal
//! number and that `#` is not escaped (preceded by an even number of `$`).
//!
//! Time-bucketed shards are `k#s#label` (`reading#3#2023-10-27T15`, see
//! `dynashard::shard::bucket_partition`), the label naming a UTC day, hour or minute.

use super::bucket_label::{parse_label, BucketLabel};

/// A partition key value split into its logical key and shard id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardKey<'a> {
    /// The key without its shard suffix (the whole value when it has none).
    pub logical: &'a str,
    /// The shard id, when the value ends in one.
    pub shard: Option<u32>,
}

/// Splits `value` into its logical key and shard id.
pub fn split_shard(value: &str) -> ShardKey<'_> {
    let unsharded = ShardKey { logical: value, shard: None };
    let Some((logical, digits)) = value.rsplit_once('#') else {
        return unsharded;
    };
    let canonical = !digits.is_empty()
        && digits.bytes().all(|byte| byte.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'));
    let escapes = logical.bytes().rev().take_while(|&byte| byte == b'$').count();
    match digits.parse::<u32>() {
        Ok(shard) if canonical && escapes % 2 == 0 => ShardKey { logical, shard: Some(shard) },
        _ => unsharded,
    }
}

/// A partition key value of one shard in one time bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BucketKey<'a> {
    /// The key without its shard and bucket.
    pub logical: &'a str,
    /// The shard id.
    pub shard: u32,
    /// The bucket's label, as written.
    pub label: &'a str,
    /// The bucket it names.
    pub bucket: BucketLabel,
}

/// Splits `value` into its logical key, shard id and time bucket, when it ends in all three.
pub fn split_bucket(value: &str) -> Option<BucketKey<'_>> {
    let (sharded, label) = value.rsplit_once('#')?;
    let bucket = parse_label(label)?;
    let ShardKey { logical, shard } = split_shard(sharded);
    Some(BucketKey { logical, shard: shard?, label, bucket })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dynashard::shard::{bucket_partition, shard_partition, TimeBucket};

    #[test]
    fn reads_what_the_library_writes() {
        for (key, shard) in [("album", 7), ("album", 0), ("a$#b", 20), ("x$$", 3), ("", 1)] {
            let value = shard_partition(key, shard);
            assert_eq!(split_shard(&value), ShardKey { logical: key, shard: Some(shard) }, "{value}");
        }
    }

    #[test]
    fn leaves_other_values_whole() {
        for value in
            ["Solar Fields", "album#", "album#07", "order#0000000123", "x$#5", "a#b", "n#99999999999"]
        {
            assert_eq!(split_shard(value), ShardKey { logical: value, shard: None }, "{value}");
        }
    }

    #[test]
    fn reads_time_buckets_the_library_writes() {
        let t = 1_698_419_045; // 2023-10-27T15:04:05Z
        for (key, shard, width) in
            [("reading", 3, TimeBucket::Hour), ("a$#b", 0, TimeBucket::Day), ("x", 12, TimeBucket::Minute)]
        {
            let value = bucket_partition(key, shard, width, t);
            let split = split_bucket(&value).expect("a time-bucketed shard");
            assert_eq!((split.logical, split.shard, split.bucket.width), (key, shard, width), "{value}");
            assert_eq!(split.label, width.label(t));
        }
    }

    #[test]
    fn other_values_have_no_time_bucket() {
        for value in [
            "album#7",
            "albums#7#2",
            "reading#2023-10-27T15",
            "reading#03#2023-10-27T15",
            "reading$#3#2023-10-27",
            "reading#3#2023-10-32",
            "2023-10-27",
        ] {
            assert_eq!(split_bucket(value), None, "{value}");
        }
    }
}
