//! Number formatting shared by the reports.

/// `1234567` as `1,234,567`.
pub fn count(value: u64) -> String {
    let digits = value.to_string();
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
    let tenths = (value * 10.0).round();
    if !tenths.is_finite() || tenths < 0.0 {
        return format!("{value:.1}");
    }
    let tenths = tenths as u64;
    format!("{}.{}", count(tenths / 10), tenths % 10)
}

/// A string as a JSON string literal: quoted, with control characters escaped and everything
/// else as it is.
pub fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| format!("{text:?}"))
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
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1_000), "1,000");
        assert_eq!(count(5_535_986), "5,535,986");
        assert_eq!(ratio(1.0), "1.0000x");
        assert_eq!(decimal(261_904.76), "261,904.8");
        assert_eq!(decimal(2.0), "2.0");
        assert_eq!(quoted("über \"x\"\n"), "\"über \\\"x\\\"\\n\"");
    }
}
