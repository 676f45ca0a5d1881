//! Arithmetic that stays within its field's type: `add` and `subtract` carry a condition on the
//! stored number, so that a result the type cannot hold (past `u32::MAX`, below zero for an
//! unsigned field, below `i64::MIN`) is refused by DynamoDB and nothing is stored.
//!
//! Without it, DynamoDB would store `4294967294 + 5` in a `u32` field, and every read of the
//! item would fail to decode from then on. The condition is computed from the amount and the
//! type's range (`stored <= MAX - amount` for a positive addition, and so on), and a missing
//! attribute, which counts as 0, passes it only when `0 ± amount` is in range. DynamoDB keeps 38
//! significant digits, so the 128-bit types hold what 38 digits can write.

use crate::error::{Error, Item};
use crate::expression::{AttributePath, Condition};
use crate::numbers::greater;
use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;

/// The greatest integer DynamoDB stores exactly: 38 nines.
pub(super) const LARGEST_EXACT: u128 = 99_999_999_999_999_999_999_999_999_999_999_999_999;

/// The stored numbers an `add` or `subtract` of a given amount keeps within its type: a bound,
/// and whether a missing attribute (counted as 0) is within it. Made by [`Numeric`].
#[doc(hidden)]
#[derive(Debug, Clone, PartialEq)]
pub struct Headroom {
    bound: Bound,
    missing: bool,
}

/// The bound a stored number must keep.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Bound {
    /// At most this number (decimal text).
    AtMost(String),
    /// At least this number.
    AtLeast(String),
    /// Any number.
    Any,
    /// None: the amount itself is out of the type's range.
    Never,
}

impl Headroom {
    /// `bound` (`None`: no stored number keeps the result in range), and whether 0 does.
    pub(super) fn new(bound: Option<Bound>, missing: bool) -> Self {
        Headroom { bound: bound.unwrap_or(Bound::Never), missing }
    }

    /// Any stored number keeps the result in range.
    pub(super) fn any() -> Self {
        Headroom { bound: Bound::Any, missing: true }
    }

    /// Whether the stored number `stored` (`None`: nothing stored) leaves room for the change:
    /// what the condition checks, as DynamoDB compares numbers.
    fn admits(&self, stored: Option<&str>) -> bool {
        match (stored, &self.bound) {
            (_, Bound::Never) => false,
            (None, _) => self.missing,
            (Some(_), Bound::Any) => true,
            (Some(number), Bound::AtMost(bound)) => !greater(number, bound),
            (Some(number), Bound::AtLeast(bound)) => !greater(bound, number),
        }
    }
}

/// Builds the [`Headroom`] of integers of type `$ty` holding `$min..=$max`: `$amount` added, or
/// subtracted when `$subtract`. Every bound is computed without overflow: an amount that leaves
/// no stored value in range gives [`Bound::Never`].
macro_rules! integer_headroom {
    ($ty:ty, $amount:expr, $subtract:expr, $min:expr, $max:expr) => {{
        use $crate::ops::update::arithmetic::{Bound, Headroom};
        let (amount, subtract, min, max): ($ty, bool, $ty, $ty) = ($amount, $subtract, $min, $max);
        let within = |value: $ty| min <= value && value <= max;
        #[allow(unused_comparisons)] // an unsigned amount is never negative
        let positive = amount >= 0;
        let bound = match (subtract, positive) {
            // stored + amount <= max
            (false, true) => max.checked_sub(amount).map(|bound| Bound::AtMost(bound.to_string())),
            // stored + amount >= min
            (false, false) => min.checked_sub(amount).map(|bound| Bound::AtLeast(bound.to_string())),
            // stored - amount >= min
            (true, true) => min.checked_add(amount).map(|bound| Bound::AtLeast(bound.to_string())),
            // stored - amount <= max
            (true, false) => max.checked_add(amount).map(|bound| Bound::AtMost(bound.to_string())),
        };
        let zero: $ty = 0;
        let from_zero = if subtract { zero.checked_sub(amount) } else { Some(amount) };
        let bound = bound.filter(|_| within(amount));
        Headroom::new(bound, within(amount) && from_zero.is_some_and(within))
    }};
}

/// The [`Headroom`] of floats whose type holds `-max..=max`: `amount` added, or subtracted when
/// `subtract`. A change that is not finite fits no stored number.
pub(super) fn float_headroom(amount: f64, subtract: bool, max: f64) -> Headroom {
    let change = if subtract { -amount } else { amount };
    if !change.is_finite() {
        return Headroom::new(None, false);
    }
    let bound = match change >= 0.0 {
        true => Bound::AtMost((max - change).to_string()),
        false => Bound::AtLeast((-max - change).to_string()),
    };
    Headroom::new(Some(bound), change.abs() <= max)
}

/// One `add` or `subtract` of an update: where, by how much, and what the stored number must
/// keep.
#[derive(Debug, Clone)]
pub(crate) struct Arithmetic {
    pub path: AttributePath,
    /// The change as text: `+5`, `-3`.
    pub change: String,
    pub headroom: Headroom,
    /// The field's type.
    pub ty: &'static str,
}

impl Arithmetic {
    /// The condition that keeps the result in range (`None`: any stored number does).
    pub fn guard(&self) -> Option<Condition> {
        let compare = match &self.headroom.bound {
            // A change that fits no stored number is refused before sending (`impossible`).
            Bound::Any | Bound::Never => return None,
            Bound::AtMost(bound) => Condition::at_most(self.path.clone(), AttributeValue::N(bound.clone())),
            Bound::AtLeast(bound) => Condition::at_least(self.path.clone(), AttributeValue::N(bound.clone())),
        };
        Some(match self.headroom.missing {
            true => Condition::missing(self.path.clone()).or(compare),
            false => compare,
        })
    }

    /// The error for an update refused because of this change, given the stored item; `None`
    /// when the stored number leaves room for it.
    pub fn refusal(&self, stored: Option<&Item>) -> Option<Error> {
        let stored = match stored.and_then(|item| self.path.value_in(item)) {
            Some(AttributeValue::N(number)) => Some(number.as_str()),
            // Not a number: DynamoDB refuses the arithmetic itself.
            Some(_) => return None,
            None => None,
        };
        let fits = self.headroom.admits(stored);
        let stored = stored.map_or_else(|| "nothing (counted as 0)".to_owned(), str::to_owned);
        (!fits).then(|| Error::Overflow {
            attribute: self.path.to_string(),
            stored,
            change: self.change.clone(),
            ty: self.ty,
        })
    }

    /// Refused before sending: the amount leaves no stored number in range.
    pub fn impossible(&self) -> Option<Error> {
        (self.headroom.bound == Bound::Never).then(|| Error::Overflow {
            attribute: self.path.to_string(),
            stored: "any number".to_owned(),
            change: self.change.clone(),
            ty: self.ty,
        })
    }
}

/// Numeric field types that [`Update::add`](super::Update::add) and
/// [`Update::subtract`](super::Update::subtract) change.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a number: `add` and `subtract` change numeric fields",
    label = "not a numeric field",
    note = "sets take `add_to` and `delete_from`"
)]
pub trait Numeric: Serialize {
    /// Whether the type holds no negative numbers (a subtraction then stays at or above zero).
    const UNSIGNED: bool;

    /// The stored numbers that keep `stored + self` (`stored - self` when `subtract`) within
    /// the type.
    #[doc(hidden)]
    fn headroom(&self, subtract: bool) -> Headroom;
}

macro_rules! integers {
    ($($ty:ty: $unsigned:literal, $min:expr, $max:expr;)*) => {$(
        impl Numeric for $ty {
            const UNSIGNED: bool = $unsigned;

            fn headroom(&self, subtract: bool) -> Headroom {
                integer_headroom!($ty, *self, subtract, $min, $max)
            }
        }
    )*};
}
integers!(
    u8: true, u8::MIN, u8::MAX;
    u16: true, u16::MIN, u16::MAX;
    u32: true, u32::MIN, u32::MAX;
    u64: true, u64::MIN, u64::MAX;
    usize: true, usize::MIN, usize::MAX;
    u128: true, 0, LARGEST_EXACT;
    i8: false, i8::MIN, i8::MAX;
    i16: false, i16::MIN, i16::MAX;
    i32: false, i32::MIN, i32::MAX;
    i64: false, i64::MIN, i64::MAX;
    isize: false, isize::MIN, isize::MAX;
    i128: false, -(LARGEST_EXACT as i128), LARGEST_EXACT as i128;
);

impl Numeric for f32 {
    const UNSIGNED: bool = false;

    fn headroom(&self, subtract: bool) -> Headroom {
        float_headroom(f64::from(*self), subtract, f64::from(f32::MAX))
    }
}

impl Numeric for f64 {
    const UNSIGNED: bool = false;

    /// DynamoDB's range (to 9.99e125) lies within `f64`'s: a result past it is refused by
    /// DynamoDB, and nothing is stored.
    fn headroom(&self, subtract: bool) -> Headroom {
        match self.is_finite() {
            true => Headroom::any(),
            false => float_headroom(*self, subtract, f64::MAX),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Numeric;
    use super::*;
    use proptest::prelude::*;

    /// Checks every width: the headroom of `amount` admits `stored` exactly when the result
    /// (`stored ± amount`, computed wide) lies in `min..=max`.
    macro_rules! check_width {
        ($ty:ty, $stored:expr, $amount:expr, $subtract:expr, $min:expr, $max:expr) => {{
            let (stored, amount, subtract): ($ty, $ty, bool) = ($stored, $amount, $subtract);
            let (min, max): (i128, i128) = ($min, $max);
            // Wide enough for every result of two values of the width (u128 only to 38 digits).
            let wide = |value: $ty| value as i128;
            let result = if subtract {
                wide(stored).checked_sub(wide(amount))
            } else {
                wide(stored).checked_add(wide(amount))
            };
            let fits = result.is_some_and(|result| min <= result && result <= max)
                && min <= wide(amount)
                && wide(amount) <= max;
            let headroom = amount.headroom(subtract);
            let sign = if subtract { "-" } else { "+" };
            prop_assert_eq!(
                headroom.admits(Some(&stored.to_string())),
                fits,
                "{} {} {}",
                stored,
                sign,
                amount
            );
            let from_zero = if subtract { 0i128.checked_sub(wide(amount)) } else { Some(wide(amount)) };
            let zero_fits = from_zero.is_some_and(|result| min <= result && result <= max)
                && min <= wide(amount)
                && wide(amount) <= max;
            prop_assert_eq!(headroom.admits(None), zero_fits);
        }};
    }

    /// Every width, with values near its edges as often as anywhere else.
    macro_rules! width_property {
        ($name:ident, $ty:ty) => {
            proptest! {
                #[test]
                fn $name(
                    stored in prop_oneof![
                        any::<$ty>(),
                        <$ty>::MIN..=<$ty>::MIN.saturating_add(3),
                        <$ty>::MAX.saturating_sub(3)..=<$ty>::MAX,
                    ],
                    amount in prop_oneof![
                        any::<$ty>(),
                        <$ty>::MIN..=<$ty>::MIN.saturating_add(3),
                        <$ty>::MAX.saturating_sub(3)..=<$ty>::MAX,
                        (0 as $ty)..=(4 as $ty),
                    ],
                    subtract in any::<bool>(),
                ) {
                    check_width!($ty, stored, amount, subtract, <$ty>::MIN as i128, <$ty>::MAX as i128);
                }
            }
        };
    }

    width_property!(u8_results_stay_in_range, u8);
    width_property!(u16_results_stay_in_range, u16);
    width_property!(u32_results_stay_in_range, u32);
    width_property!(u64_results_stay_in_range, u64);
    width_property!(usize_results_stay_in_range, usize);
    width_property!(i8_results_stay_in_range, i8);
    width_property!(i16_results_stay_in_range, i16);
    width_property!(i32_results_stay_in_range, i32);
    width_property!(i64_results_stay_in_range, i64);
    width_property!(isize_results_stay_in_range, isize);

    #[test]
    fn the_128_bit_widths_hold_38_digits() {
        let largest = LARGEST_EXACT;
        assert!(!5u128.headroom(false).admits(Some(&(largest - 4).to_string())));
        assert!(5u128.headroom(false).admits(Some(&(largest - 5).to_string())));
        assert!(!u128::MAX.headroom(false).admits(None), "an amount past 38 digits fits nothing");
        assert_eq!(u128::MAX.headroom(false).bound, Bound::Never);
        let least = -(largest as i128);
        assert!(!1i128.headroom(true).admits(Some(&least.to_string())));
        assert!(1i128.headroom(true).admits(Some(&(least + 1).to_string())));
        assert!(!i128::MIN.headroom(true).admits(None));
    }

    #[test]
    fn floats_keep_f32_finite_and_refuse_what_is_not_a_number() {
        let max = f64::from(f32::MAX);
        assert!(!1e38f32.headroom(false).admits(Some(&max.to_string())));
        assert!(1.0f32.headroom(false).admits(Some("1000")));
        assert!(!1e38f32.headroom(true).admits(Some(&(-max).to_string())));
        for odd in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            assert!(!odd.headroom(false).admits(None) && !odd.headroom(false).admits(Some("1")));
        }
        assert!(1e200f64.headroom(false).admits(Some("1")), "DynamoDB bounds f64 itself");
        assert!(!f64::NAN.headroom(false).admits(Some("1")));
    }

    #[test]
    fn overflow_names_the_attribute_the_stored_number_and_the_change() {
        let change = Arithmetic {
            path: AttributePath::from("on_hand"),
            change: "+5".into(),
            headroom: 5u32.headroom(false),
            ty: "u32",
        };
        let item: Item = [("on_hand".to_owned(), AttributeValue::N("4294967294".into()))].into();
        let refused = change.refusal(Some(&item)).expect("refused");
        assert_eq!(
            refused.to_string(),
            "`on_hand` holds 4294967294: changing it by +5 would leave the range of `u32`"
        );
        let room: Item = [("on_hand".to_owned(), AttributeValue::N("7".into()))].into();
        assert!(change.refusal(Some(&room)).is_none());
        assert!(change.refusal(None).is_none(), "nothing stored counts as 0");
    }
}
