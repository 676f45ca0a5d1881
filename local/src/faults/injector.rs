//! [`FaultInjector`]: the rates, the seeded generator, the counters, and building clients.

use super::interceptor::FaultInterceptor;
use super::plan::clamp_rate;
use super::shared::{Settings, Shared, State};
use super::stats::FaultStats;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::config::Builder;
use aws_sdk_dynamodb::Client;
use dynashard::throttling::ThrottlingReason;
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// Injects DynamoDB faults into the requests of the clients it is attached to: throttling
/// (`ProvisionedThroughputExceededException`), server errors (HTTP 500 `InternalServerError`) and
/// unprocessed entries of `BatchWriteItem` and `BatchGetItem`, each at its own rate per attempt.
///
/// A faulted request does not take effect: a throttled or failed request is sent as a harmless
/// `ListTables` call, and unprocessed write requests or keys are taken out of the batch before it
/// is sent, then returned in `UnprocessedItems` / `UnprocessedKeys`.
///
/// Clones share the generator, the counters and the on/off switch, so a test can keep one clone
/// while clients use others. With one seed and requests issued one after another, the same
/// requests get the same faults. Rates and restrictions are read when a client is built
/// ([`FaultInjector::attach`], [`FaultInjector::client_for_endpoint`]); change them before that.
///
/// ```no_run
/// # async fn example(endpoint: &str) {
/// use dynashard_local::faults::FaultInjector;
/// let faults = FaultInjector::new(42).throttling(0.3).unprocessed(0.3).only(&["BatchWriteItem"]);
/// let client = faults.client_for_endpoint(endpoint);
/// // ... run the code under test with `client` ...
/// println!("{:?}", faults.stats().operation("BatchWriteItem"));
/// faults.set_enabled(false); // from here on, requests pass untouched
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct FaultInjector {
    settings: Settings,
    enabled: Arc<AtomicBool>,
    state: Arc<Mutex<State>>,
}

impl FaultInjector {
    /// An enabled injector with all rates at 0, whose random choices follow from `seed`.
    /// The SDK's own retries stay as configured (see [`FaultInjector::without_sdk_retries`]).
    pub fn new(seed: u64) -> Self {
        Self {
            settings: Settings { sdk_retries: true, ..Settings::default() },
            enabled: Arc::new(AtomicBool::new(true)),
            state: Arc::new(Mutex::new(State {
                rng: StdRng::seed_from_u64(seed),
                stats: FaultStats::default(),
            })),
        }
    }

    /// The probability (clamped to `0.0..=1.0`) that an attempt is throttled.
    pub fn throttling(mut self, rate: f64) -> Self {
        self.settings.rates.throttling = clamp_rate(rate);
        self
    }

    /// The reasons throttled attempts give, as DynamoDB gives them (see [`dynashard::throttling`]);
    /// none by default, as from an endpoint that gives none. The exception follows the first
    /// reason's limit: `ThrottlingException` for an on-demand maximum, `RequestLimitExceeded` for
    /// the account quota, `ProvisionedThroughputExceededException` otherwise.
    ///
    /// ```no_run
    /// use dynashard_local::faults::FaultInjector;
    /// use dynashard::throttling::{ThrottleKind, ThrottlingReason};
    ///
    /// let hot_index = ThrottleKind::parse("IndexWriteKeyRangeThroughputExceeded").expect("a reason");
    /// let arn = "arn:aws:dynamodb:ddblocal:000000000000:table/AuditLog/index/ByFile";
    /// let faults = FaultInjector::new(1).throttling(0.3).throttling_reasons([ThrottlingReason::new(hot_index, arn)]);
    /// ```
    pub fn throttling_reasons(mut self, reasons: impl IntoIterator<Item = ThrottlingReason>) -> Self {
        self.settings.reasons = reasons.into_iter().collect();
        self
    }

    /// The probability (clamped to `0.0..=1.0`) that an attempt fails with HTTP 500.
    pub fn server_errors(mut self, rate: f64) -> Self {
        self.settings.rates.server_errors = clamp_rate(rate);
        self
    }

    /// The probability (clamped to `0.0..=1.0`) that a `BatchWriteItem` or `BatchGetItem`
    /// attempt gets part of its entries back as unprocessed: each entry with probability 1/2, at
    /// least one, and never all of several. A batch of one entry is returned whole, unprocessed.
    ///
    /// The faults exclude each other: one number is drawn per attempt and compared with the
    /// throttling rate, then the server-error rate, then this one, so each happens at its rate
    /// while the three add up to at most 1.
    pub fn unprocessed(mut self, rate: f64) -> Self {
        self.settings.rates.unprocessed = clamp_rate(rate);
        self
    }

    /// Restricts faults to these operations (e.g. `"BatchWriteItem"`, `"PutItem"`); others pass
    /// untouched and draw nothing from the generator. Replaces an earlier restriction.
    pub fn only(mut self, operations: &[&str]) -> Self {
        self.settings.only = Some(operations.iter().map(|name| (*name).to_owned()).collect());
        self
    }

    /// Turns the SDK's own retries off ([`RetryConfig::disabled`]) in the clients this injector
    /// builds or attaches to, so that every fault reaches the caller.
    pub fn without_sdk_retries(mut self) -> Self {
        self.settings.sdk_retries = false;
        self
    }

    /// Switches injection on or off for every clone and every client built from it.
    pub fn set_enabled(&self, enabled: bool) {
        self.enabled.store(enabled, Ordering::SeqCst);
    }

    /// Whether faults are being injected.
    pub fn is_enabled(&self) -> bool {
        self.enabled.load(Ordering::SeqCst)
    }

    /// A snapshot of the counters: attempts seen and faults injected, per operation.
    pub fn stats(&self) -> FaultStats {
        self.lock().stats.clone()
    }

    /// Sets every counter back to zero.
    pub fn reset_stats(&self) {
        self.lock().stats = FaultStats::default();
    }

    /// The interceptor, for adding to a configuration or a single call by hand.
    pub fn interceptor(&self) -> FaultInterceptor {
        FaultInterceptor::new(Arc::new(Shared {
            settings: self.settings.clone(),
            enabled: Arc::clone(&self.enabled),
            state: Arc::clone(&self.state),
        }))
    }

    /// Adds the interceptor to a client configuration (and, after
    /// [`FaultInjector::without_sdk_retries`], disables the SDK's retries in it).
    pub fn attach(&self, builder: Builder) -> Builder {
        let builder = builder.interceptor(self.interceptor());
        match self.settings.sdk_retries {
            true => builder,
            false => builder.retry_config(RetryConfig::disabled()),
        }
    }

    /// A client configured like [`dynashard::client_for_endpoint`], with faults injected.
    pub fn client_for_endpoint(&self, endpoint: &str) -> Client {
        Client::from_conf(
            self.attach(dynashard::client::config_for_endpoint(
                endpoint,
                dynashard::client::Timeouts::default(),
            ))
            .build(),
        )
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
