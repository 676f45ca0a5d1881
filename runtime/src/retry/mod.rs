//! The one retry loop of dynashard: every request DynamoDB may refuse for a while (throttling,
//! a 5xx, a broken connection) is sent again under the `Db`'s [`RetryPolicy`], and how many
//! times, and how long to wait between sends, is decided here.
//!
//! [`Retry`] is the decision, sans I/O; [`retrying`] runs an attempt under it.

mod policy;

pub use policy::RetryPolicy;

use crate::error::{Error, Result};
use std::future::Future;
use std::time::Duration;

/// The sends of one request, counted against a [`RetryPolicy`]: it gives up after a run of
/// `max_attempts` failed sends in which nothing was done. A send that did some of the work (a
/// batch that processed items) starts a new run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Retry {
    policy: RetryPolicy,
    /// Failed sends so far.
    failed: u32,
    /// Failed sends in the current run.
    stalled: u32,
}

impl Retry {
    /// No send made yet.
    pub(crate) fn new(policy: RetryPolicy) -> Self {
        Retry { policy, failed: 0, stalled: 0 }
    }

    /// After a send that failed (`progressed`: it still did some of the work): how long to wait
    /// before the next one, or `None` when the policy gives up. A retry counts in the scope of
    /// the work it is part of ([`Measured::retries`](crate::consumption::Measured::retries), a
    /// span's `dynashard.retries`).
    pub(crate) fn after_failure(&mut self, progressed: bool) -> Option<Duration> {
        self.failed = self.failed.saturating_add(1);
        if progressed {
            self.stalled = 0;
        }
        self.stalled += 1;
        let delay = (self.stalled < self.policy.attempts()).then(|| self.policy.backoff(self.failed - 1));
        if delay.is_some() {
            crate::consumption::retried();
        }
        delay
    }

    /// Sends made so far that failed.
    pub(crate) fn failures(&self) -> u32 {
        self.failed
    }
}

/// What one attempt of [`retrying`] came to.
pub(crate) enum Attempt<T> {
    /// Its result, final.
    Done(Result<T>),
    /// A failure that sending again may fix.
    Again(Error),
}

/// Runs `attempt` until it is done, or until `policy` gives up on it (then its last error).
/// `attempt` is given the number of failed attempts before it.
pub(crate) async fn retrying<T, F, Fut>(policy: RetryPolicy, mut attempt: F) -> Result<T>
where
    F: FnMut(u32) -> Fut,
    Fut: Future<Output = Attempt<T>>,
{
    let mut retry = Retry::new(policy);
    loop {
        match attempt(retry.failures()).await {
            Attempt::Done(result) => return result,
            Attempt::Again(error) => match retry.after_failure(false) {
                Some(delay) => tokio::time::sleep(delay).await,
                None => return Err(error),
            },
        }
    }
}

/// [`retrying`] for an attempt whose throttling is worth waiting out, and nothing else.
pub(crate) async fn retrying_throttled<T, F, Fut>(policy: RetryPolicy, mut attempt: F) -> Result<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T>>,
{
    retrying(policy, |_| {
        let sent = attempt();
        async move {
            match sent.await {
                Err(error) if error.is_throttled() => Attempt::Again(error),
                result => Attempt::Done(result),
            }
        }
    })
    .await
}

/// The waits of a loop that runs for as long as it is let (a change feed's [`run`], a
/// resharding's catch-up): a failure that sending again may fix ([`Error::is_transient`]) is
/// waited out under the policy's growing delays and never ends the loop; any other ends it; a
/// success starts the delays over.
///
/// [`run`]: crate::changes::ChangeFeed::run
#[derive(Debug, Clone, Copy)]
pub(crate) struct Outlast {
    policy: RetryPolicy,
    /// Transient failures since the last success.
    failed: u32,
}

impl Outlast {
    /// No failure yet.
    pub(crate) fn new(policy: RetryPolicy) -> Self {
        Outlast { policy, failed: 0 }
    }

    /// After a step: `Ok` to go on (after waiting out a transient failure), the error when it
    /// cannot succeed by trying again.
    pub(crate) async fn after<T>(&mut self, step: Result<T>, what: &'static str) -> Result<()> {
        match step {
            Ok(_) => {
                self.failed = 0;
                Ok(())
            }
            Err(error) if error.is_transient() => {
                let delay = self.policy.backoff(self.failed);
                self.failed = self.failed.saturating_add(1);
                crate::consumption::retried();
                tracing::warn!(target: "dynashard::retry", %error, failures = self.failed, ?delay, "{what} failed for a while; trying again");
                tokio::time::sleep(delay).await;
                Ok(())
            }
            Err(error) => Err(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_loop_outlasts_transient_failures_and_ends_at_the_others() {
        let mut outlast = Outlast::new(RetryPolicy::new(3, Duration::ZERO, Duration::ZERO));
        let timeout = || {
            Err::<(), _>(Error::Timeout {
                operation: "GetRecords",
                message: "attempt".into(),
                source: "attempt".into(),
            })
        };
        for _ in 0..100 {
            assert!(outlast.after(timeout(), "a step").await.is_ok(), "a timeout never ends the loop");
        }
        assert_eq!(outlast.failed, 100);
        assert!(outlast.after(Ok(()), "a step").await.is_ok());
        assert_eq!(outlast.failed, 0, "a success starts over");
        let ended = outlast.after(Err::<(), _>(Error::NotFound), "a step").await;
        assert!(matches!(ended, Err(Error::NotFound)));
    }

    fn policy(attempts: u32) -> RetryPolicy {
        RetryPolicy::new(attempts, Duration::from_millis(8), Duration::from_millis(20))
    }

    #[test]
    fn a_request_gets_its_attempts_and_backs_off_more_each_time() {
        let mut retry = Retry::new(policy(4));
        let delays: Vec<Option<Duration>> = (0..4).map(|_| retry.after_failure(false)).collect();
        assert!(delays[..3].iter().all(Option::is_some), "{delays:?}");
        assert_eq!(delays[3], None, "four sends in all");
        assert!(delays[0].is_some_and(|delay| delay <= Duration::from_millis(8)));
        assert!(delays[2].is_some_and(|delay| delay <= Duration::from_millis(20)));
        assert_eq!(Retry::new(policy(0)).after_failure(false), None, "0 attempts counts as 1");
    }

    #[test]
    fn progress_starts_a_new_run() {
        let mut retry = Retry::new(policy(2));
        assert!(retry.after_failure(false).is_some());
        assert!(retry.after_failure(true).is_some(), "progress: a new run");
        assert!(retry.after_failure(true).is_some());
        assert_eq!(retry.after_failure(false), None);
        assert_eq!(retry.failures(), 4);
    }

    #[tokio::test]
    async fn retrying_stops_at_a_final_result_or_the_last_attempt() {
        let fast = RetryPolicy::new(3, Duration::ZERO, Duration::ZERO);
        let mut sent = 0;
        let gave_up: Result<()> = retrying(fast, |_| {
            sent += 1;
            async { Attempt::Again(Error::NotFound) }
        })
        .await;
        assert!(matches!(gave_up, Err(Error::NotFound)));
        assert_eq!(sent, 3);
        let done = retrying(fast, |failed| async move {
            if failed < 1 {
                Attempt::Again(Error::NotFound)
            } else {
                Attempt::Done(Ok(failed))
            }
        })
        .await;
        assert_eq!(done.ok(), Some(1));
    }
}
