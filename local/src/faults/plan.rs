//! Deciding, with a seeded generator, which fault an attempt gets.

use rand::rngs::StdRng;
use rand::RngExt;

/// The probability of each fault per attempt, each in `0.0..=1.0`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Rates {
    pub throttling: f64,
    pub server_errors: f64,
    pub unprocessed: f64,
}

/// Clamps a user-given rate into `0.0..=1.0`; NaN counts as 0.
pub(crate) fn clamp_rate(rate: f64) -> f64 {
    if rate.is_nan() {
        0.0
    } else {
        rate.clamp(0.0, 1.0)
    }
}

/// The fault chosen for one attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Let the attempt through untouched.
    Pass,
    /// Answer with `ProvisionedThroughputExceededException`.
    Throttle,
    /// Answer with HTTP 500 `InternalServerError`.
    ServerError,
    /// Withhold part of a batch and return it as unprocessed.
    Unprocessed,
}

/// Draws one number and maps it onto the faults, which are mutually exclusive and taken in the
/// order throttling, server errors, unprocessed (only for batch operations). Each fault thus
/// happens at its own rate as long as the rates add up to at most 1.
pub(crate) fn decide(rates: &Rates, rng: &mut StdRng, batch: bool) -> Decision {
    let draw: f64 = rng.random();
    let mut bound = rates.throttling;
    if draw < bound {
        return Decision::Throttle;
    }
    bound += rates.server_errors;
    if draw < bound {
        return Decision::ServerError;
    }
    bound += rates.unprocessed;
    if batch && draw < bound {
        return Decision::Unprocessed;
    }
    Decision::Pass
}

/// Which of `count` batch entries to withhold: each with probability 1/2, at least one, and, when
/// there are several, never all of them. A single entry is always withheld.
pub(crate) fn choose_withheld(rng: &mut StdRng, count: usize) -> Vec<bool> {
    let mut withheld: Vec<bool> = (0..count).map(|_| rng.random_bool(0.5)).collect();
    if count == 0 {
        return withheld;
    }
    if withheld.iter().all(|w| !w) {
        let index = rng.random_range(0..count);
        withheld[index] = true;
    } else if count > 1 && withheld.iter().all(|w| *w) {
        let index = rng.random_range(0..count);
        withheld[index] = false;
    }
    withheld
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn rates_are_clamped() {
        assert_eq!(clamp_rate(f64::NAN), 0.0);
        assert_eq!(clamp_rate(-1.0), 0.0);
        assert_eq!(clamp_rate(2.0), 1.0);
        assert_eq!(clamp_rate(0.25), 0.25);
    }

    #[test]
    fn decisions_follow_the_rates() {
        let rates = Rates { throttling: 0.2, server_errors: 0.1, unprocessed: 0.3 };
        let mut rng = StdRng::seed_from_u64(7);
        let mut counts = [0usize; 4];
        for _ in 0..10_000 {
            counts[decide(&rates, &mut rng, true) as usize] += 1;
        }
        let [pass, throttle, server, unprocessed] = counts;
        assert!((1800..2200).contains(&throttle), "{counts:?}");
        assert!((850..1150).contains(&server), "{counts:?}");
        assert!((2800..3200).contains(&unprocessed), "{counts:?}");
        assert!((3800..4200).contains(&pass), "{counts:?}");
    }

    #[test]
    fn single_operations_never_get_unprocessed() {
        let rates = Rates { throttling: 0.0, server_errors: 0.0, unprocessed: 1.0 };
        let mut rng = StdRng::seed_from_u64(1);
        assert!((0..100).all(|_| decide(&rates, &mut rng, false) == Decision::Pass));
    }

    #[test]
    fn withheld_subsets_are_proper_and_never_empty() {
        let mut rng = StdRng::seed_from_u64(3);
        assert_eq!(choose_withheld(&mut rng, 1), [true]);
        assert!(choose_withheld(&mut rng, 0).is_empty());
        for count in 2..30 {
            for _ in 0..50 {
                let withheld = choose_withheld(&mut rng, count);
                let taken = withheld.iter().filter(|w| **w).count();
                assert!(taken >= 1 && taken < count, "{withheld:?}");
            }
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_choices() {
        let draw = |seed| {
            let mut rng = StdRng::seed_from_u64(seed);
            (0..20).map(|n| choose_withheld(&mut rng, n)).collect::<Vec<_>>()
        };
        assert_eq!(draw(11), draw(11));
        assert_ne!(draw(11), draw(12));
    }
}
