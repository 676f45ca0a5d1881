//! The sort key of a range-sharded index: the normalized routing value first, so the order
//! inside a shard is the order routing used (DESIGN §4), then a tiebreak that keeps items
//! unique and their order deterministic: the original value and the item's base-table key.
//!
//! Parts are joined by U+0001, and U+0000 to U+0002 inside a part are escaped as U+0002
//! followed by U+0002, U+0003 or U+0004. Every escaped part therefore sorts above the
//! separator, and escaping preserves order, so comparing two keys compares their normalized
//! values first.

/// Separates the parts of a range-sharded sort key.
pub const PART_SEPARATOR: char = '\u{1}';

/// Appends `part`, escaped, to `out`.
fn push_part(out: &mut String, part: &str) {
    for c in part.chars() {
        match c {
            '\u{0}' => out.push_str("\u{2}\u{2}"),
            '\u{1}' => out.push_str("\u{2}\u{3}"),
            '\u{2}' => out.push_str("\u{2}\u{4}"),
            other => out.push(other),
        }
    }
}

/// The encoded normalized value alone: the prefix every sort key of that value starts with
/// (followed by the separator).
pub fn normalized_prefix(normalized: &str) -> String {
    let mut out = String::with_capacity(normalized.len() + 1);
    push_part(&mut out, normalized);
    out
}

/// The sort key of an item in a range-sharded index.
///
/// ```
/// use dynashard::shard::range_sort_key;
/// let a = range_sort_key("leaving home", "Leaving Home", &["Solar Fields", "album#Leaving Home"]);
/// let b = range_sort_key("leaving home", "leaving home", &["Other", "album#leaving home"]);
/// let c = range_sort_key("leaving homes", "Leaving Homes", &["A", "album#Leaving Homes"]);
/// assert!(a < b, "equal normalized values order by the original value ('L' < 'l')");
/// assert!(a < c, "a shorter normalized value sorts first");
/// ```
pub fn range_sort_key(normalized: &str, original: &str, base_key: &[&str]) -> String {
    let mut out = String::with_capacity(normalized.len() + original.len() + 32);
    push_part(&mut out, normalized);
    out.push(PART_SEPARATOR);
    push_part(&mut out, original);
    for part in base_key {
        out.push(PART_SEPARATOR);
        push_part(&mut out, part);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::sample::select(vec!['\u{0}', '\u{1}', '\u{2}', '\u{3}', 'a', 'b', ' ', 'é']),
            0..6,
        )
        .prop_map(|chars| chars.into_iter().collect())
    }

    proptest! {
        #[test]
        fn normalized_order_comes_first(a in text(), b in text(), ta in text(), tb in text()) {
            let ka = range_sort_key(&a, &ta, &["pk", "sk1"]);
            let kb = range_sort_key(&b, &tb, &["pk", "sk2"]);
            if a != b {
                prop_assert_eq!(a.cmp(&b), ka.cmp(&kb));
            } else {
                prop_assert_eq!(ta.cmp(&tb).then("sk1".cmp("sk2")), ka.cmp(&kb));
            }
        }

        #[test]
        fn keys_are_unique_per_item(a in text(), ta in text(), k1 in text(), k2 in text()) {
            let ka = range_sort_key(&a, &ta, &[&k1]);
            let kb = range_sort_key(&a, &ta, &[&k2]);
            prop_assert_eq!(k1 == k2, ka == kb);
        }
    }
}
