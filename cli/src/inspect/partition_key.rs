//! Reading the shard id back out of a sharded partition key value.
//!
//! The library writes shard `s` of the composed key `k` as `k#s` (`album#7`, see
//! `dynashard::shard::shard_partition`), where `#` inside placeholder values is escaped as `$#`
//! (and `$` as `$$`). So a value ends in a shard id when it ends in `#` plus a canonical decimal
//! number and that `#` is not escaped (preceded by an even number of `$`).

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

#[cfg(test)]
mod tests {
    use super::*;
    use dynashard::shard::shard_partition;

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
}
