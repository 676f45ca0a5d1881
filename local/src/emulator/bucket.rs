//! A token bucket in capacity units, with time passed in (sans-IO).

/// Units refilled at `rate` per second, up to `capacity`. The balance may go below zero: a
/// request is admitted while it is positive and pays what it consumed afterwards, as DynamoDB
/// charges a request that was admitted however large it turned out.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TokenBucket {
    rate: f64,
    capacity: f64,
    balance: f64,
    /// Seconds since the meter started, when `balance` was last brought up to date.
    updated: f64,
}

impl TokenBucket {
    /// A full bucket.
    pub(crate) fn new(rate: f64, burst_seconds: f64, now: f64) -> Self {
        let capacity = (rate * burst_seconds).max(rate.min(1.0));
        Self { rate, capacity, balance: capacity, updated: now }
    }

    fn refill(&mut self, now: f64) {
        if now > self.updated {
            self.balance = (self.balance + (now - self.updated) * self.rate).min(self.capacity);
            self.updated = now;
        }
    }

    /// Whether a request may start at `now`: the balance is positive.
    pub(crate) fn admits(&mut self, now: f64) -> bool {
        self.refill(now);
        self.balance > 0.0
    }

    /// Whether the bucket holds its whole capacity at `now` (as a new one does).
    pub(crate) fn is_full(&mut self, now: f64) -> bool {
        self.refill(now);
        self.balance >= self.capacity
    }

    /// Takes `units` (negative to give them back), at `now`.
    pub(crate) fn take(&mut self, units: f64, now: f64) {
        self.refill(now);
        self.balance = (self.balance - units).min(self.capacity);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sustains_its_rate_after_a_burst() {
        let mut bucket = TokenBucket::new(100.0, 1.0, 0.0);
        let mut admitted = 0;
        // 1,000 one-unit requests a second, for ten seconds.
        for tick in 0..10_000 {
            let now = f64::from(tick) / 1_000.0;
            if bucket.admits(now) {
                bucket.take(1.0, now);
                admitted += 1;
            }
        }
        // The burst (100) plus the rate (100/s) over 10 s.
        assert!((1_095..=1_105).contains(&admitted), "{admitted}");
    }

    #[test]
    fn debt_is_paid_before_the_next_request() {
        let mut bucket = TokenBucket::new(10.0, 1.0, 0.0);
        assert!(bucket.admits(0.0));
        bucket.take(30.0, 0.0); // a large item: 20 units of debt
        assert!(!bucket.admits(1.9));
        assert!(bucket.admits(2.01));
        bucket.take(-25.0, 2.01); // refunds never raise the balance over the capacity
        bucket.take(10.0, 2.01);
        assert!(!bucket.admits(2.01));
    }
}
