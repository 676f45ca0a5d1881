//! Key parts whose encodings are prefix-free: no encoded value is a prefix of another, and byte
//! order is value order. Ranges on such a part are exact wherever it sits in a sort key, because
//! whatever follows it cannot change how two keys compare.

use super::KeyPart;

/// A [`KeyPart`] whose encodings are prefix-free and ordered: for values `a < b`, `encode(a)` is
/// not a prefix of `encode(b)` (nor the reverse) and sorts before it byte by byte. Integers are:
/// unsigned ones are zero-padded to one width, signed ones add a leading `-` to negative values.
///
/// Range conditions (`lt`, `le`, `gt`, `ge`, `between`) are then allowed on a placeholder of this
/// type anywhere in a sort-key template, not only the last: `sk = "{at}#{id}"` takes
/// `.between(t1, t2)` on `at`. A string is not prefix-free (`"ab#…"` sorts after `"a#…"` but
/// `"a" < "ab"` says nothing of what follows), so a string placeholder takes ranges only last.
///
/// Implement it for your own key part only when its encoding has both properties; a range on a
/// part without them would return items out of range.
#[diagnostic::on_unimplemented(
    message = "range conditions apply to the last placeholder of a sort-key template, or to an integer one",
    label = "the next sort-key value is a `{Self}` followed by more of the template: narrow it with `.eq(..)` first",
    note = "a `{Self}` followed by more of the template is not stored in an order that ranges can rely on"
)]
pub trait PrefixFree: KeyPart {}

macro_rules! prefix_free {
    ($($ty:ty),*) => {$(
        impl PrefixFree for $ty {}
    )*};
}

prefix_free!(u8, u16, u32, u64, u128, i8, i16, i32, i64, i128);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn encoded<T: KeyPart>(arg: T::Arg<'_>) -> String {
        let mut out = String::new();
        T::encode(arg, &mut out);
        out
    }

    fn check<T>(a: T, b: T)
    where
        T: Ord + Copy + for<'a> KeyPart<Arg<'a> = T> + std::fmt::Debug,
    {
        let (x, y) = (encoded::<T>(a), encoded::<T>(b));
        if a != b {
            assert!(!x.starts_with(&y) && !y.starts_with(&x), "{x:?} and {y:?}");
        }
        // Whatever follows in the key, the order is the values' order.
        let (x_key, y_key) = (format!("{x}#zzz"), format!("{y}#"));
        assert_eq!(a.cmp(&b), x.cmp(&y));
        if a != b {
            assert_eq!(a.cmp(&b), x_key.cmp(&y_key), "{x_key:?} {y_key:?}");
        }
    }

    proptest! {
        #[test]
        fn signed_integers_are_prefix_free_and_ordered(a: i64, b: i64, c: i8, d: i8) {
            check(a, b);
            check(c, d);
        }

        #[test]
        fn unsigned_integers_are_prefix_free_and_ordered(a: u64, b: u64, c: u16, d: u16) {
            check(a, b);
            check(c, d);
        }
    }

    #[test]
    fn the_extremes() {
        check(i64::MIN, -1_i64);
        check(-1_i64, 0_i64);
        check(i64::MIN, i64::MAX);
        check(i128::MIN, i128::MAX);
        check(0_u128, u128::MAX);
    }
}
