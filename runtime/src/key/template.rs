//! Composing keys from templates such as `song#{album}#{title}`, and reading them back.

use super::part::{DecodeKeyPart, KeyPart, KeyPartDecodeError};
use crate::error::{Error, KeyError};

/// Largest partition key value DynamoDB accepts, in bytes.
pub const MAX_PARTITION_KEY_BYTES: usize = 2048;
/// Largest sort key value DynamoDB accepts, in bytes.
pub const MAX_SORT_KEY_BYTES: usize = 1024;

/// Whether a composed key is a partition key or a sort key; decides its size limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyRole {
    /// A partition (hash) key: at most 2,048 bytes.
    Partition,
    /// A sort (range) key: at most 1,024 bytes.
    Sort,
}

impl KeyRole {
    /// The size limit of this role in bytes.
    pub const fn max_bytes(self) -> usize {
        match self {
            KeyRole::Partition => MAX_PARTITION_KEY_BYTES,
            KeyRole::Sort => MAX_SORT_KEY_BYTES,
        }
    }
}

/// One piece of a key template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Segment {
    /// Literal text, copied as is.
    Literal(&'static str),
    /// A `{field}` placeholder.
    Field(&'static str),
}

/// A parsed key template, such as `song#{album}#{title}`, bound to the attribute it fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyTemplate {
    /// The attribute the key is stored in (e.g. `sk`).
    pub attribute: &'static str,
    /// The template text as written.
    pub source: &'static str,
    /// The template, split into literals and placeholders.
    pub segments: &'static [Segment],
    /// Partition or sort key.
    pub role: KeyRole,
}

impl KeyTemplate {
    /// Starts composing a key from this template.
    pub fn writer(&'static self) -> KeyWriter {
        KeyWriter { template: self, buffer: String::with_capacity(self.source.len() + 32) }
    }

    /// Splits a stored key into the still-encoded text of each placeholder, in template order.
    ///
    /// Fails when the literal text does not match the template.
    pub fn split<'k>(&self, key: &'k str) -> Result<Vec<&'k str>, KeyPartDecodeError> {
        let mut rest = key;
        let mut parts = Vec::new();
        for segment in self.segments {
            match segment {
                Segment::Literal(text) => {
                    rest = rest.strip_prefix(text).ok_or_else(|| KeyPartDecodeError {
                        encoded: key.to_owned(),
                        reason: "literal text does not match the key template",
                    })?;
                }
                Segment::Field(_) => {
                    let end = encoded_value_len(rest);
                    parts.push(&rest[..end]);
                    rest = &rest[end..];
                }
            }
        }
        if !rest.is_empty() {
            return Err(KeyPartDecodeError {
                encoded: key.to_owned(),
                reason: "trailing text after the key template",
            });
        }
        Ok(parts)
    }

    /// Decodes the placeholder at position `index` of a stored key.
    pub fn decode_field<T: DecodeKeyPart>(&self, key: &str, index: usize) -> Result<T, KeyPartDecodeError> {
        let parts = self.split(key)?;
        let encoded = parts.get(index).ok_or_else(|| KeyPartDecodeError {
            encoded: key.to_owned(),
            reason: "the template has no placeholder at that position",
        })?;
        let (value, rest) = T::decode_prefix(encoded)?;
        if !rest.is_empty() {
            return Err(KeyPartDecodeError {
                encoded: (*encoded).to_owned(),
                reason: "trailing text after the value",
            });
        }
        Ok(value)
    }
}

/// Length in bytes of the escaped value at the start of `encoded`, up to a bare separator.
fn encoded_value_len(encoded: &str) -> usize {
    let bytes = encoded.as_bytes();
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'$' => index += 2,
            b'#' => return index,
            _ => index += 1,
        }
    }
    bytes.len()
}

/// Builds one key from its template, checking each value and the final size.
#[derive(Debug)]
pub struct KeyWriter {
    template: &'static KeyTemplate,
    buffer: String,
}

impl KeyWriter {
    /// Appends literal template text.
    pub fn literal(&mut self, text: &str) -> &mut Self {
        self.buffer.push_str(text);
        self
    }

    /// Appends the encoded value of placeholder `field`; empty values are rejected.
    pub fn part<T: KeyPart + ?Sized>(
        &mut self,
        field: &'static str,
        arg: T::Arg<'_>,
    ) -> Result<&mut Self, Error> {
        if T::is_empty(arg) {
            return Err(self.error(KeyError::EmptyValue { field }));
        }
        let start = self.buffer.len();
        T::encode(arg, &mut self.buffer);
        if self.buffer[start..].contains('\u{10FFFF}') {
            return Err(self.error(KeyError::ReservedCharacter { field }));
        }
        Ok(self)
    }

    /// Returns the composed key, or an error when it is empty or over DynamoDB's size limit.
    pub fn finish(self) -> Result<String, Error> {
        let max = self.template.role.max_bytes();
        if self.buffer.is_empty() {
            return Err(self.error(KeyError::EmptyKey));
        }
        if self.buffer.len() > max {
            let bytes = self.buffer.len();
            return Err(self.error(KeyError::TooLong { bytes, max }));
        }
        Ok(self.buffer)
    }

    fn error(&self, reason: KeyError) -> Error {
        Error::InvalidKey { attribute: self.template.attribute, template: self.template.source, reason }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static SONG: KeyTemplate = KeyTemplate {
        attribute: "sk",
        source: "song#{album}#{title}",
        segments: &[
            Segment::Literal("song#"),
            Segment::Field("album"),
            Segment::Literal("#"),
            Segment::Field("title"),
        ],
        role: KeyRole::Sort,
    };

    fn song_key(album: &str, title: &str) -> Result<String, Error> {
        let mut writer = SONG.writer();
        writer.literal("song#");
        writer.part::<String>("album", album)?;
        writer.literal("#");
        writer.part::<String>("title", title)?;
        writer.finish()
    }

    #[test]
    fn separators_in_values_do_not_collide() {
        let a = song_key("x#y", "z").unwrap();
        let b = song_key("x", "y#z").unwrap();
        assert_ne!(a, b);
        assert!(!a.starts_with("song#x#"));
        assert_eq!(SONG.split(&a).unwrap(), vec!["x$#y", "z"]);
        assert_eq!(SONG.decode_field::<String>(&b, 1).unwrap(), "y#z");
    }

    #[test]
    fn empty_and_oversized_values_are_rejected() {
        let empty = song_key("", "z").unwrap_err();
        assert!(matches!(empty, Error::InvalidKey { reason: KeyError::EmptyValue { field: "album" }, .. }));
        let long = "a".repeat(1100);
        let too_long = song_key(&long, "z").unwrap_err();
        assert!(matches!(too_long, Error::InvalidKey { reason: KeyError::TooLong { .. }, .. }));
    }

    #[test]
    fn split_rejects_foreign_keys() {
        assert!(SONG.split("album#x").is_err());
        assert!(SONG.split("song#x").is_err());
        assert_eq!(SONG.split("song#x#").unwrap(), vec!["x", ""]);
        assert!(SONG.split("song#x#y#z").is_err());
    }
}
