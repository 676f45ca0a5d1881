//! The normalization that range routing compares values by.

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

/// How a routing value is normalized before it is compared with range boundaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Normalization {
    /// NFKD of the lowercased value (Python: `unicodedata.normalize('NFKD', s.lower())`): case,
    /// compatibility forms and accents no longer split equal titles apart. The default.
    #[default]
    NfkdLower,
    /// The lowercased value (Python: `s.lower()`).
    Lower,
    /// The value as it is.
    None,
}

impl Normalization {
    /// Normalizes `value`.
    ///
    /// ```
    /// use dynashard::shard::Normalization;
    /// assert_eq!(Normalization::NfkdLower.apply("Leaving Home"), "leaving home");
    /// assert_eq!(Normalization::NfkdLower.apply("Ｃａｆé"), "cafe\u{301}");
    /// assert_eq!(Normalization::None.apply("ÉTÉ"), "ÉTÉ");
    /// ```
    pub fn apply(self, value: &str) -> String {
        match self {
            Normalization::NfkdLower => value.to_lowercase().nfkd().collect(),
            Normalization::Lower => value.to_lowercase(),
            Normalization::None => value.to_owned(),
        }
    }

    /// Parses the name used in attributes and on the command line: `nfkd-lower`, `lower`, `none`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "nfkd-lower" => Some(Normalization::NfkdLower),
            "lower" => Some(Normalization::Lower),
            "none" => Some(Normalization::None),
            _ => None,
        }
    }

    /// The name of this normalization (see [`Normalization::from_name`]).
    pub fn name(self) -> &'static str {
        match self {
            Normalization::NfkdLower => "nfkd-lower",
            Normalization::Lower => "lower",
            Normalization::None => "none",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowercases_like_python() {
        // Final sigma, dotted capital I and sharp s follow Unicode's full case mappings.
        assert_eq!(Normalization::Lower.apply("ΣΑΣ"), "σας");
        assert_eq!(Normalization::Lower.apply("İ"), "i\u{307}");
        assert_eq!(Normalization::Lower.apply("ẞ"), "ß");
    }

    #[test]
    fn names_round_trip() {
        for normalization in [Normalization::NfkdLower, Normalization::Lower, Normalization::None] {
            assert_eq!(Normalization::from_name(normalization.name()), Some(normalization));
        }
        assert_eq!(Normalization::from_name("nfc"), None);
    }
}
