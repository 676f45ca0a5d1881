//! Escaping of placeholder values inside composed keys.
//!
//! A placeholder value is always followed by the separator `#` or by the end of the key. Inside a
//! value, `#` becomes `$#` and `$` becomes `$$`; every other character is kept as it is. This makes
//! composed keys:
//!
//! - **injective**: decoding reads left to right, `$` always takes the next character literally and
//!   a bare `#` always ends the value, so one key has exactly one decoding;
//! - **prefix-safe**: an encoded value never contains a bare `#`, so `begins_with(sk, "song#x#")`
//!   can never match the songs of album `x#y` (encoded `x$#y`);
//! - **order-preserving within a value**: `$` is the character right after `#`, so `a < b` (in
//!   UTF-8 byte order) implies `escape(a) < escape(b)`.

/// The separator that ends a placeholder value inside a key template.
pub const SEPARATOR: char = '#';
/// The escape character used inside placeholder values.
pub const ESCAPE: char = '$';

/// Appends `value` to `out`, escaping the separator and the escape character.
pub fn escape_into(value: &str, out: &mut String) {
    let bytes = value.as_bytes();
    let mut start = 0;
    for (index, byte) in bytes.iter().enumerate() {
        if *byte == b'#' || *byte == b'$' {
            out.push_str(&value[start..index]);
            out.push(ESCAPE);
            start = index;
        }
    }
    out.push_str(&value[start..]);
}

/// Returns `value` escaped; see [`escape_into`].
pub fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    escape_into(value, &mut out);
    out
}

/// Reads one escaped value from the start of `encoded`, up to the first bare separator or the end.
///
/// Returns the unescaped value and the rest of the input, starting at the separator (if any).
/// Fails on a dangling escape character at the end of the input.
pub fn unescape_prefix(encoded: &str) -> Result<(String, &str), UnescapeError> {
    let mut out = String::with_capacity(encoded.len());
    let mut chars = encoded.char_indices();
    while let Some((index, c)) = chars.next() {
        match c {
            SEPARATOR => return Ok((out, &encoded[index..])),
            ESCAPE => match chars.next() {
                Some((_, escaped)) => out.push(escaped),
                None => return Err(UnescapeError::DanglingEscape),
            },
            other => out.push(other),
        }
    }
    Ok((out, ""))
}

/// Why an encoded value could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum UnescapeError {
    /// The input ends with an escape character that escapes nothing.
    #[error("dangling escape character `$` at the end of a key value")]
    DanglingEscape,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_separator_and_escape_character() {
        assert_eq!(escape("x#y"), "x$#y");
        assert_eq!(escape("a$b"), "a$$b");
        assert_eq!(escape("#$"), "$#$$");
        assert_eq!(escape("plain text"), "plain text");
    }

    #[test]
    fn unescape_stops_at_bare_separator() {
        assert_eq!(unescape_prefix("x$#y#z").unwrap(), ("x#y".to_string(), "#z"));
        assert_eq!(unescape_prefix("a$$#b").unwrap(), ("a$".to_string(), "#b"));
        assert_eq!(unescape_prefix("tail").unwrap(), ("tail".to_string(), ""));
        assert_eq!(unescape_prefix("bad$"), Err(UnescapeError::DanglingEscape));
    }

    #[test]
    fn escaped_order_matches_raw_order_around_the_special_characters() {
        let mut raw = vec!["a", "a#", "a$", "a\"", "a%", "a#b", "a$#", "a ", "b"];
        raw.sort();
        let mut encoded: Vec<String> = raw.iter().map(|s| escape(s)).collect();
        let before = encoded.clone();
        encoded.sort();
        assert_eq!(before, encoded);
    }
}
