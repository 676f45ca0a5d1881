//! DynamoDB Streams answers `DescribeStream` at most ten times a second; past that it refuses the
//! call with `LimitExceededException` (which the SDKs retry with back-off). The emulator holds
//! every stream's `DescribeStream` calls to that rate, as a token bucket a stream holding a
//! second of them, so that readers that list a stream too often are slowed as they would be.

use crate::emulator::bucket::TokenBucket;
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// `DescribeStream` calls DynamoDB Streams answers a second.
pub(crate) const DESCRIBES_A_SECOND: f64 = 10.0;

/// The `DescribeStream` calls left to each stream, by ARN.
#[derive(Debug, Default)]
pub(crate) struct DescribeLimits(Mutex<HashMap<String, TokenBucket>>);

impl DescribeLimits {
    /// Whether a `DescribeStream` call of stream `arn` at `now` (seconds) is answered; takes it.
    pub fn admits(&self, arn: &str, now: f64) -> bool {
        let mut streams = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let bucket =
            streams.entry(arn.to_owned()).or_insert_with(|| TokenBucket::new(DESCRIBES_A_SECOND, 1.0, now));
        let admitted = bucket.admits(now);
        if admitted {
            bucket.take(1.0, now);
        }
        admitted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_is_described_ten_times_a_second_and_each_stream_on_its_own() {
        let limits = DescribeLimits::default();
        let admitted = |arn: &str, from: u32, to: u32| {
            (from..to).filter(|tick| limits.admits(arn, f64::from(*tick) / 1_000.0)).count()
        };
        // 100 calls a second for ten seconds: a second's worth at once, then ten a second.
        let first = admitted("a", 0, 10_000);
        assert!((100..=112).contains(&first), "{first} of 10,000 in 10 s");
        assert_eq!(admitted("b", 0, 1), 1, "another stream has its own");
        assert!(limits.admits("a", 12.0), "a second later, one more");
    }
}
