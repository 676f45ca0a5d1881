//! Why a key could not be composed or decoded.

/// Why a key could not be composed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// A placeholder value is empty.
    #[error("the value of `{field}` is empty")]
    EmptyValue {
        /// The placeholder's field.
        field: &'static str,
    },
    /// The composed key is empty.
    #[error("the key is empty")]
    EmptyKey,
    /// A value contains U+10FFFF, a Unicode noncharacter that dynashard reserves as the upper
    /// bound of sort-key ranges.
    #[error("the value of `{field}` contains the reserved character U+10FFFF")]
    ReservedCharacter {
        /// The placeholder's field.
        field: &'static str,
    },
    /// The composed key is over DynamoDB's size limit.
    #[error("the key is {bytes} bytes, over the limit of {max} bytes")]
    TooLong {
        /// The composed key's size.
        bytes: usize,
        /// The limit for its role.
        max: usize,
    },
}

/// Why a key part could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot decode key part `{encoded}`: {reason}")]
pub struct KeyPartDecodeError {
    /// The encoded text that failed to decode.
    pub encoded: String,
    /// What was wrong with it.
    pub reason: &'static str,
}

impl KeyPartDecodeError {
    pub(crate) fn new(encoded: &str, reason: &'static str) -> Self {
        Self { encoded: encoded.to_owned(), reason }
    }
}
