//! The numbers DynamoDB stores: at most 38 significant digits, magnitudes from 1E-130 to
//! 9.9999999999999999999999999999999999999E+125 (and zero). Anything else (`NaN`, infinities,
//! `1e200`, `5e-324`, `u128::MAX`) is refused by DynamoDB with a `ValidationException`, in a
//! batch for the whole request. Every value a write sends is checked here first, so such a
//! value fails alone, before anything is sent, with [`Error::InvalidNumber`] naming where it is.

use crate::error::{Error, Item, Result};
use aws_sdk_dynamodb::types::AttributeValue;

/// The most significant digits DynamoDB keeps.
const DIGITS: usize = 38;
/// The least exponent of a non-zero number's leading digit (1E-130).
const LEAST_EXPONENT: i64 = -130;
/// The greatest exponent of a number's leading digit (9.99…E+125).
const GREATEST_EXPONENT: i64 = 125;

/// Why DynamoDB would refuse a number.
fn refusal(text: &str) -> Option<&'static str> {
    let unsigned = text.strip_prefix('-').unwrap_or(text);
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits_only = |part: &str| part.bytes().all(|byte| byte.is_ascii_digit());
    if whole.is_empty() && fraction.is_empty() || !digits_only(whole) || !digits_only(fraction) {
        return Some("not a finite decimal number");
    }
    let exponent: i64 = match exponent {
        None => 0,
        Some(text) => match text.strip_prefix('+').unwrap_or(text).parse::<i64>() {
            Ok(exponent) if text.len() <= 12 => exponent,
            _ => return Some("not a finite decimal number"),
        },
    };
    // The digits, `whole` then `fraction`, read without joining them.
    let all = || whole.bytes().chain(fraction.bytes());
    let length = whole.len() + fraction.len();
    let leading_zeros = all().take_while(|digit| *digit == b'0').count();
    if leading_zeros == length {
        return None; // zero
    }
    let trailing_zeros = all().rev().take_while(|digit| *digit == b'0').count();
    if length - leading_zeros - trailing_zeros > DIGITS {
        return Some("more than 38 significant digits");
    }
    // The exponent of the leading digit: its place in `whole`, shifted by the exponent.
    let leading = (whole.len() as i64) - (leading_zeros as i64) - 1 + exponent;
    if leading > GREATEST_EXPONENT {
        return Some("larger than 9.99E+125 in magnitude");
    }
    if leading < LEAST_EXPONENT {
        return Some("smaller than 1E-130 in magnitude");
    }
    None
}

/// Whether the number `a` is greater than `b` (both as DynamoDB writes numbers): exactly for
/// integers of up to 38 digits, by `f64` otherwise.
pub(crate) fn greater(a: &str, b: &str) -> bool {
    match (a.parse::<i128>(), b.parse::<i128>()) {
        (Ok(a), Ok(b)) => a > b,
        _ => match (a.parse::<f64>(), b.parse::<f64>()) {
            (Ok(a), Ok(b)) => a > b,
            _ => false,
        },
    }
}

/// Whether a `BETWEEN low AND high` of these values holds nothing, as DynamoDB orders values of
/// one type (numbers by value, strings and binaries by their bytes); `false` for values of
/// different types, which DynamoDB judges itself.
pub(crate) fn reversed(low: &AttributeValue, high: &AttributeValue) -> bool {
    match (low, high) {
        (AttributeValue::N(low), AttributeValue::N(high)) => greater(low, high),
        (AttributeValue::S(low), AttributeValue::S(high)) => low.as_bytes() > high.as_bytes(),
        (AttributeValue::B(low), AttributeValue::B(high)) => low.as_ref() > high.as_ref(),
        _ => false,
    }
}

/// Fails on the first number in `value` DynamoDB would refuse; `path` names `value` in the error.
pub(crate) fn check_value(path: &mut String, value: &AttributeValue) -> Result<()> {
    let invalid = |path: &str, number: &str, reason: &'static str| Error::InvalidNumber {
        attribute: path.to_owned(),
        value: number.chars().take(64).collect(),
        reason,
    };
    match value {
        AttributeValue::N(number) => match refusal(number) {
            Some(reason) => Err(invalid(path, number, reason)),
            None => Ok(()),
        },
        AttributeValue::Ns(numbers) => {
            match numbers.iter().find_map(|number| Some((number, refusal(number)?))) {
                Some((number, reason)) => Err(invalid(path, number, reason)),
                None => Ok(()),
            }
        }
        AttributeValue::L(values) => values.iter().enumerate().try_for_each(|(index, value)| {
            let length = path.len();
            path.push_str(&format!("[{index}]"));
            let checked = check_value(path, value);
            path.truncate(length);
            checked
        }),
        AttributeValue::M(values) => values.iter().try_for_each(|(key, value)| {
            let length = path.len();
            path.push('.');
            path.push_str(key);
            let checked = check_value(path, value);
            path.truncate(length);
            checked
        }),
        _ => Ok(()),
    }
}

/// Fails on the first number of `item` DynamoDB would refuse.
pub(crate) fn check_item(item: &Item) -> Result<()> {
    // The path naming a refused number is only written once one is found.
    item.iter()
        .filter(|(_, value)| !stored(value))
        .try_for_each(|(name, value)| check_value(&mut name.clone(), value))
}

/// Whether DynamoDB stores every number in `value`.
fn stored(value: &AttributeValue) -> bool {
    match value {
        AttributeValue::N(number) => refusal(number).is_none(),
        AttributeValue::Ns(numbers) => numbers.iter().all(|number| refusal(number).is_none()),
        AttributeValue::L(values) => values.iter().all(stored),
        AttributeValue::M(values) => values.values().all(stored),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn what_dynamodb_stores_and_what_it_refuses() {
        for fine in [
            "0",
            "-0",
            "0.000",
            "1",
            "-17",
            "12.5",
            "1e125",
            "9.9999999999999999999999999999999999999E+125",
            "1E-130",
            "-1e-130",
            "99999999999999999999999999999999999999",
            "1.5e3",
            "0.001",
            "100000000000000000000000000000000000000000",
            "1.7976931348623157e100",
        ] {
            assert_eq!(refusal(fine), None, "{fine}");
        }
        for (refused, reason) in [
            ("NaN", "not a finite decimal number"),
            ("inf", "not a finite decimal number"),
            ("-inf", "not a finite decimal number"),
            ("", "not a finite decimal number"),
            ("1e", "not a finite decimal number"),
            ("1e200", "larger than 9.99E+125 in magnitude"),
            ("1e126", "larger than 9.99E+125 in magnitude"),
            ("5e-324", "smaller than 1E-130 in magnitude"),
            ("0.00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001", "smaller than 1E-130 in magnitude"),
            ("340282366920938463463374607431768211455", "more than 38 significant digits"),
            ("1.00000000000000000000000000000000000001", "more than 38 significant digits"),
            ("1e99999999999999999999", "not a finite decimal number"),
        ] {
            assert_eq!(refusal(refused), Some(reason), "{refused}");
        }
    }

    #[test]
    fn nested_numbers_are_found_and_named() {
        let inner = AttributeValue::M([("ratio".to_owned(), AttributeValue::N("NaN".into()))].into());
        let item: Item =
            [("stats".to_owned(), AttributeValue::L(vec![AttributeValue::N("1".into()), inner]))].into();
        let error = check_item(&item).unwrap_err();
        assert!(
            matches!(&error, Error::InvalidNumber { attribute, value, .. } if attribute == "stats[1].ratio" && value == "NaN"),
            "{error:?}"
        );
    }

    proptest! {
        #[test]
        fn every_finite_f64_in_dynamodb_range_is_accepted_as_rust_writes_it(value in any::<f64>()) {
            prop_assume!(value.is_finite());
            let magnitude = value.abs();
            let in_range = value == 0.0 || (1e-130..1e126).contains(&magnitude);
            for text in [value.to_string(), serde_json::to_string(&value).unwrap_or_default()] {
                prop_assert_eq!(refusal(&text).is_none(), in_range, "{}", text);
            }
        }
    }
}
