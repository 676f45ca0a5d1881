//! Time-to-live values: DynamoDB deletes an item some time after the epoch second its TTL
//! attribute holds, and ignores a value that is not a number. A value in milliseconds (about
//! 1,764,000,000,000 today) lies some 55,000 years ahead, so the item never expires; a negative
//! one, or `i64::MIN`, means nothing. Such values are refused before anything is sent.

use crate::error::{Error, Result};
use aws_sdk_dynamodb::types::AttributeValue;

/// The latest TTL accepted: 9999-12-31T23:59:59Z, in epoch seconds. A millisecond time of any
/// year after 1978 is beyond it.
pub(crate) const LATEST: i64 = 253_402_300_799;

/// Why `value` cannot be the epoch second an item expires at; `None` when it can.
fn refusal(value: &AttributeValue) -> Option<&'static str> {
    let AttributeValue::N(number) = value else {
        return Some("DynamoDB reads only a number of epoch seconds; store a time with #[serde(with = \"time::serde::timestamp\")]");
    };
    let Ok(seconds) = number.parse::<i64>() else {
        return Some("not a whole number of epoch seconds in range");
    };
    match seconds {
        seconds if seconds < 0 => Some("before 1970: a time to live is epoch seconds, never negative"),
        seconds if seconds > LATEST => {
            Some("after the year 9999: epoch milliseconds? a time to live is epoch seconds")
        }
        _ => None,
    }
}

/// Fails when `value`, written to the time-to-live attribute `attribute`, is not epoch seconds
/// from 1970 to the year 9999.
pub(crate) fn check(attribute: &str, value: &AttributeValue) -> Result<()> {
    match refusal(value) {
        None => Ok(()),
        Some(reason) => Err(Error::InvalidTtl {
            attribute: attribute.to_owned(),
            value: match value {
                AttributeValue::N(number) => number.chars().take(64).collect(),
                _ => "a value that is not a number".to_owned(),
            },
            reason,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn number(text: &str) -> AttributeValue {
        AttributeValue::N(text.to_owned())
    }

    #[test]
    fn epoch_seconds_pass_and_milliseconds_negatives_and_extremes_do_not() {
        for fine in ["0", "1764000000", "253402300799"] {
            assert!(check("expires_at", &number(fine)).is_ok(), "{fine}");
        }
        for (refused, reason) in [
            ("1764000000000", "after the year 9999"),
            ("-1", "before 1970"),
            (&i64::MIN.to_string()[..], "before 1970"),
            (&i64::MAX.to_string()[..], "after the year 9999"),
            ("1.5", "not a whole number"),
            ("1e30", "not a whole number"),
        ] {
            let error = check("expires_at", &number(refused)).unwrap_err();
            assert!(error.to_string().contains(reason), "{refused}: {error}");
            assert!(error.is_invalid_input());
        }
        assert!(check("expires_at", &AttributeValue::S("2026".into())).is_err());
    }
}
