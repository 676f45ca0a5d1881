//! Which dynamic shard counts a throttled write raises: only those more shards can relieve.
//!
//! More shards spread one logical key over more partitions, so they help only when a partition
//! of the index they shard was over its limit: `IndexWriteKeyRangeThroughputExceeded` for that
//! index. A table's or index's provisioned capacity, the account's quota and an on-demand maximum
//! limit the whole table or index however many shards there are: those get back-off and a
//! warning, also when a partition was over its limit too (the write would be refused however
//! many shards there were). An error without reasons (an endpoint that gives none) raises every
//! count the write touched, as nothing tells the causes apart.

use super::chooser::DynamicTarget;
use crate::throttling::{ThrottleLimit, ThrottledOperation, ThrottledResource, ThrottlingReason};

/// The targets of a write throttled for `reasons` (to `table`, by its real name) whose counts to
/// raise.
pub(crate) fn targets_to_grow<'t>(
    reasons: &[ThrottlingReason],
    table: &str,
    targets: &'t [DynamicTarget],
) -> Vec<&'t DynamicTarget> {
    if reasons.is_empty() {
        return targets.iter().collect();
    }
    // A write also over a limit of a whole table, index or account would be refused however
    // many shards there were: that limit, not the partition, is what caps the writes.
    let capped =
        reasons.iter().any(|reason| reason.kind().is_some_and(|kind| kind.limit != ThrottleLimit::KeyRange));
    if capped {
        return Vec::new();
    }
    targets.iter().filter(|target| reasons.iter().any(|reason| relieves(reason, table, target))).collect()
}

/// Whether more shards of `target` relieve `reason`.
fn relieves(reason: &ThrottlingReason, table: &str, target: &DynamicTarget) -> bool {
    let Some(kind) = reason.kind() else { return false };
    if kind.limit != ThrottleLimit::KeyRange || kind.operation != ThrottledOperation::Write {
        return false;
    }
    if reason.arn().is_none() {
        return kind.resource == ThrottledResource::Index; // an index key range, index unnamed
    }
    kind.resource == ThrottledResource::Index
        && reason.index() == Some(target.index)
        && reason.table().is_none_or(|name| name == table)
}

/// Logs the reasons that more shards cannot relieve, naming each limit.
pub(crate) fn warn_unrelieved(reasons: &[ThrottlingReason], table: &str) {
    for reason in reasons {
        let key_range = reason.kind().is_some_and(|kind| kind.limit == ThrottleLimit::KeyRange);
        if !key_range {
            tracing::warn!(
                target: "dynashard::shards",
                table,
                reason = reason.reason(),
                resource = reason.arn().unwrap_or("unknown"),
                "throttled by a limit of the whole table, index or account: backing off, shard counts unchanged"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::throttling::ThrottleKind;

    const TABLE_ARN: &str = "arn:aws:dynamodb:ddblocal:000000000000:table/Audit";

    fn throttled(reasons: Vec<ThrottlingReason>) -> Error {
        Error::Throttled {
            operation: "PutItem",
            code: "ProvisionedThroughputExceededException".into(),
            message: String::new(),
            reasons,
            source: "throttled".into(),
        }
    }

    fn reason(name: &str, arn: &str) -> ThrottlingReason {
        let kind = ThrottleKind::parse(name).expect("a known reason");
        ThrottlingReason::new(kind, arn)
    }

    fn targets() -> Vec<DynamicTarget> {
        ["ByFile", "ByUser"]
            .into_iter()
            .map(|index| DynamicTarget {
                index,
                partition: "x".to_owned(),
                key: format!("Audit/{index}/x"),
                max: 8,
            })
            .collect()
    }

    fn grown(error: &Error) -> Vec<&'static str> {
        targets_to_grow(error.throttling_reasons(), "Audit", &targets())
            .iter()
            .map(|target| target.index)
            .collect()
    }

    #[test]
    fn key_range_throttling_of_an_index_grows_that_index_only() {
        let by_user = reason("IndexWriteKeyRangeThroughputExceeded", &format!("{TABLE_ARN}/index/ByUser"));
        assert_eq!(grown(&throttled(vec![by_user.clone()])), ["ByUser"]);
        let by_file = reason("IndexWriteKeyRangeThroughputExceeded", &format!("{TABLE_ARN}/index/ByFile"));
        assert_eq!(grown(&throttled(vec![by_file, by_user])), ["ByFile", "ByUser"]);
    }

    #[test]
    fn table_wide_limits_never_grow() {
        for name in [
            "TableWriteProvisionedThroughputExceeded",
            "TableWriteMaxOnDemandThroughputExceeded",
            "TableWriteAccountLimitExceeded",
            "TableWriteKeyRangeThroughputExceeded", // the base table's key: index shards do not help
        ] {
            assert!(grown(&throttled(vec![reason(name, TABLE_ARN)])).is_empty(), "{name}");
        }
        let index = format!("{TABLE_ARN}/index/ByFile");
        for name in ["IndexWriteProvisionedThroughputExceeded", "IndexWriteMaxOnDemandThroughputExceeded"] {
            assert!(grown(&throttled(vec![reason(name, &index)])).is_empty(), "{name}");
        }
        let read = reason("IndexReadKeyRangeThroughputExceeded", &index);
        assert!(grown(&throttled(vec![read])).is_empty(), "reads are not what the write's shards carry");
    }

    #[test]
    fn a_partition_over_its_limit_under_a_capped_table_does_not_grow() {
        let hot = reason("IndexWriteKeyRangeThroughputExceeded", &format!("{TABLE_ARN}/index/ByFile"));
        let capped = reason("TableWriteProvisionedThroughputExceeded", TABLE_ARN);
        assert!(grown(&throttled(vec![hot.clone(), capped])).is_empty());
        assert_eq!(grown(&throttled(vec![hot])), ["ByFile"]);
    }

    #[test]
    fn another_tables_index_of_the_same_name_does_not_count() {
        let other = reason(
            "IndexWriteKeyRangeThroughputExceeded",
            "arn:aws:dynamodb:ddblocal:000000000000:table/Other/index/ByFile",
        );
        assert!(grown(&throttled(vec![other])).is_empty());
    }

    #[test]
    fn without_reasons_every_target_grows() {
        assert_eq!(grown(&throttled(Vec::new())), ["ByFile", "ByUser"]);
    }
}
