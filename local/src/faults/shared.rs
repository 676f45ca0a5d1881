//! What a fault injector and its interceptors share: the settings, the on/off switch, the
//! generator and the counters.

use super::plan::Rates;
use super::stats::FaultStats;
use dynashard::throttling::ThrottlingReason;
use rand::rngs::StdRng;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// What an injector injects; fixed when its interceptor is created.
#[derive(Debug, Clone, Default)]
pub(crate) struct Settings {
    pub rates: Rates,
    /// Operation names faults are restricted to; `None` for all operations.
    pub only: Option<Vec<String>>,
    pub sdk_retries: bool,
    /// The reasons throttled attempts give.
    pub reasons: Vec<ThrottlingReason>,
}

impl Settings {
    pub(crate) fn applies_to(&self, operation: &str) -> bool {
        self.only.as_ref().is_none_or(|only| only.iter().any(|name| name == operation))
    }
}

/// The generator and counters, shared by every clone of an injector and its interceptors.
#[derive(Debug)]
pub(crate) struct State {
    pub rng: StdRng,
    pub stats: FaultStats,
}

/// Everything an interceptor needs.
#[derive(Debug)]
pub(crate) struct Shared {
    pub settings: Settings,
    pub enabled: Arc<AtomicBool>,
    pub state: Arc<Mutex<State>>,
}

impl Shared {
    pub(crate) fn is_enabled(&self) -> bool {
        self.enabled.load(Ordering::SeqCst)
    }

    /// Locks the state; a panic elsewhere while it was held leaves counters that are still usable.
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
