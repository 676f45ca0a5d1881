//! The boundary between two neighbouring keys: the shortest prefix of the later key that is
//! greater than the earlier one (in UTF-8 byte order, ending on a character boundary).

/// The shortest prefix `p` of `next` with `previous < p <= next`; `previous < next` is required.
///
/// With `l` the length of the common prefix, `next[..l + 1]` is already greater than `previous`
/// and no shorter prefix is (it would be a prefix of `previous`); the prefix is extended to the
/// end of the character that byte belongs to.
pub fn separating_prefix<'a>(previous: &str, next: &'a str) -> &'a str {
    debug_assert!(previous < next, "{previous:?} < {next:?}");
    let common = previous.bytes().zip(next.bytes()).take_while(|(a, b)| a == b).count();
    let mut end = (common + 1).min(next.len());
    while !next.is_char_boundary(end) {
        end += 1;
    }
    &next[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn examples() {
        assert_eq!(separating_prefix("abba", "acdc"), "ac");
        assert_eq!(separating_prefix("demo", "demo tape"), "demo ");
        assert_eq!(separating_prefix("", "zed"), "z");
        assert_eq!(separating_prefix("the human", "the human touch"), "the human ");
        // A multi-byte character is never cut: "é" is 0xC3 0xA9, "ê" is 0xC3 0xAA.
        assert_eq!(separating_prefix("caé", "caê"), "caê");
        assert_eq!(separating_prefix("z", "голос"), "г");
    }

    fn text() -> impl Strategy<Value = String> {
        "[ab\u{e9}\u{ea}\u{433}\u{1F345} ]{0,8}"
    }

    proptest! {
        #[test]
        fn separates_and_is_shortest(a in text(), b in text()) {
            prop_assume!(a != b);
            let (previous, next) = if a < b { (a, b) } else { (b, a) };
            let prefix = separating_prefix(&previous, &next);
            prop_assert!(next.starts_with(prefix));
            prop_assert!(previous.as_str() < prefix && prefix <= next.as_str());
            // Every shorter prefix on a character boundary fails to separate.
            for end in (0..prefix.len()).filter(|&end| next.is_char_boundary(end)) {
                prop_assert!(&next[..end] <= previous.as_str());
            }
        }
    }
}
