//! The text `dynashard reshard` prints for one resharding: pure functions of its progress.

use crate::format::{count, decimal};
use dynashard::reshard::{Phase, ReshardProgress, ScanKind};
use std::time::Duration;

/// The report of one resharding, several lines, each ending in a newline.
pub fn render(progress: &ReshardProgress) -> String {
    let state = &progress.state;
    let mut out = format!(
        "{}/{} ({}) -> {}, {}\n",
        progress.table,
        state.source,
        progress.entity,
        state.target,
        state.layout.describe()
    );
    out.push_str(&format!("  phase     {}\n", phase(state.phase)));
    if let Some(plan) = state.scan {
        let kind = match plan.kind {
            ScanKind::Backfill => "backfill",
            ScanKind::Cleanup => "cleanup",
        };
        let (done, all) = progress.segments;
        let of = progress.estimated_items.map_or(String::new(), |items| format!(" of ~{}", count(items)));
        out.push_str(&format!(
            "  scan      {kind} #{}: {}/{} segments, {} items{of} read, {} written ({:.0}%)\n",
            plan.epoch,
            done,
            all,
            count(progress.scanned),
            count(progress.written),
            progress.fraction() * 100.0
        ));
        if let Some(rate) = progress.items_per_second {
            let left = progress
                .remaining
                .map_or("time left unknown".to_owned(), |left| format!("{} left", duration(left)));
            out.push_str(&format!("  rate      {} items/s, {left}\n", decimal(rate)));
        }
        let units = |units: Option<u32>, what: &str| {
            units.map_or(format!("no {what} limit"), |units| format!("{} {what} units/s", count(units)))
        };
        out.push_str(&format!(
            "  budget    {}, {}\n",
            units(plan.budget.write_units, "write"),
            units(plan.budget.read_units, "read")
        ));
        out.push_str(&format!(
            "  consumed  {} write units, {} read units\n",
            decimal(progress.consumed.write_units()),
            decimal(progress.consumed.read_units())
        ));
        let workers: Vec<&str> = progress.workers.iter().map(String::as_str).collect();
        let workers =
            if workers.is_empty() { "none holding a segment".to_owned() } else { workers.join(", ") };
        out.push_str(&format!("  workers   {workers}\n"));
    } else {
        out.push_str("  scan      not begun\n");
    }
    let caught_up = progress.caught_up_ago.map_or("never applied to its end".to_owned(), |ago| {
        format!("applied to its end {} ago", duration(ago))
    });
    out.push_str(&format!("  log       {caught_up}\n"));
    let verified = match state.verified {
        Some(verified) if verified.clean => "clean".to_owned(),
        Some(_) => "found faults it did not repair".to_owned(),
        None => "not since the backfill".to_owned(),
    };
    out.push_str(&format!("  verified  {verified}\n"));
    out
}

/// Whether nothing is left to do or watch: finished, its cleanup done.
pub fn finished(progress: &ReshardProgress) -> bool {
    let (done, all) = progress.segments;
    progress.state.phase == Phase::Done
        && progress.state.scan.is_some_and(|plan| plan.kind == ScanKind::Cleanup)
        && done == all
}

fn phase(phase: Phase) -> &'static str {
    match phase {
        Phase::DualWrites => "dual writes (reads use the source)",
        Phase::Backfilled => "backfilled (reads use the source)",
        Phase::CutOver => "cut over (reads use the target)",
        Phase::Done => "done (writes fill the target only)",
    }
}

/// `3725 s` as `1h 2m 5s`.
pub fn duration(duration: Duration) -> String {
    let seconds = duration.as_secs();
    match seconds {
        0..60 => format!("{seconds}s"),
        60..3_600 => format!("{}m {}s", seconds / 60, seconds % 60),
        _ => format!("{}h {}m {}s", seconds / 3_600, seconds % 3_600 / 60, seconds % 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_hours_minutes_and_seconds() {
        assert_eq!(duration(Duration::from_secs(0)), "0s");
        assert_eq!(duration(Duration::from_secs(59)), "59s");
        assert_eq!(duration(Duration::from_secs(61)), "1m 1s");
        assert_eq!(duration(Duration::from_secs(3_725)), "1h 2m 5s");
    }
}
