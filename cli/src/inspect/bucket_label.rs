//! Recognising the time-bucket labels the library writes into partition keys: UTC `YYYY-MM-DD`
//! (day), `YYYY-MM-DDTHH` (hour) and `YYYY-MM-DDTHH:MM` (minute), as
//! `dynashard::shard::TimeBucket::label` formats them.

use dynashard::shard::TimeBucket;

/// A time bucket named by its label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BucketLabel {
    /// The bucket's width.
    pub width: TimeBucket,
    /// Its start, in unix seconds.
    pub start: i64,
}

/// The bucket `label` names, when it is exactly what the library writes for it: dates that do
/// not exist (`2023-02-30`), hours past 23 and other spellings are not labels.
pub fn parse_label(label: &str) -> Option<BucketLabel> {
    let (date, time) = match label.split_once('T') {
        Some((date, time)) => (date, Some(time)),
        None => (label, None),
    };
    let mut date_parts = date.splitn(3, '-');
    let (year, month, day) = (date_parts.next()?, date_parts.next()?, date_parts.next()?);
    let (hour, minute, width) = match time {
        None => ("00", "00", TimeBucket::Day),
        Some(time) => match time.split_once(':') {
            None => (time, "00", TimeBucket::Hour),
            Some((hour, minute)) => (hour, minute, TimeBucket::Minute),
        },
    };
    let year = number(year, 4..=6)?;
    let [month, day, hour, minute] = [month, day, hour, minute].map(|part| number(part, 2..=2));
    let days = days_from_civil(year, month?, day?);
    let start = days * 86_400 + hour? * 3_600 + minute? * 60;
    // The label of the bucket's own start is the label: anything out of range comes out
    // different.
    (width.label(start) == label).then_some(BucketLabel { width, start })
}

/// `text` as a number when it is `digits` ASCII digits long.
fn number(text: &str, digits: std::ops::RangeInclusive<usize>) -> Option<i64> {
    let canonical = digits.contains(&text.len()) && text.bytes().all(|byte| byte.is_ascii_digit());
    canonical.then(|| text.parse().ok()).flatten()
}

/// Days since 1970-01-01 of a date in the proleptic Gregorian calendar (H. Hinnant's
/// `days_from_civil`); any numbers give some day without overflow for the sizes parsed here.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year.rem_euclid(400);
    let month_index = if month > 2 { month - 3 } else { month + 9 };
    let day_of_year = (153 * month_index + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_the_library_writes() {
        let t = 1_698_419_045; // 2023-10-27T15:04:05Z
        for width in [TimeBucket::Day, TimeBucket::Hour, TimeBucket::Minute] {
            for seconds in [t, 0, 951_782_400, 1_704_067_199, 253_402_300_799] {
                let label = width.label(seconds);
                let parsed = parse_label(&label);
                assert_eq!(parsed, Some(BucketLabel { width, start: width.start(seconds) }), "{label}");
            }
        }
    }

    #[test]
    fn rejects_what_is_not_a_label() {
        for text in [
            "",
            "2023",
            "2023-10",
            "2023-02-30",
            "2023-13-01",
            "2023-1-01",
            "2023-10-27T24",
            "2023-10-27T15:60",
            "2023-10-27T15:04:05",
            "2023-10-27t15",
            "2023-10-27T",
            "2023-10-27T5",
            "+023-10-27",
            "album",
            "7",
        ] {
            assert_eq!(parse_label(text), None, "{text}");
        }
    }
}
