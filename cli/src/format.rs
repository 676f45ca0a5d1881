//! Number and key formatting shared by the reports.

/// Characters of a key a report shows; longer keys are cut (see [`key`]).
pub const KEY_CHARS: usize = 80;

/// `1234567` as `1,234,567`.
pub fn count(value: impl Into<u128>) -> String {
    let digits = value.into().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `261904.76` as `261,904.8`.
pub fn decimal(value: f64) -> String {
    fixed(value, 1)
}

/// `value` with `places` decimals (at most 9) and thousands separators: `fixed(206666.666, 2)`
/// is `206,666.67`.
pub fn fixed(value: f64, places: u32) -> String {
    let places = places.min(9);
    let scale = 10u128.pow(places);
    let scaled = (value * scale as f64).round();
    // Beyond 2^128 (and for NaN or negative values) the plain form is all there is to show.
    if !scaled.is_finite() || scaled < 0.0 || scaled >= u128::MAX as f64 {
        return format!("{value:.*}", places as usize);
    }
    let scaled = scaled as u128;
    let whole = count(scaled / scale);
    if places == 0 {
        return whole;
    }
    format!("{whole}.{:0width$}", scaled % scale, width = places as usize)
}

/// A string as a JSON string literal: quoted, with control characters escaped and everything
/// else as it is.
pub fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| format!("{text:?}"))
}

/// A key as reports show it: [`quoted`], and when it is longer than [`KEY_CHARS`] characters,
/// its first [`KEY_CHARS`] characters, an ellipsis and its length in bytes
/// (`"abc…"… (10,485,760 bytes)`).
pub fn key(text: &str) -> String {
    match text.char_indices().nth(KEY_CHARS) {
        None => quoted(text),
        Some((end, _)) => format!("{}… ({} bytes)", quoted(&text[..end]), count(text.len() as u64)),
    }
}

/// A ratio such as `1.0042x`.
pub fn ratio(value: f64) -> String {
    format!("{value:.4}x")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands() {
        assert_eq!(count(0u64), "0");
        assert_eq!(count(999u64), "999");
        assert_eq!(count(1_000u64), "1,000");
        assert_eq!(count(5_535_986u64), "5,535,986");
        assert_eq!(count(u128::MAX), "340,282,366,920,938,463,463,374,607,431,768,211,455");
        assert_eq!(ratio(1.0), "1.0000x");
        assert_eq!(decimal(261_904.76), "261,904.8");
        assert_eq!(decimal(2.0), "2.0");
        assert_eq!(decimal(1e20), "100,000,000,000,000,000,000.0");
        assert_eq!(decimal(1e300), format!("{:.1}", 1e300));
        assert_eq!(fixed(206_666.666_7, 2), "206,666.67");
        assert_eq!(fixed(0.05, 2), "0.05");
        assert_eq!(fixed(6.5, 0), "7");
        assert_eq!(quoted("über \"x\"\n"), "\"über \\\"x\\\"\\n\"");
    }

    #[test]
    fn long_keys_are_cut_on_a_character_boundary() {
        assert_eq!(key(&"a".repeat(80)), format!("\"{}\"", "a".repeat(80)));
        assert_eq!(key(&"a".repeat(81)), format!("\"{}\"… (81 bytes)", "a".repeat(80)));
        let accents = "é".repeat(100);
        assert_eq!(key(&accents), format!("\"{}\"… (200 bytes)", "é".repeat(80)));
        assert_eq!(key(&"\n".repeat(90)), format!("\"{}\"… (90 bytes)", "\\n".repeat(80)));
    }
}
