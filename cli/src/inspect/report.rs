//! The report of `dynashard inspect`. Partition key values are shown cut to
//! [`crate::format::KEY_CHARS`] characters.

use super::balance::{Balance, Counted};
use super::buckets::Buckets;
use super::histogram::histogram;
use crate::format::{count, decimal, key, quoted, ratio};
use std::fmt::Write;

/// The report on `balance` of `what` (the table or index), showing `top` groups, hot shards and
/// plain partitions.
pub fn render(what: &str, partition_key: &str, balance: &Balance, top: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{what}: {} items in {} partition key values (partition key {})",
        count(balance.items),
        count(balance.partitions as u64),
        quoted(partition_key)
    );
    if balance.items == 0 {
        return out;
    }
    for group in balance.groups.iter().take(top) {
        let (fullest, largest) = group.max();
        let width =
            group.buckets.as_ref().map_or(String::new(), |b| format!(" ({} buckets)", b.width_name()));
        let shards = group.shards.len();
        let counted = match group.counted {
            Counted::Declared => format!("{shards} shard{} (declared)", plural(shards)),
            Counted::Recorded => format!("{shards} shard{} (recorded)", plural(shards)),
            Counted::Seen => format!(
                "{shards} shard{} seen (ids 0 to {}; --shards gives the declared count)",
                plural(shards),
                shards - 1
            ),
        };
        let _ = writeln!(
            out,
            "\n{}{width}: {counted}, {} items, mean {}, max {} in shard {fullest}, max/mean {}",
            key(&group.logical),
            count(group.total()),
            decimal(group.mean()),
            count(largest),
            ratio(group.max_over_mean())
        );
        if group.outside > 0 {
            let _ = writeln!(out, "  {} items under shard ids past the declared count", count(group.outside));
        }
        out.push_str(&histogram(&group.shards, group.hot_threshold()));
        let hot: Vec<String> = group
            .hot_shards(top)
            .into_iter()
            .map(|(shard, items)| {
                format!("{shard} ({}, {} of mean)", count(items), ratio(items as f64 / group.mean()))
            })
            .collect();
        let hot = if hot.is_empty() { "none".to_owned() } else { hot.join(", ") };
        let _ = writeln!(
            out,
            "  hot shards (over {}: more than an even spread puts in one by chance, mean + {} standard deviations): {hot}",
            decimal(group.hot_threshold()),
            super::balance::HOT_DEVIATIONS
        );
        if let Some(buckets) = &group.buckets {
            out.push_str(&render_buckets(buckets, top));
        }
    }
    if balance.groups.len() > top {
        let _ = writeln!(out, "\n(and {} more sharded keys; --top shows more)", balance.groups.len() - top);
    }
    if balance.groups.is_empty() {
        let _ = writeln!(
            out,
            "\nno sharded partition keys (values ending in #<shard id>, or #<shard id>#<time bucket>)"
        );
    }
    if !balance.unsharded.is_empty() {
        let items: u64 = balance.unsharded.iter().map(|(_, items)| items).sum();
        let _ = writeln!(
            out,
            "\nunsharded partition key values: {} with {} items; largest:",
            count(balance.unsharded.len() as u64),
            count(items)
        );
        for (value, items) in balance.unsharded.iter().take(top) {
            let _ = writeln!(out, "  {:>12}  {}", count(*items), key(value));
        }
    }
    out
}

/// The lines on the time buckets of one key: their span and evenness, the hot buckets and the
/// fullest partition.
fn render_buckets(buckets: &Buckets, top: usize) -> String {
    let mut out = String::new();
    let (first, last) = buckets.span();
    let buckets_seen = buckets.items.len();
    let span = if buckets_seen == 1 { format!(", {first}") } else { format!(" from {first} to {last}") };
    let (fullest, largest) = buckets.max();
    let _ = writeln!(
        out,
        "  time buckets: {} {} bucket{}{span}, mean {}, max {} in {fullest}, max/mean {}",
        count(buckets_seen as u64),
        buckets.width_name(),
        plural(buckets_seen),
        decimal(buckets.mean()),
        count(largest),
        ratio(buckets.max_over_mean())
    );
    let hot: Vec<String> = buckets
        .hot_buckets(top)
        .into_iter()
        .map(|(label, items)| {
            format!("{label} ({}, {} of mean)", count(items), ratio(items as f64 / buckets.mean()))
        })
        .collect();
    let hot = if hot.is_empty() { "none".to_owned() } else { hot.join(", ") };
    let _ = writeln!(out, "  hot buckets: {hot}");
    let (partition, items) = &buckets.fullest;
    let _ = writeln!(
        out,
        "  fullest partition: {} with {} items ({} partition{}, mean {})",
        key(partition),
        count(*items),
        count(buckets.partitions as u64),
        plural(buckets.partitions),
        decimal(buckets.partition_mean())
    );
    out
}

fn plural(value: usize) -> &'static str {
    if value == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn reports_groups_hot_shards_and_plain_partitions() {
        let counts: HashMap<String, u64> =
            [("album#0", 10), ("album#1", 30), ("album#2", 20), ("Solar Fields", 4)]
                .into_iter()
                .map(|(value, items)| (value.to_owned(), items))
                .collect();
        let text = render("Music (index GSI1)", "gsi1pk", &Balance::new(counts, &|_| None), 5);
        for expected in [
            "Music (index GSI1): 64 items in 4 partition key values (partition key \"gsi1pk\")\n",
            "\"album\": 3 shards seen (ids 0 to 2; --shards gives the declared count), 60 items, mean 20.0, max 30 in shard 1, max/mean 1.5000x\n",
            "  hot shards (over 34.6: more than an even spread puts in one by chance, mean + 4 standard deviations): none\n",
            "unsharded partition key values: 1 with 4 items; largest:\n",
            "             4  \"Solar Fields\"\n",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in\n{text}");
        }
    }

    #[test]
    fn reports_time_buckets_and_cuts_long_values() {
        let long = format!("{}#7", "k".repeat(2_000));
        let counts: HashMap<String, u64> = [
            ("reading#0#2023-10-27T15", 5),
            ("reading#1#2023-10-27T15", 30),
            ("reading#0#2023-10-27T16", 5),
            ("reading#1#2023-10-27T16", 5),
            ("daily#0#2023-10-27", 4),
            (long.as_str(), 3),
        ]
        .into_iter()
        .map(|(value, items)| (value.to_owned(), items))
        .collect();
        let text = render("Sensors (index GSI1)", "gsi1pk", &Balance::new(counts, &|_| None), 5);
        for expected in [
            "\"reading\" (hour buckets): 2 shards seen (ids 0 to 1; --shards gives the declared count), 45 items, mean 22.5, max 35 in shard 1, max/mean 1.5556x\n",
            "  time buckets: 2 hour buckets from 2023-10-27T15 to 2023-10-27T16, mean 22.5, max 35 in \
             2023-10-27T15, max/mean 1.5556x\n",
            "  hot buckets: 2023-10-27T15 (35, 1.5556x of mean)\n",
            "  fullest partition: \"reading#1#2023-10-27T15\" with 30 items (4 partitions, mean 11.3)\n",
            "\"daily\" (day buckets): 1 shard seen (ids 0 to 0; --shards gives the declared count), 4 items",
            "  time buckets: 1 day bucket, 2023-10-27, mean 4.0, max 4 in 2023-10-27, max/mean 1.0000x\n",
            "  hot buckets: none\n  fullest partition: \"daily#0#2023-10-27\" with 4 items (1 partition, mean 4.0)\n",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in\n{text}");
        }
        let cut = format!("             3  \"{}\"… (2,002 bytes)\n", "k".repeat(80));
        assert!(text.contains(&cut), "{text}");
    }
}
