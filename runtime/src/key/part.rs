//! Values that can fill a `{placeholder}` in a key template.

use super::escape::{escape_into, unescape_prefix};

pub use crate::error::KeyPartDecodeError;

/// A type whose values can stand in a key template placeholder.
///
/// Implemented for `String`, `char`, every integer type and `time::OffsetDateTime`. Integers and
/// times use an order-preserving fixed-width encoding, so `9 < 10` also holds between their keys;
/// strings are escaped (see [`crate::key`]). Implement it for your own newtypes to use them in
/// keys.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be part of a key",
    label = "this field is used in a key template",
    note = "key fields must be `String`, `char`, an integer type, `time::OffsetDateTime`, or implement `dynashard::KeyPart`"
)]
pub trait KeyPart {
    /// The argument type that typed key builders take for this field (`&str` for `String`).
    type Arg<'a>: Copy
    where
        Self: 'a;

    /// Borrows a field value as a key-builder argument.
    fn as_arg(&self) -> Self::Arg<'_>;

    /// Appends the encoded form of `arg` to `out`.
    fn encode(arg: Self::Arg<'_>, out: &mut String);

    /// Whether `arg` is empty, which a key part may not be.
    fn is_empty(arg: Self::Arg<'_>) -> bool;

    /// The text that hash sharding routes by, for types that can route (`String`).
    fn routing_text<'a>(_arg: Self::Arg<'a>) -> Option<&'a str>
    where
        Self: 'a,
    {
        None
    }
}

/// A key part that can be read back from its encoded form.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be read back from a key",
    label = "a key field of this type is read back from the key here",
    note = "implement `dynashard::key::DecodeKeyPart` for `{Self}`: upserts, and updates of an index keyed on \
            key fields, read key fields back from the item's key"
)]
pub trait DecodeKeyPart: Sized {
    /// Reads one value from the start of `encoded` (up to a bare `#` or the end) and returns it
    /// with the rest of the input.
    fn decode_prefix(encoded: &str) -> Result<(Self, &str), KeyPartDecodeError>;
}

impl KeyPart for String {
    type Arg<'a> = &'a str;

    fn as_arg(&self) -> &str {
        self
    }

    fn encode(arg: &str, out: &mut String) {
        escape_into(arg, out);
    }

    fn is_empty(arg: &str) -> bool {
        arg.is_empty()
    }

    fn routing_text<'a>(arg: Self::Arg<'a>) -> Option<&'a str>
    where
        Self: 'a,
    {
        Some(arg)
    }
}

impl DecodeKeyPart for String {
    fn decode_prefix(encoded: &str) -> Result<(Self, &str), KeyPartDecodeError> {
        unescape_prefix(encoded).map_err(|_| KeyPartDecodeError::new(encoded, "dangling `$`"))
    }
}

impl KeyPart for char {
    type Arg<'a> = char;

    fn as_arg(&self) -> char {
        *self
    }

    fn encode(arg: char, out: &mut String) {
        escape_into(arg.encode_utf8(&mut [0; 4]), out);
    }

    fn is_empty(_: char) -> bool {
        false
    }
}

impl DecodeKeyPart for char {
    fn decode_prefix(encoded: &str) -> Result<(Self, &str), KeyPartDecodeError> {
        let (text, rest) = String::decode_prefix(encoded)?;
        let mut chars = text.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Ok((c, rest)),
            _ => Err(KeyPartDecodeError::new(encoded, "expected exactly one character")),
        }
    }
}

/// Splits `encoded` into its leading `width` bytes and the rest.
fn fixed_width(encoded: &str, width: usize) -> Result<(&str, &str), KeyPartDecodeError> {
    if encoded.len() < width || !encoded.is_char_boundary(width) {
        return Err(KeyPartDecodeError::new(encoded, "too short for a fixed-width number"));
    }
    Ok(encoded.split_at(width))
}

/// Digits of a `u128` printed in decimal.
const fn decimal_width(mut max: u128) -> usize {
    let mut width = 1;
    while max >= 10 {
        max /= 10;
        width += 1;
    }
    width
}

macro_rules! unsigned_key_part {
    ($($ty:ty),*) => {$(
        impl KeyPart for $ty {
            type Arg<'a> = $ty;

            fn as_arg(&self) -> $ty {
                *self
            }

            /// Zero-padded to the width of the type's maximum, so byte order is numeric order.
            fn encode(arg: $ty, out: &mut String) {
                use std::fmt::Write;
                const WIDTH: usize = decimal_width(<$ty>::MAX as u128);
                let _ = write!(out, "{arg:0WIDTH$}");
            }

            fn is_empty(_: $ty) -> bool {
                false
            }
        }

        impl DecodeKeyPart for $ty {
            fn decode_prefix(encoded: &str) -> Result<(Self, &str), KeyPartDecodeError> {
                const WIDTH: usize = decimal_width(<$ty>::MAX as u128);
                let (digits, rest) = fixed_width(encoded, WIDTH)?;
                if !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(KeyPartDecodeError::new(encoded, "expected digits"));
                }
                let value = digits
                    .parse()
                    .map_err(|_| KeyPartDecodeError::new(encoded, "number out of range"))?;
                Ok((value, rest))
            }
        }
    )*};
}

macro_rules! signed_key_part {
    ($($ty:ty => $unsigned:ty),*) => {$(
        impl KeyPart for $ty {
            type Arg<'a> = $ty;

            fn as_arg(&self) -> $ty {
                *self
            }

            /// Non-negative values are zero-padded digits; negative values are `-` followed by
            /// the zero-padded distance from the type's minimum. `-` sorts before every digit, and
            /// that distance grows with the value, so byte order is numeric order.
            fn encode(arg: $ty, out: &mut String) {
                use std::fmt::Write;
                const WIDTH: usize = decimal_width(<$ty>::MAX as u128);
                if arg >= 0 {
                    let _ = write!(out, "{arg:0WIDTH$}");
                } else {
                    let distance = arg.wrapping_sub(<$ty>::MIN) as $unsigned;
                    let _ = write!(out, "-{distance:0WIDTH$}");
                }
            }

            fn is_empty(_: $ty) -> bool {
                false
            }
        }

        impl DecodeKeyPart for $ty {
            fn decode_prefix(encoded: &str) -> Result<(Self, &str), KeyPartDecodeError> {
                const WIDTH: usize = decimal_width(<$ty>::MAX as u128);
                let (negative, body) = match encoded.strip_prefix('-') {
                    Some(body) => (true, body),
                    None => (false, encoded),
                };
                let (digits, rest) = fixed_width(body, WIDTH)?;
                if !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(KeyPartDecodeError::new(encoded, "expected digits"));
                }
                let magnitude: $unsigned = digits
                    .parse()
                    .map_err(|_| KeyPartDecodeError::new(encoded, "number out of range"))?;
                let value = if negative {
                    if magnitude > (<$ty>::MAX as $unsigned) {
                        return Err(KeyPartDecodeError::new(encoded, "number out of range"));
                    }
                    <$ty>::MIN.wrapping_add(magnitude as $ty)
                } else {
                    if magnitude > (<$ty>::MAX as $unsigned) {
                        return Err(KeyPartDecodeError::new(encoded, "number out of range"));
                    }
                    magnitude as $ty
                };
                Ok((value, rest))
            }
        }
    )*};
}

unsigned_key_part!(u8, u16, u32, u64, u128);
signed_key_part!(i8 => u8, i16 => u16, i32 => u32, i64 => u64, i128 => u128);

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded<T: KeyPart>(value: &T) -> String {
        let mut out = String::new();
        T::encode(value.as_arg(), &mut out);
        out
    }

    #[test]
    fn unsigned_integers_are_fixed_width() {
        assert_eq!(encoded(&9u32), "0000000009");
        assert_eq!(encoded(&10u32), "0000000010");
        assert_eq!(encoded(&u8::MAX), "255");
        assert!(encoded(&9u64) < encoded(&10u64));
    }

    #[test]
    fn signed_integers_sort_numerically() {
        let values = [i64::MIN, -1000, -10, -9, -1, 0, 1, 9, 10, i64::MAX];
        let keys: Vec<String> = values.iter().map(encoded).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
        assert_eq!(encoded(&-1i8), "-127");
        assert_eq!(encoded(&i8::MIN), "-000");
        assert_eq!(encoded(&5i8), "005");
    }

    #[test]
    fn integers_round_trip() {
        for value in [i16::MIN, -300, -1, 0, 1, 300, i16::MAX] {
            let key = encoded(&value);
            assert_eq!(i16::decode_prefix(&key), Ok((value, "")));
        }
        assert_eq!(u8::decode_prefix("007#x"), Ok((7, "#x")));
        assert!(u8::decode_prefix("07").is_err());
        assert!(u8::decode_prefix("999").is_err());
        assert!(i8::decode_prefix("-999").is_err());
        assert!(u8::decode_prefix("0a7").is_err());
    }

    #[test]
    fn strings_and_chars_round_trip() {
        assert_eq!(String::decode_prefix("x$#y#z"), Ok(("x#y".to_string(), "#z")));
        assert_eq!(encoded(&'#'), "$#");
        assert_eq!(char::decode_prefix("$##"), Ok(('#', "#")));
        assert!(char::decode_prefix("ab").is_err());
    }
}
