//! Same-run ratios between a candidate and a baseline, robust to a noisy shared machine.
//!
//! Both closures run in alternating rounds (so drift in machine load hits both alike); each
//! round times a batch of iterations; the report is the ratio of the per-iteration medians.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// The outcome of one comparison.
pub struct Ratio {
    pub candidate_median: Duration,
    pub baseline_median: Duration,
}

impl Ratio {
    /// Candidate time over baseline time.
    pub fn value(&self) -> f64 {
        self.candidate_median.as_secs_f64() / self.baseline_median.as_secs_f64()
    }
}

/// Times `candidate` against `baseline` in `rounds` alternating rounds of `batch` iterations.
pub fn compare<A, B, RA, RB>(rounds: usize, batch: usize, mut candidate: A, mut baseline: B) -> Ratio
where
    A: FnMut() -> RA,
    B: FnMut() -> RB,
{
    let mut candidate_times = Vec::with_capacity(rounds);
    let mut baseline_times = Vec::with_capacity(rounds);
    for round in 0..rounds {
        let time = |f: &mut dyn FnMut()| {
            let start = Instant::now();
            for _ in 0..batch {
                f();
            }
            start.elapsed() / batch as u32
        };
        // Alternate which side goes first, so neither always runs on a warm cache.
        if round % 2 == 0 {
            candidate_times.push(time(&mut || drop(black_box(candidate()))));
            baseline_times.push(time(&mut || drop(black_box(baseline()))));
        } else {
            baseline_times.push(time(&mut || drop(black_box(baseline()))));
            candidate_times.push(time(&mut || drop(black_box(candidate()))));
        }
    }
    Ratio { candidate_median: median(candidate_times), baseline_median: median(baseline_times) }
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Prints one comparison as a line of the benchmark report.
pub fn report(name: &str, ratio: &Ratio, bound: f64) {
    let verdict = if ratio.value() <= bound { "within" } else { "OVER" };
    println!(
        "{name}: candidate {:?}, baseline {:?}, ratio {:.3} ({verdict} the {bound}x bound)",
        ratio.candidate_median,
        ratio.baseline_median,
        ratio.value()
    );
}

/// Prints one comparison as throughput: each iteration processes `work` units (e.g. items), and
/// `min_rate_ratio` is the lowest acceptable candidate rate over baseline rate (0: none, only
/// reported).
#[allow(dead_code)] // not every benchmark reports rates
pub fn report_rate(name: &str, ratio: &Ratio, work: f64, unit: &str, min_rate_ratio: f64) {
    let rate = |time: Duration| work / time.as_secs_f64();
    let rate_ratio = 1.0 / ratio.value();
    let verdict = match min_rate_ratio {
        target if target <= 0.0 => "reported, no target".to_owned(),
        target if rate_ratio >= target => format!("meets the {target}x target"),
        target => format!("BELOW the {target}x target"),
    };
    println!(
        "{name}: candidate {:?} ({:.0} {unit}/s), baseline {:?} ({:.0} {unit}/s), rate ratio {rate_ratio:.3} \
         ({verdict})",
        ratio.candidate_median,
        rate(ratio.candidate_median),
        ratio.baseline_median,
        rate(ratio.baseline_median),
    );
}
