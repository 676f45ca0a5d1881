//! The text hash shards are computed from, for `by` fields of any routable type.
//!
//! With one `by` field, the text is the field's value; with several (`by = (path, at)`), it is
//! their texts one after another, as seed code hashes `path + str(timestamp)`. Integers route by
//! their decimal form (Python's `str(n)`), not by their fixed-width key encoding.

use std::fmt::Write;

/// A value a hash shard can be computed from: strings, characters and integers.
#[diagnostic::on_unimplemented(
    message = "shards cannot be computed from `{Self}`",
    label = "this `by` field picks the shard",
    note = "`by` fields are `String`, `char` or integers; hash shards route by their text"
)]
pub trait RoutingText {
    /// Appends the value's routing text to `out`.
    fn push_routing_text(&self, out: &mut String);
}

impl RoutingText for str {
    fn push_routing_text(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl RoutingText for String {
    fn push_routing_text(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl RoutingText for char {
    fn push_routing_text(&self, out: &mut String) {
        out.push(*self);
    }
}

impl<T: RoutingText + ?Sized> RoutingText for &T {
    fn push_routing_text(&self, out: &mut String) {
        (**self).push_routing_text(out);
    }
}

macro_rules! integer_routing_text {
    ($($ty:ty),*) => {$(
        impl RoutingText for $ty {
            fn push_routing_text(&self, out: &mut String) {
                // Writing to a String cannot fail.
                let _ = write!(out, "{self}");
            }
        }
    )*};
}

integer_routing_text!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

impl super::ShardSpec {
    /// The routing text of a stored `item`: its `by` attributes' texts one after another
    /// (numbers in their decimal form, as the derive routes them); `None` when one is missing or
    /// of another type.
    pub(crate) fn item_routing_text(&self, item: &crate::error::Item) -> Option<String> {
        let mut text = String::new();
        for attribute in self.by {
            match item.get(*attribute)? {
                aws_sdk_dynamodb::types::AttributeValue::S(value)
                | aws_sdk_dynamodb::types::AttributeValue::N(value) => text.push_str(value),
                _ => return None,
            }
        }
        Some(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(values: &[&dyn RoutingText]) -> String {
        let mut out = String::new();
        values.iter().for_each(|value| value.push_routing_text(&mut out));
        out
    }

    #[test]
    fn concatenates_texts_and_writes_integers_in_decimal() {
        assert_eq!(
            text(&[&"/shared/firetvGen2.txt", &123_456_789_101u64]),
            "/shared/firetvGen2.txt123456789101"
        );
        assert_eq!(text(&[&-7i32, &'x', &String::from("é")]), "-7xé");
    }
}
