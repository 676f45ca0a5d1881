//! UTC time buckets (seed pattern: a time bucket plus a hash of the entity in the partition key).

/// The width of a time bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeBucket {
    /// `2023-10-27T15:04`
    Minute,
    /// `2023-10-27T15` (Python: `time.strftime('%Y-%m-%dT%H', time.gmtime(t))`)
    Hour,
    /// `2023-10-27`
    Day,
}

impl TimeBucket {
    /// The bucket's width in seconds.
    pub const fn seconds(self) -> i64 {
        match self {
            TimeBucket::Minute => 60,
            TimeBucket::Hour => 3_600,
            TimeBucket::Day => 86_400,
        }
    }

    /// The start (unix seconds) of the bucket holding `unix_seconds`; `i64::MIN` for the first
    /// bucket, which starts before it.
    ///
    /// ```
    /// use dynashard::shard::TimeBucket;
    /// assert_eq!(TimeBucket::Hour.start(7_199), 3_600);
    /// assert_eq!(TimeBucket::Minute.start(i64::MIN), i64::MIN);
    /// ```
    pub const fn start(self, unix_seconds: i64) -> i64 {
        unix_seconds.saturating_sub(unix_seconds.rem_euclid(self.seconds()))
    }

    /// How many buckets overlap `from..=to` (unix seconds); 0 when `from > to`. Exact over the
    /// whole range of `i64`.
    ///
    /// ```
    /// use dynashard::shard::TimeBucket;
    /// assert_eq!(TimeBucket::Hour.count_between(0, 3_600), 2);
    /// assert_eq!(TimeBucket::Day.count_between(5, 4), 0);
    /// assert_eq!(TimeBucket::Minute.count_between(i64::MIN, i64::MAX), 307_445_734_561_825_862);
    /// ```
    pub const fn count_between(self, from: i64, to: i64) -> u64 {
        if from > to {
            return 0;
        }
        let step = self.seconds() as i128;
        let first = from as i128 - (from as i128).rem_euclid(step);
        let last = to as i128 - (to as i128).rem_euclid(step);
        ((last - first) / step + 1) as u64
    }

    /// The label of the bucket holding `unix_seconds`, in UTC.
    ///
    /// ```
    /// use dynashard::shard::TimeBucket;
    /// let t = 1_698_419_045; // 2023-10-27T15:04:05Z
    /// assert_eq!(TimeBucket::Hour.label(t), "2023-10-27T15");
    /// assert_eq!(TimeBucket::Minute.label(t), "2023-10-27T15:04");
    /// assert_eq!(TimeBucket::Day.label(t), "2023-10-27");
    /// ```
    pub fn label(self, unix_seconds: i64) -> String {
        let days = unix_seconds.div_euclid(86_400);
        let seconds_of_day = unix_seconds.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        let (hour, minute) = (seconds_of_day / 3_600, seconds_of_day % 3_600 / 60);
        match self {
            TimeBucket::Day => format!("{year:04}-{month:02}-{day:02}"),
            TimeBucket::Hour => format!("{year:04}-{month:02}-{day:02}T{hour:02}"),
            TimeBucket::Minute => format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}"),
        }
    }

    /// The start (unix seconds) of the bucket labelled `label`, the inverse of
    /// [`label`](Self::label); `None` for text that is not such a label. The first bucket of
    /// time, which starts before `i64::MIN`, gives `i64::MIN`.
    ///
    /// ```
    /// use dynashard::shard::TimeBucket;
    /// assert_eq!(TimeBucket::Hour.start_of("2023-10-27T15"), Some(1_698_418_800));
    /// assert_eq!(TimeBucket::Day.start_of("2023-10-27T15"), None);
    /// ```
    pub fn start_of(self, label: &str) -> Option<i64> {
        let (date, time) = match self {
            TimeBucket::Day => (label, None),
            TimeBucket::Hour | TimeBucket::Minute => {
                let (date, time) = label.rsplit_once('T')?;
                (date, Some(time))
            }
        };
        let (rest, day) = date.rsplit_once('-')?;
        let (year, month) = rest.rsplit_once('-')?;
        let number = |text: &str| text.parse::<i128>().ok();
        let (year, month, day) = (number(year)?, number(month)?, number(day)?);
        let (hour, minute) = match (self, time) {
            (TimeBucket::Hour, Some(hour)) => (number(hour)?, 0),
            (TimeBucket::Minute, Some(time)) => {
                let (hour, minute) = time.split_once(':')?;
                (number(hour)?, number(minute)?)
            }
            _ => (0, 0),
        };
        if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
            return None;
        }
        let seconds = days_from_civil(year, month, day) * 86_400 + hour * 3_600 + minute * 60;
        let start = i64::try_from(seconds).ok().or_else(|| (seconds < 0).then_some(i64::MIN))?;
        // Only text the label of its own start is a label: no other spelling of a time.
        (self.label(start) == label).then_some(start)
    }

    /// The starts of every bucket that overlaps `from..=to` (unix seconds), oldest first;
    /// none when `from > to`. Lazy: the window may span the whole range of `i64`.
    pub fn starts_between(self, from: i64, to: i64) -> impl Iterator<Item = i64> {
        let step = i128::from(self.seconds());
        let first = i128::from(from) - i128::from(from).rem_euclid(step);
        (0..self.count_between(from, to)).map(move |n| {
            // Only the first bucket can start before `i64::MIN`; every later one starts within
            // the window.
            i64::try_from(first + i128::from(n) * step).unwrap_or(i64::MIN)
        })
    }
}

/// The (year, month, day) of a count of days since 1970-01-01, in the proleptic Gregorian
/// calendar (H. Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 { month_index + 3 } else { month_index - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The count of days since 1970-01-01 of a (year, month, day) of the proleptic Gregorian
/// calendar (H. Hinnant's `days_from_civil`), the inverse of [`civil_from_days`].
fn days_from_civil(year: i128, month: i128, day: i128) -> i128 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// A field type that places an item in a time bucket: its time as unix seconds.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot place an item in a time bucket",
    label = "the `at` field of a time-bucket shard",
    note = "use unix seconds (`i64`, `u64`) or `std::time::SystemTime`, or implement `dynashard::shard::BucketTime`"
)]
pub trait BucketTime {
    /// Seconds since 1970-01-01T00:00:00Z.
    fn unix_seconds(&self) -> i64;
}

impl BucketTime for i64 {
    fn unix_seconds(&self) -> i64 {
        *self
    }
}

impl BucketTime for u64 {
    fn unix_seconds(&self) -> i64 {
        i64::try_from(*self).unwrap_or(i64::MAX)
    }
}

impl BucketTime for std::time::SystemTime {
    fn unix_seconds(&self) -> i64 {
        match self.duration_since(std::time::UNIX_EPOCH) {
            Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
            Err(before) => -i64::try_from(before.duration().as_secs()).unwrap_or(i64::MAX),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_across_boundaries() {
        assert_eq!(TimeBucket::Hour.label(0), "1970-01-01T00");
        assert_eq!(TimeBucket::Day.label(-1), "1969-12-31");
        assert_eq!(TimeBucket::Day.label(951_782_400), "2000-02-29");
        assert_eq!(TimeBucket::Hour.label(1_704_067_199), "2023-12-31T23");
        assert_eq!(TimeBucket::Hour.label(1_704_067_200), "2024-01-01T00");
    }

    #[test]
    fn labels_read_back_to_their_bucket_starts() {
        let mut times = vec![i64::MIN, i64::MIN + 1, i64::MAX, i64::MAX - 59, -1, 0, 1, 951_782_400];
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            times.push(state as i64);
            times.push((state % 20_000_000_000) as i64 - 10_000_000_000);
        }
        for bucket in [TimeBucket::Minute, TimeBucket::Hour, TimeBucket::Day] {
            for &time in &times {
                let label = bucket.label(time);
                assert_eq!(bucket.start_of(&label), Some(bucket.start(time)), "{bucket:?} {time} {label}");
            }
        }
        for text in ["", "2023-10-27T15", "2023-13-01", "2023-10-27T15:04:05", "x-10-27", "2023-1-27"] {
            assert_eq!(TimeBucket::Day.start_of(text), None, "{text}");
        }
        assert_eq!(TimeBucket::Minute.start_of("2023-10-27T15"), None);
    }

    #[test]
    fn walking_buckets_crosses_days() {
        let from = 1_698_447_000; // 2023-10-27T22:50
        let to = from + 3 * 3_600;
        let labels: Vec<String> =
            TimeBucket::Hour.starts_between(from, to).map(|s| TimeBucket::Hour.label(s)).collect();
        assert_eq!(labels, ["2023-10-27T22", "2023-10-27T23", "2023-10-28T00", "2023-10-28T01"]);
    }
}
