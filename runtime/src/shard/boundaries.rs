//! Range boundaries and range routing.
//!
//! Boundaries are a sorted list of strings starting with `""`; the shard of a value is the index
//! of the last boundary that is not greater than its normalized form (Python:
//! `bisect.bisect_right(boundaries, normalize(value)) - 1`). Reading shards `0, 1, 2, ...` in
//! order therefore reads normalized values in order.

use super::normalize::Normalization;

/// Validated range boundaries: the first is `""`, each is strictly greater than the one before
/// in UTF-8 byte order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Boundaries {
    values: Vec<String>,
    fingerprint: String,
}

/// Why a boundary list is invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BoundariesError {
    /// The list is empty.
    #[error("a boundary list needs at least the first boundary, \"\"")]
    Empty,
    /// The first boundary is not `""`.
    #[error("the first boundary must be \"\", found {0:?}")]
    FirstNotEmpty(String),
    /// Two neighbours are out of order or equal.
    #[error("boundary {index} ({value:?}) is not greater than the one before it ({previous:?})")]
    NotIncreasing {
        /// The position of the offending boundary.
        index: usize,
        /// The offending boundary.
        value: String,
        /// The boundary before it.
        previous: String,
    },
    /// The file is not a JSON array of strings.
    #[error("boundaries must be a JSON array of strings: {0}")]
    NotJson(String),
}

impl Boundaries {
    /// Checks and wraps a boundary list.
    pub fn new(values: Vec<String>) -> Result<Self, BoundariesError> {
        match values.first() {
            None => return Err(BoundariesError::Empty),
            Some(first) if !first.is_empty() => return Err(BoundariesError::FirstNotEmpty(first.clone())),
            Some(_) => {}
        }
        for (index, pair) in values.windows(2).enumerate() {
            if pair[1] <= pair[0] {
                return Err(BoundariesError::NotIncreasing {
                    index: index + 1,
                    value: pair[1].clone(),
                    previous: pair[0].clone(),
                });
            }
        }
        Ok(Self::checked(values))
    }

    fn checked(values: Vec<String>) -> Self {
        let fingerprint = fingerprint(&values);
        Self { values, fingerprint }
    }

    /// Wraps boundaries that were already checked when the crate was compiled. Generated code
    /// calls this; anything else should use [`Boundaries::new`].
    #[doc(hidden)]
    pub fn from_checked(values: &[&str]) -> Self {
        Self::checked(values.iter().map(|value| (*value).to_owned()).collect())
    }

    /// Parses and checks a JSON array of strings (the format `dynashard boundaries` writes).
    pub fn from_json(json: &str) -> Result<Self, BoundariesError> {
        let values: Vec<String> =
            serde_json::from_str(json).map_err(|error| BoundariesError::NotJson(error.to_string()))?;
        Self::new(values)
    }

    /// The boundaries.
    pub fn values(&self) -> &[String] {
        &self.values
    }

    /// The number of shards (one per boundary).
    pub fn shards(&self) -> u32 {
        self.values.len() as u32
    }

    /// The shard of an already normalized value.
    pub fn shard_of_normalized(&self, normalized: &str) -> u32 {
        let after = self.values.partition_point(|boundary| boundary.as_str() <= normalized);
        after.saturating_sub(1) as u32
    }

    /// The shard of `value` under `normalization`.
    ///
    /// ```
    /// use dynashard::shard::{Boundaries, Normalization};
    /// let boundaries = Boundaries::new(vec!["".into(), "h".into(), "p".into()]).unwrap();
    /// assert_eq!(boundaries.shard("Apple", Normalization::NfkdLower), 0);
    /// assert_eq!(boundaries.shard("Heavy", Normalization::NfkdLower), 1);
    /// assert_eq!(boundaries.shard("Zed", Normalization::NfkdLower), 2);
    /// ```
    pub fn shard(&self, value: &str, normalization: Normalization) -> u32 {
        self.shard_of_normalized(&normalization.apply(value))
    }

    /// The shards that can hold normalized values from `low` to `high` (both included), in order.
    pub fn shards_between(&self, low: &str, high: &str) -> std::ops::RangeInclusive<u32> {
        self.shard_of_normalized(low)..=self.shard_of_normalized(high)
    }

    /// A short fingerprint of the boundaries (16 hex digits), for cursors and layout checks.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
}

/// What the boundaries' fingerprint is computed from.
#[derive(serde::Serialize)]
struct BoundariesRecord<'a> {
    v: u8,
    boundaries: &'a [String],
}

fn fingerprint(values: &[String]) -> String {
    crate::fingerprint::fingerprint(&BoundariesRecord { v: 1, boundaries: values }, 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boundaries(values: &[&str]) -> Result<Boundaries, BoundariesError> {
        Boundaries::new(values.iter().map(|v| v.to_string()).collect())
    }

    #[test]
    fn validation() {
        assert_eq!(boundaries(&[]), Err(BoundariesError::Empty));
        assert!(matches!(boundaries(&["a"]), Err(BoundariesError::FirstNotEmpty(_))));
        assert!(matches!(boundaries(&["", "b", "a"]), Err(BoundariesError::NotIncreasing { index: 2, .. })));
        assert!(matches!(boundaries(&["", "a", "a"]), Err(BoundariesError::NotIncreasing { .. })));
        assert!(boundaries(&[""]).is_ok());
        assert!(Boundaries::from_json("[\"\", 3]").is_err());
        assert_eq!(Boundaries::from_json("[\"\", \"m\"]").unwrap().shards(), 2);
    }

    #[test]
    fn bisect_right_semantics() {
        let b = boundaries(&["", "g", "m"]).unwrap();
        assert_eq!(b.shard_of_normalized(""), 0);
        assert_eq!(b.shard_of_normalized("f"), 0);
        assert_eq!(b.shard_of_normalized("g"), 1, "a value equal to a boundary starts that shard");
        assert_eq!(b.shard_of_normalized("m"), 2);
        assert_eq!(b.shard_of_normalized("\u{10FFFF}"), 2);
        assert_eq!(b.shards_between("a", "h"), 0..=1);
    }

    #[test]
    fn fingerprints_differ_with_layout() {
        assert_ne!(
            boundaries(&["", "g"]).unwrap().fingerprint(),
            boundaries(&["", "h"]).unwrap().fingerprint()
        );
        assert_ne!(
            boundaries(&["", "gh"]).unwrap().fingerprint(),
            boundaries(&["", "g", "h"]).unwrap().fingerprint()
        );
    }
}
