//! The plan printed step by step, and which sharding strategy suits which access pattern.

use super::capacity::{Load, Plan, PARTITION_RCU_PER_S, PARTITION_WCU_PER_S, RCU_BYTES, WCU_BYTES};
use crate::format::count;
use std::fmt::Write;

/// Bytes per second as `500.00 MB/s` (1 MB = 1,000,000 bytes).
fn megabytes(bytes: u128) -> String {
    format!("{:.2} MB/s", bytes as f64 / 1e6)
}

/// A large number with thousands separators.
fn big(value: u128) -> String {
    u64::try_from(value).map_or_else(|_| value.to_string(), count)
}

/// `20.35 -> 21 partitions (21x one partition)`.
fn partitions(load: Load) -> String {
    let whole = load.partitions();
    format!(
        "{:.2} -> {} partition{} ({}x one partition)",
        load.ratio(),
        big(whole),
        plural(whole),
        big(whole)
    )
}

fn plural(value: u128) -> &'static str {
    if value == 1 {
        ""
    } else {
        "s"
    }
}

/// The plan as text.
pub fn render(plan: &Plan) -> String {
    let work = &plan.workload;
    let consistency = if work.consistent_reads { "strongly consistent" } else { "eventually consistent" };
    let mut out = String::new();
    let _ = writeln!(out, "Workload");
    let _ = writeln!(
        out,
        "  {} B items; {} reads/s of {} items ({consistency}); {} writes/s",
        count(work.item_bytes),
        count(work.reads_per_s),
        count(work.items_per_read),
        count(work.writes_per_s)
    );
    let _ = writeln!(out, "\nOne partition");
    let _ = writeln!(
        out,
        "  serves {} RCU/s and {} WCU/s; 1 RCU reads {} B strongly or {} B eventually consistent; 1 WCU writes {} B",
        count(PARTITION_RCU_PER_S),
        count(PARTITION_WCU_PER_S),
        count(RCU_BYTES),
        count(2 * RCU_BYTES),
        count(WCU_BYTES)
    );
    let _ = writeln!(
        out,
        "  reads {} ({consistency}) and writes {}",
        megabytes(plan.partition_read_bytes_per_s),
        megabytes(plan.partition_write_bytes_per_s)
    );
    let _ = writeln!(out, "\nBandwidth");
    let _ = writeln!(
        out,
        "  reads:  {} B x {} items x {}/s = {} / {} = {}",
        count(work.item_bytes),
        count(work.items_per_read),
        count(work.reads_per_s),
        megabytes(plan.read_bytes_per_s),
        megabytes(plan.partition_read_bytes_per_s),
        partitions(plan.reads_by_bandwidth)
    );
    let _ = writeln!(
        out,
        "  writes: {} B x {}/s = {} / {} = {}",
        count(work.item_bytes),
        count(work.writes_per_s),
        megabytes(plan.write_bytes_per_s),
        megabytes(plan.partition_write_bytes_per_s),
        partitions(plan.writes_by_bandwidth)
    );
    let _ = writeln!(
        out,
        "\nCapacity units (each read request rounds up to whole 4 KB, each item written to whole 1 KB)"
    );
    let half = if work.consistent_reads { 2 } else { 1 };
    let _ = writeln!(
        out,
        "  reads:  {} B per read = {} x 4 KB = {:.1} RCU x {}/s = {} RCU/s / {} = {}",
        big(plan.bytes_per_read),
        big(plan.read_blocks_per_read),
        (plan.read_blocks_per_read * half) as f64 / 2.0,
        count(work.reads_per_s),
        format_half_units(plan.read_half_units_per_s),
        count(PARTITION_RCU_PER_S),
        partitions(plan.reads_by_units)
    );
    let _ = writeln!(
        out,
        "  writes: {} B per item = {} WCU x {}/s = {} WCU/s / {} = {}",
        count(work.item_bytes),
        big(plan.write_units_per_item),
        count(work.writes_per_s),
        big(plan.write_units_per_s),
        count(PARTITION_WCU_PER_S),
        partitions(plan.writes_by_units)
    );
    let bound_by = if plan.peak == plan.reads_by_units { "reads" } else { "writes" };
    let _ = writeln!(out, "\nRecommendation");
    let _ = writeln!(
        out,
        "  peak load {:.2} partitions ({bound_by}, by capacity units) + {}% headroom = {} shards",
        plan.peak.ratio(),
        work.headroom_percent,
        big(plan.recommended_shards)
    );
    out.push_str(STRATEGIES);
    out
}

fn format_half_units(half_units: u128) -> String {
    if half_units.is_multiple_of(2) {
        big(half_units / 2)
    } else {
        format!("{}.5", big(half_units / 2))
    }
}

/// Which strategy suits which access pattern.
const STRATEGIES: &str = "
Which sharding strategy suits which access pattern
  hash = N, by = field    look items up by the field; writes spread evenly when the field has many
                          values; an ordered listing merges all N shards
  range = \"file.json\"     list in order, page through or query prefixes and ranges of the field;
                          each listing reads the shards one after another (cut the file with
                          `dynashard boundaries`, check it with `dynashard route`)
  random = N              write-heavy data read only in bulk; every read visits all N shards
  time bucket + hash      time series per entity, read by time window: one partition per entity
                          and bucket (minute, hour or day), buckets walked in order
  dynamic                 unknown or shifting hot keys: keep a shard count per key in a metadata
                          table and raise it when that key throttles
";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::capacity::Workload;

    #[test]
    fn the_seed_plan_reads_step_by_step() {
        let plan = Plan::new(Workload {
            item_bytes: 500,
            reads_per_s: 10_000,
            items_per_read: 100,
            writes_per_s: 10_000,
            consistent_reads: false,
            headroom_percent: 20,
        });
        let text = render(&plan);
        for expected in [
            "  reads 24.58 MB/s (eventually consistent) and writes 1.02 MB/s\n",
            "  reads:  500 B x 100 items x 10,000/s = 500.00 MB/s / 24.58 MB/s = 20.35 -> 21 partitions (21x one partition)\n",
            "  writes: 500 B x 10,000/s = 5.00 MB/s / 1.02 MB/s = 4.88 -> 5 partitions (5x one partition)\n",
            "  reads:  50,000 B per read = 13 x 4 KB = 6.5 RCU x 10,000/s = 65,000 RCU/s / 3,000 = 21.67 -> 22 partitions",
            "  writes: 500 B per item = 1 WCU x 10,000/s = 10,000 WCU/s / 1,000 = 10.00 -> 10 partitions",
            "  peak load 21.67 partitions (reads, by capacity units) + 20% headroom = 26 shards\n",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in\n{text}");
        }
    }

    #[test]
    fn half_units_print_exactly() {
        assert_eq!(format_half_units(130_001), "65,000.5");
        assert_eq!(format_half_units(4), "2");
    }
}
