//! The policy every retry follows: a bounded number of attempts with exponential backoff and full
//! jitter.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How often and how patiently dynashard resends a request that failed with throttling or a
/// transient error, or (in a batch call: up to 25 writes or 100 keys) whose items came back
/// unprocessed.
///
/// Before retry `n` (0 for the first retry) the call sleeps a uniformly random time between zero
/// and `min(max_delay, base_delay * 2^n)` ("full jitter"), which spreads concurrent callers out
/// instead of letting them retry in lockstep. A request is sent at most `max_attempts` times;
/// in a batch call, a send that processed some of the request's items starts a new run of up
/// to `max_attempts` sends (itself the first), so a request keeps going while DynamoDB takes its
/// items, and stops when DynamoDB took nothing of it in the rest of a run. The call's other requests
/// still run to their own end; then the call fails with
/// [`Error::BatchIncomplete`](crate::Error::BatchIncomplete), which carries everything that was
/// not processed.
///
/// The default is 25 attempts, 25 ms base delay, 2 s maximum delay: it carries a batch import
/// through a third of its requests throttled, a third of them partly unprocessed and one in
/// twenty failing with a server error, with no SDK retries at all, and gives up after about
/// 20 s in which DynamoDB took nothing. Set it for one call with `.retry(policy)` or for every
/// call of a [`Db`](crate::Db) with [`Db::with_retry_policy`](crate::Db::with_retry_policy).
///
/// ```
/// use dynashard::RetryPolicy;
/// use std::time::Duration;
///
/// let patient = RetryPolicy { max_attempts: 40, ..RetryPolicy::default() };
/// let quick = RetryPolicy::new(3, Duration::from_millis(5), Duration::from_millis(50));
/// assert_eq!(patient.base_delay, Duration::from_millis(25));
/// assert_eq!(quick.backoff_ceiling(10), Duration::from_millis(50));
/// assert_eq!(RetryPolicy::no_retries().max_attempts, 1);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RetryPolicy {
    /// How many sends a request gets, the first included; in a batch call, how many in a run
    /// that starts with the first send or with one that processed items. `0` counts as `1`.
    pub max_attempts: u32,
    /// The backoff ceiling before the first retry; it doubles with every further retry.
    pub base_delay: Duration,
    /// The largest backoff ceiling.
    pub max_delay: Duration,
}

impl RetryPolicy {
    /// The default policy: 25 attempts, 25 ms base delay, 2 s maximum delay.
    pub const DEFAULT: RetryPolicy = RetryPolicy {
        max_attempts: 25,
        base_delay: Duration::from_millis(25),
        max_delay: Duration::from_secs(2),
    };

    /// A policy with the given bound and delays.
    ///
    /// ```
    /// # use std::time::Duration;
    /// let policy = dynashard::RetryPolicy::new(5, Duration::from_millis(10), Duration::from_secs(1));
    /// assert_eq!(policy.max_attempts, 5);
    /// ```
    pub const fn new(max_attempts: u32, base_delay: Duration, max_delay: Duration) -> Self {
        Self { max_attempts, base_delay, max_delay }
    }

    /// Sends every request once and never retries: anything unprocessed is returned at once in
    /// [`Error::BatchIncomplete`](crate::Error::BatchIncomplete).
    ///
    /// ```
    /// assert_eq!(dynashard::RetryPolicy::no_retries().max_attempts, 1);
    /// ```
    pub const fn no_retries() -> Self {
        Self { max_attempts: 1, base_delay: Duration::ZERO, max_delay: Duration::ZERO }
    }

    /// The upper bound of the random sleep before retry `retry` (0 for the first retry):
    /// `min(max_delay, base_delay * 2^retry)`.
    ///
    /// ```
    /// # use std::time::Duration;
    /// let policy = dynashard::RetryPolicy::default();
    /// assert_eq!(policy.backoff_ceiling(0), Duration::from_millis(25));
    /// assert_eq!(policy.backoff_ceiling(3), Duration::from_millis(200));
    /// assert_eq!(policy.backoff_ceiling(30), Duration::from_secs(2));
    /// ```
    pub fn backoff_ceiling(&self, retry: u32) -> Duration {
        let factor = 1u32.checked_shl(retry).unwrap_or(u32::MAX);
        self.base_delay.checked_mul(factor).unwrap_or(Duration::MAX).min(self.max_delay)
    }

    /// A random sleep before retry `retry`, uniform in `[0, backoff_ceiling(retry)]`.
    ///
    /// ```
    /// let policy = dynashard::RetryPolicy::default();
    /// assert!(policy.backoff(2) <= policy.backoff_ceiling(2));
    /// ```
    pub fn backoff(&self, retry: u32) -> Duration {
        let ceiling = self.backoff_ceiling(retry);
        Duration::try_from_secs_f64(ceiling.as_secs_f64() * random_fraction()).unwrap_or(ceiling)
    }

    /// The bound on sends of a run, never below one.
    pub(crate) fn attempts(&self) -> u32 {
        self.max_attempts.max(1)
    }
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// A uniformly distributed number in `[0, 1)`, from the standard library's randomly keyed
/// SipHash applied to a counter: unpredictable enough for jitter, and no extra dependency.
fn random_fraction() -> f64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    // The top 53 bits fill an f64 mantissa exactly.
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceilings_double_then_cap() {
        let policy = RetryPolicy::new(10, Duration::from_millis(25), Duration::from_secs(2));
        let ceilings: Vec<u128> = (0..9).map(|retry| policy.backoff_ceiling(retry).as_millis()).collect();
        assert_eq!(ceilings, [25, 50, 100, 200, 400, 800, 1600, 2000, 2000]);
        assert_eq!(policy.backoff_ceiling(u32::MAX), Duration::from_secs(2));
    }

    #[test]
    fn jitter_is_full_and_bounded() {
        let policy = RetryPolicy::new(10, Duration::from_millis(100), Duration::from_secs(1));
        let samples: Vec<Duration> = (0..2_000).map(|_| policy.backoff(0)).collect();
        assert!(samples.iter().all(|delay| *delay <= Duration::from_millis(100)));
        // Full jitter: spread over the whole range, not clustered near the ceiling.
        assert!(samples.iter().any(|delay| *delay < Duration::from_millis(10)));
        assert!(samples.iter().any(|delay| *delay > Duration::from_millis(90)));
        let mean = samples.iter().sum::<Duration>() / samples.len() as u32;
        assert!(mean > Duration::from_millis(40) && mean < Duration::from_millis(60), "{mean:?}");
    }

    #[test]
    fn zero_attempts_still_send_once() {
        assert_eq!(RetryPolicy { max_attempts: 0, ..RetryPolicy::default() }.attempts(), 1);
        assert_eq!(RetryPolicy::no_retries().backoff(5), Duration::ZERO);
        let unbounded = RetryPolicy::new(10, Duration::MAX, Duration::MAX);
        assert!(unbounded.backoff(40) <= Duration::MAX);
    }
}
