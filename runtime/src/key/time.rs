//! `time::OffsetDateTime` in keys: UTC, fixed width, in time order.

use super::part::{DecodeKeyPart, KeyPart, KeyPartDecodeError};
use std::fmt::Write;
use time::{Date, Month, OffsetDateTime, PrimitiveDateTime, Time, UtcOffset};

/// Width of the time of day after the year: `-MM-DDTHH:MM:SS.nnnnnnnnnZ`.
const AFTER_YEAR: usize = 26;
/// Width of the year's digits when it falls outside `0..=9999` (a `time` built with
/// `large-dates`), after its marker.
const WIDE_YEAR: usize = 6;
/// Added to a negative year, which is then written after `-` as a distance that grows with it.
const NEGATIVE_YEAR_BASE: i32 = 999_999;

impl KeyPart for OffsetDateTime {
    type Arg<'a> = OffsetDateTime;

    fn as_arg(&self) -> OffsetDateTime {
        *self
    }

    /// The instant in UTC as `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`, nanoseconds always written, so
    /// byte order is time order. Years before 0 are `-` and six digits counting up from the
    /// earliest year (`-` sorts before every digit); years after 9999 are `~` and six digits
    /// (`~` sorts after every digit). Two values of the same instant at different offsets are
    /// one key.
    fn encode(arg: OffsetDateTime, out: &mut String) {
        let utc = arg.to_offset(UtcOffset::UTC);
        let year = utc.year();
        let _ = match year {
            0..=9999 => write!(out, "{year:04}"),
            ..0 => write!(out, "-{:06}", year + NEGATIVE_YEAR_BASE),
            _ => write!(out, "~{year:06}"),
        };
        let _ = write!(
            out,
            "-{:02}-{:02}T{:02}:{:02}:{:02}.{:09}Z",
            u8::from(utc.month()),
            utc.day(),
            utc.hour(),
            utc.minute(),
            utc.second(),
            utc.nanosecond()
        );
    }

    fn is_empty(_: OffsetDateTime) -> bool {
        false
    }
}

impl DecodeKeyPart for OffsetDateTime {
    fn decode_prefix(encoded: &str) -> Result<(Self, &str), KeyPartDecodeError> {
        let invalid = |reason: &'static str| KeyPartDecodeError::new(encoded, reason);
        let (year, rest) = match encoded.as_bytes().first() {
            Some(b'-') => {
                let (digits, rest) =
                    split(&encoded[1..], WIDE_YEAR).ok_or(invalid("too short for a time"))?;
                (number(digits).ok_or(invalid("expected digits"))? - NEGATIVE_YEAR_BASE, rest)
            }
            Some(b'~') => {
                let (digits, rest) =
                    split(&encoded[1..], WIDE_YEAR).ok_or(invalid("too short for a time"))?;
                (number(digits).ok_or(invalid("expected digits"))?, rest)
            }
            _ => {
                let (digits, rest) = split(encoded, 4).ok_or(invalid("too short for a time"))?;
                (number(digits).ok_or(invalid("expected digits"))?, rest)
            }
        };
        let (tail, rest) = split(rest, AFTER_YEAR).ok_or(invalid("too short for a time"))?;
        let bytes = tail.as_bytes();
        let separators = [(0, b'-'), (3, b'-'), (6, b'T'), (9, b':'), (12, b':'), (15, b'.'), (25, b'Z')];
        if separators.iter().any(|&(at, byte)| bytes[at] != byte) {
            return Err(invalid("expected YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ"));
        }
        let field = |from: usize, to: usize| number(&tail[from..to]).ok_or(invalid("expected digits"));
        let month = u8::try_from(field(1, 3)?).ok().and_then(|month| Month::try_from(month).ok());
        let month = month.ok_or(invalid("month out of range"))?;
        let day = u8::try_from(field(4, 6)?).map_err(|_| invalid("day out of range"))?;
        let date = Date::from_calendar_date(year, month, day).map_err(|_| invalid("date out of range"))?;
        let [hour, minute, second] =
            [field(7, 9)?, field(10, 12)?, field(13, 15)?].map(|part| u8::try_from(part).unwrap_or(u8::MAX));
        let nanosecond = u32::try_from(field(16, 25)?).map_err(|_| invalid("time out of range"))?;
        let time = Time::from_hms_nano(hour, minute, second, nanosecond)
            .map_err(|_| invalid("time out of range"))?;
        Ok((PrimitiveDateTime::new(date, time).assume_utc(), rest))
    }
}

/// `text` split after `width` bytes, if it is that long.
fn split(text: &str, width: usize) -> Option<(&str, &str)> {
    (text.len() >= width && text.is_char_boundary(width)).then(|| text.split_at(width))
}

/// `digits` as a number, if they are all ASCII digits.
fn number(digits: &str) -> Option<i32> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use time::Duration;

    fn encoded(value: OffsetDateTime) -> String {
        let mut out = String::new();
        OffsetDateTime::encode(value, &mut out);
        out
    }

    #[test]
    fn times_are_utc_fixed_width_with_nanoseconds() {
        let time = OffsetDateTime::from_unix_timestamp(1_764_044_000).unwrap();
        assert_eq!(encoded(time), "2025-11-25T04:13:20.000000000Z");
        let east = time.to_offset(UtcOffset::from_hms(5, 30, 0).unwrap());
        assert_eq!(encoded(east), encoded(time));
        assert_eq!(
            encoded(OffsetDateTime::UNIX_EPOCH + Duration::nanoseconds(1)),
            "1970-01-01T00:00:00.000000001Z"
        );
    }

    #[test]
    fn the_extremes_round_trip_in_order() {
        let min = PrimitiveDateTime::MIN.assume_utc();
        let max = PrimitiveDateTime::MAX.assume_utc();
        let year_zero = Date::from_calendar_date(0, Month::January, 1).unwrap().midnight().assume_utc();
        let values = [min, year_zero - Duration::nanoseconds(1), year_zero, OffsetDateTime::UNIX_EPOCH, max];
        let keys: Vec<String> = values.iter().map(|value| encoded(*value)).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
        for (value, key) in values.iter().zip(&keys) {
            assert_eq!(OffsetDateTime::decode_prefix(&format!("{key}#rest")), Ok((*value, "#rest")));
        }
    }

    #[test]
    fn malformed_times_are_refused() {
        for bad in [
            "2025-11-25T04:13:20.00000000Z",
            "2025-13-25T04:13:20.000000000Z",
            "2025-02-30T04:13:20.000000000Z",
            "2025-11-25T24:13:20.000000000Z",
            "2025-11-25 04:13:20.000000000Z",
            "20x5-11-25T04:13:20.000000000Z",
            "-",
            "",
        ] {
            assert!(OffsetDateTime::decode_prefix(bad).is_err(), "{bad}");
        }
    }

    proptest! {
        #[test]
        fn key_order_is_time_order(a in any::<i64>(), b in any::<i64>()) {
            let span = (PrimitiveDateTime::MAX.assume_utc() - PrimitiveDateTime::MIN.assume_utc()).whole_seconds();
            let at = |n: i64| PrimitiveDateTime::MIN.assume_utc() + Duration::seconds(n.rem_euclid(span - 1)) + Duration::nanoseconds(n.rem_euclid(1_000_000_000));
            let (a, b) = (at(a), at(b));
            prop_assert_eq!(a.cmp(&b), encoded(a).cmp(&encoded(b)));
            let key = encoded(a);
            prop_assert_eq!(OffsetDateTime::decode_prefix(&key), Ok((a, "")));
        }
    }
}
