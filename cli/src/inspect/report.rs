//! The report of `dynashard inspect`.

use super::balance::Balance;
use super::histogram::histogram;
use crate::format::{count, decimal, quoted, ratio};
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
        let _ = writeln!(
            out,
            "\n{}: {} shards, {} items, mean {}, max {} in shard {fullest}, max/mean {}",
            quoted(&group.logical),
            group.shards.len(),
            count(group.total()),
            decimal(group.mean()),
            count(largest),
            ratio(group.max_over_mean())
        );
        out.push_str(&histogram(&group.shards, group.mean()));
        let hot: Vec<String> = group
            .hot_shards(top)
            .into_iter()
            .map(|(shard, items)| {
                format!("{shard} ({}, {} of mean)", count(items), ratio(items as f64 / group.mean()))
            })
            .collect();
        let hot = if hot.is_empty() { "none".to_owned() } else { hot.join(", ") };
        let _ = writeln!(out, "  hot shards: {hot}");
    }
    if balance.groups.len() > top {
        let _ = writeln!(out, "\n(and {} more sharded keys; --top shows more)", balance.groups.len() - top);
    }
    if balance.groups.is_empty() {
        let _ = writeln!(out, "\nno sharded partition keys (values ending in #<shard id>)");
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
            let _ = writeln!(out, "  {:>12}  {}", count(*items), quoted(value));
        }
    }
    out
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
        let text = render("Music (index GSI1)", "gsi1pk", &Balance::new(counts), 5);
        for expected in [
            "Music (index GSI1): 64 items in 4 partition key values (partition key \"gsi1pk\")\n",
            "\"album\": 3 shards, 60 items, mean 20.0, max 30 in shard 1, max/mean 1.5000x\n",
            "  hot shards: 1 (30, 1.5000x of mean)\n",
            "unsharded partition key values: 1 with 4 items; largest:\n",
            "             4  \"Solar Fields\"\n",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in\n{text}");
        }
    }
}
