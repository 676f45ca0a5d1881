//! The plan printed step by step, and which sharding strategy suits which access pattern.

use super::capacity::{Load, Plan, PARTITION_RCU_PER_S, PARTITION_WCU_PER_S, RCU_BYTES, WCU_BYTES};
use super::pages::PageCosts;
use super::recommendation::Recommendation;
use super::warm::{Warm, NEW_TABLE_READS, NEW_TABLE_WRITES};
use crate::format::count;
use crate::limits::MAX_SHARDS;
use std::fmt::Write;

/// Bytes per second as `500.00 MB/s` (1 MB = 1,000,000 bytes).
fn megabytes(bytes: u128) -> String {
    format!("{:.2} MB/s", bytes as f64 / 1e6)
}

/// A load in partitions with two decimals (rounded half up), exact at any size: `216,666.67`.
fn hundredths(load: Load) -> String {
    let (whole, rest) = (load.numerator / load.denominator, load.numerator % load.denominator);
    // `rest` is below the denominator, a few million at most: no overflow.
    let cents = (rest * 100 + load.denominator / 2) / load.denominator;
    let (whole, cents) = if cents == 100 { (whole + 1, 0) } else { (whole, cents) };
    format!("{}.{cents:02}", count(whole))
}

/// `20.35 -> 21 partitions (21x one partition)`.
fn partitions(load: Load) -> String {
    let whole = load.partitions();
    format!(
        "{} -> {} partition{} ({}x one partition)",
        hundredths(load),
        count(whole),
        plural(whole),
        count(whole)
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
    out.push_str(&capacity_units(plan));
    let bound_by = if plan.peak == plan.reads_by_units { "reads" } else { "writes" };
    let _ = writeln!(out, "\nRecommendation");
    let _ = writeln!(
        out,
        "  peak load {} partitions ({bound_by}, by capacity units) + {}% headroom = {} shards",
        hundredths(plan.peak),
        count(work.headroom_percent),
        count(plan.recommended_shards)
    );
    out.push_str(&limit(plan));
    out.push_str(&warm(plan));
    out.push_str(&pages(plan));
    out.push_str(STRATEGIES);
    out
}

/// The partitions the workload needs counted in capacity units, as DynamoDB bills them.
fn capacity_units(plan: &Plan) -> String {
    let work = &plan.workload;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nCapacity units (each read request rounds up to whole 4 KB, each item written to whole 1 KB)"
    );
    let _ = writeln!(
        out,
        "  reads:  {} B per read = {} x 4 KB = {}.{} RCU x {}/s = {} RCU/s / {} = {}",
        count(plan.bytes_per_read),
        count(plan.read_blocks_per_read),
        count(plan.read_half_units_per_read / 2),
        if plan.read_half_units_per_read % 2 == 1 { 5 } else { 0 },
        count(work.reads_per_s),
        format_half_units(plan.read_half_units_per_s),
        count(PARTITION_RCU_PER_S),
        partitions(plan.reads_by_units)
    );
    let _ = writeln!(
        out,
        "  writes: {} B per item = {} WCU x {}/s = {} WCU/s / {} = {}",
        count(work.item_bytes),
        count(plan.write_units_per_item),
        count(work.writes_per_s),
        count(plan.write_units_per_s),
        count(PARTITION_WCU_PER_S),
        partitions(plan.writes_by_units)
    );
    out
}

/// The warm throughput to declare for the peak, if a new table would not serve it at once.
fn warm(plan: &Plan) -> String {
    let (reads, writes) = (count(NEW_TABLE_READS), count(NEW_TABLE_WRITES));
    match Warm::new(plan) {
        Warm::NotNeeded => format!(
            "\nWarm throughput\n  the peak fits what a new on-demand table serves at once ({reads} RCU/s, {writes} WCU/s): \
             none to declare\n"
        ),
        Warm::Declare { reads: warm_reads, writes: warm_writes } => format!(
            "\nWarm throughput\n  the peak + {}% headroom is more than a new on-demand table serves at once ({reads} RCU/s, \
             {writes} WCU/s):\n  declare #[table(..., warm_reads = {warm_reads}, warm_writes = {warm_writes})], and the same \
             on the sharded #[gsi(...)], so create_table prepares them\n",
            count(plan.workload.headroom_percent)
        ),
    }
}

/// What a page of the workload's reads costs through each kind of layout.
fn pages(plan: &Plan) -> String {
    let costs = PageCosts::new(plan);
    let work = &plan.workload;
    let mut out = String::new();
    let _ =
        writeln!(out, "\nA page of {} items over {} shards", count(work.items_per_read), count(costs.shards));
    let _ = writeln!(
        out,
        "  unsharded or range shards: 1 request (2 when the page crosses a shard), {} RCU",
        format_half_units(costs.single_half_units)
    );
    let _ = writeln!(
        out,
        "  hash, random or dynamic shards (merged): about {} requests of {} items, {} RCU each = {} RCU ({}x)",
        count(costs.shards),
        count(costs.share),
        format_half_units(costs.request_half_units),
        format_half_units(costs.merged_half_units),
        crate::format::fixed(costs.merged_ratio(), 2)
    );
    let _ = writeln!(
        out,
        "  the same in one round trip (RequestSizing::OneRoundTrip): {} requests of {} items, {} RCU each = {} RCU ({}x)",
        count(costs.shards),
        count(costs.one_round_share),
        format_half_units(costs.one_round_request_half_units),
        format_half_units(costs.one_round_half_units),
        crate::format::fixed(costs.one_round_ratio(), 2)
    );
    let load = format!(
        "  every shard serves every merged page: {} pages/s x {} RCU = {} RCU/s per shard",
        count(work.reads_per_s),
        format_half_units(costs.request_half_units),
        format_half_units(costs.shard_half_units_per_s)
    );
    if costs.merged_overloads_shards() {
        let _ = writeln!(
            out,
            "{load},\n  over the {} RCU/s of one partition whatever the shard count: list through range shards\n  \
             (a page reads one or two), or page a merged index less often",
            count(PARTITION_RCU_PER_S)
        );
    } else {
        let _ = writeln!(out, "{load}, within the {} RCU/s of one partition", count(PARTITION_RCU_PER_S));
    }
    out
}

/// What the most shards one index may have means for the recommendation: nothing, less
/// headroom, or a workload one sharded key cannot serve.
fn limit(plan: &Plan) -> String {
    let max = count(MAX_SHARDS);
    match Recommendation::new(plan) {
        Recommendation::Shards(_) => String::new(),
        Recommendation::Maximum { headroom_percent } => format!(
            "  that is more than the maximum of {max} shards per index: use the maximum of {max} shards, \
             which leaves {headroom_percent:.1}% headroom instead of {}%\n",
            plan.workload.headroom_percent
        ),
        Recommendation::Beyond { served_percent, shortfall, keys } => format!(
            "  that is more than the maximum of {max} shards per index: one sharded key cannot serve \
             this workload.\n  {max} shards serve {} of the peak load (shortfall: {} partitions); \
             spread the load\n  over at least {} partition key values of up to {max} shards each (for \
             example, add a field\n  to the partition key), or reduce it.\n",
            percent(served_percent),
            hundredths(shortfall),
            count(keys)
        ),
    }
}

/// `4.62%`, or `less than 0.01%`.
fn percent(value: f64) -> String {
    if value < 0.01 {
        "less than 0.01%".to_owned()
    } else {
        format!("{value:.2}%")
    }
}

fn format_half_units(half_units: u128) -> String {
    if half_units.is_multiple_of(2) {
        count(half_units / 2)
    } else {
        format!("{}.5", count(half_units / 2))
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
        })
        .expect("fits");
        let text = render(&plan);
        for expected in [
            "  reads 24.58 MB/s (eventually consistent) and writes 1.02 MB/s\n",
            "  reads:  500 B x 100 items x 10,000/s = 500.00 MB/s / 24.58 MB/s = 20.35 -> 21 partitions (21x one partition)\n",
            "  writes: 500 B x 10,000/s = 5.00 MB/s / 1.02 MB/s = 4.88 -> 5 partitions (5x one partition)\n",
            "  reads:  50,000 B per read = 13 x 4 KB = 6.5 RCU x 10,000/s = 65,000 RCU/s / 3,000 = 21.67 -> 22 partitions",
            "  writes: 500 B per item = 1 WCU x 10,000/s = 10,000 WCU/s / 1,000 = 10.00 -> 10 partitions",
            "  peak load 21.67 partitions (reads, by capacity units) + 20% headroom = 26 shards\n",
            "A page of 100 items over 26 shards\n",
            "  unsharded or range shards: 1 request (2 when the page crosses a shard), 6.5 RCU\n",
            "  hash, random or dynamic shards (merged): about 26 requests of 8 items, 0.5 RCU each = 13 RCU (2.00x)\n",
            "  the same in one round trip (RequestSizing::OneRoundTrip): 26 requests of 16 items, 1 RCU each = 26 RCU (4.00x)\n",
            "  every shard serves every merged page: 10,000 pages/s x 0.5 RCU = 5,000 RCU/s per shard,\n  over the 3,000 RCU/s",
            "  declare #[table(..., warm_reads = 78000, warm_writes = 12000)], and the same on the sharded #[gsi(...)], so create_table prepares them\n",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in\n{text}");
        }
    }

    #[test]
    fn loads_print_exactly() {
        let load = |numerator: u128, denominator: u128| hundredths(Load { numerator, denominator });
        assert_eq!(load(1_300_000_000, 6_000), "216,666.67");
        assert_eq!(load(9_995, 1_000), "10.00", "9.995 rounds half up");
        assert_eq!(load(0, 1_000), "0.00");
        assert_eq!(load(u128::MAX, 1), "340,282,366,920,938,463,463,374,607,431,768,211,455.00");
        assert_eq!(percent(0.004), "less than 0.01%");
        assert_eq!(percent(4.615), "4.62%");
    }

    #[test]
    fn half_units_print_exactly() {
        assert_eq!(format_half_units(130_001), "65,000.5");
        assert_eq!(format_half_units(4), "2");
    }
}
