//! The meter: token buckets per partition and per limited table or index, and the counters
//! (sans-IO: time is passed in, in seconds).

use super::bucket::TokenBucket;
use super::charge::{Charge, Target};
use super::limits::PartitionLimits;
use super::usage::{Consumption, PartitionId, Usage};
use crate::throttling::{
    ThrottleKind, ThrottleLimit, ThrottledOperation, ThrottledResource, ThrottlingReason,
};
use std::collections::HashMap;

#[derive(Debug)]
struct Slot {
    read: TokenBucket,
    write: TokenBucket,
}

impl Slot {
    fn bucket(&mut self, operation: ThrottledOperation) -> &mut TokenBucket {
        match operation {
            ThrottledOperation::Read => &mut self.read,
            ThrottledOperation::Write => &mut self.write,
        }
    }
}

/// A limited table or index: its buckets (one per limited operation) and the limit's kind.
#[derive(Debug)]
struct Limited {
    read: Option<TokenBucket>,
    write: Option<TokenBucket>,
    kind: ThrottleLimit,
}

/// Admission and accounting of capacity.
#[derive(Debug)]
pub(crate) struct Meter {
    limits: PartitionLimits,
    slots: HashMap<(String, Option<String>, String), Slot>,
    limited: HashMap<(String, Option<String>), Option<Limited>>,
    usage: Usage,
}

impl Meter {
    pub(crate) fn new(limits: PartitionLimits) -> Self {
        Self::with_usage(limits, Usage::default())
    }

    /// A meter with full buckets that goes on counting from `usage`.
    pub(crate) fn with_usage(limits: PartitionLimits, usage: Usage) -> Self {
        Self { limits, slots: HashMap::new(), limited: HashMap::new(), usage }
    }

    /// Admits a request consuming `charges` (as far as known before it runs) at `now`, taking
    /// them; or refuses it with the reasons, counting it as throttled.
    pub(crate) fn admit(&mut self, charges: &[Charge], now: f64) -> Result<(), Vec<ThrottlingReason>> {
        let mut reasons: Vec<ThrottlingReason> = Vec::new();
        for charge in charges {
            let mut refused = Vec::new();
            if let Some(partition) = &charge.target.partition {
                if !self.slot(&charge.target, partition, now).bucket(charge.operation).admits(now) {
                    refused.push(ThrottleLimit::KeyRange);
                }
            }
            if let Some(limited) = self.limited(&charge.target, now) {
                let kind = limited.kind;
                let bucket = match charge.operation {
                    ThrottledOperation::Read => limited.read.as_mut(),
                    ThrottledOperation::Write => limited.write.as_mut(),
                };
                if bucket.is_some_and(|bucket| !bucket.admits(now)) {
                    refused.push(kind);
                }
            }
            for limit in refused {
                let resource = if charge.target.index.is_some() {
                    ThrottledResource::Index
                } else {
                    ThrottledResource::Table
                };
                let reason = ThrottlingReason::new(
                    ThrottleKind { resource, operation: charge.operation, limit },
                    &charge.target.arn,
                );
                self.count_throttled(&charge.target, charge.operation);
                if !reasons.contains(&reason) {
                    reasons.push(reason);
                }
            }
        }
        if !reasons.is_empty() {
            self.usage.throttled_requests += 1;
            return Err(reasons);
        }
        self.take(charges, 1.0, now);
        Ok(())
    }

    /// Replaces what was taken at admission (`estimated`) by what the request consumed
    /// (`actual`).
    pub(crate) fn settle(&mut self, estimated: &[Charge], actual: &[Charge], now: f64) {
        self.take(estimated, -1.0, now);
        self.take(actual, 1.0, now);
    }

    /// The counters.
    pub(crate) fn usage(&self) -> Usage {
        self.usage.clone()
    }

    /// Forgets the counters (the buckets stay as they are).
    pub(crate) fn reset_usage(&mut self) {
        self.usage = Usage::default();
    }

    fn take(&mut self, charges: &[Charge], sign: f64, now: f64) {
        for charge in charges {
            let units = charge.units * sign;
            if let Some(partition) = &charge.target.partition {
                self.slot(&charge.target, partition, now).bucket(charge.operation).take(units, now);
                add(
                    self.usage.partitions.entry(partition_id(&charge.target, partition)).or_default(),
                    charge.operation,
                    units,
                );
            }
            if let Some(limited) = self.limited(&charge.target, now) {
                let bucket = match charge.operation {
                    ThrottledOperation::Read => limited.read.as_mut(),
                    ThrottledOperation::Write => limited.write.as_mut(),
                };
                if let Some(bucket) = bucket {
                    bucket.take(units, now);
                }
            }
            let resource = (charge.target.table.clone(), charge.target.index.clone());
            add(self.usage.resources.entry(resource).or_default(), charge.operation, units);
        }
    }

    fn count_throttled(&mut self, target: &Target, operation: ThrottledOperation) {
        let count = |consumption: &mut Consumption| match operation {
            ThrottledOperation::Read => consumption.throttled_reads += 1,
            ThrottledOperation::Write => consumption.throttled_writes += 1,
        };
        if let Some(partition) = &target.partition {
            count(self.usage.partitions.entry(partition_id(target, partition)).or_default());
        }
        count(self.usage.resources.entry((target.table.clone(), target.index.clone())).or_default());
    }

    fn slot(&mut self, target: &Target, partition: &str, now: f64) -> &mut Slot {
        let limits = &self.limits;
        self.slots.entry((target.table.clone(), target.index.clone(), partition.to_owned())).or_insert_with(
            || Slot {
                read: TokenBucket::new(limits.partition_read_units(), limits.burst_seconds(), now),
                write: TokenBucket::new(limits.partition_write_units(), limits.burst_seconds(), now),
            },
        )
    }

    fn limited(&mut self, target: &Target, now: f64) -> Option<&mut Limited> {
        let limits = &self.limits;
        self.limited
            .entry((target.table.clone(), target.index.clone()))
            .or_insert_with(|| {
                let limit = limits.resource_limit(&target.table, target.index.as_deref())?;
                let (read, write) = limit.rates();
                let bucket = |rate: f64| TokenBucket::new(rate, limits.burst_seconds(), now);
                Some(Limited { read: read.map(bucket), write: write.map(bucket), kind: limit.kind() })
            })
            .as_mut()
    }
}

fn partition_id(target: &Target, partition: &str) -> PartitionId {
    PartitionId { table: target.table.clone(), index: target.index.clone(), key: partition.to_owned() }
}

fn add(consumption: &mut Consumption, operation: ThrottledOperation, units: f64) {
    match operation {
        ThrottledOperation::Read => consumption.read_units += units,
        ThrottledOperation::Write => consumption.write_units += units,
    }
}

#[cfg(test)]
mod tests {
    use super::super::limits::TableLimit;
    use super::super::schema::tests::schema;
    use super::*;

    fn write(index: Option<&str>, partition: &str, units: f64) -> Charge {
        let schema = schema();
        let target = match index {
            Some(index) => schema.index_target(index, Some(partition.to_owned())),
            None => schema.table_target(Some(partition.to_owned())),
        };
        Charge { target, operation: ThrottledOperation::Write, units }
    }

    #[test]
    fn a_hot_index_partition_is_throttled_with_its_reason() {
        let mut meter = Meter::new(PartitionLimits::dynamodb().write_units(10.0));
        let mut admitted = 0;
        let mut last = None;
        for n in 0..100 {
            // Each write has its own table partition and the same index partition.
            let charges = [write(None, &format!("item{n}"), 1.0), write(Some("G"), "hot", 1.0)];
            match meter.admit(&charges, 0.0) {
                Ok(()) => admitted += 1,
                Err(reasons) => last = Some(reasons),
            }
        }
        assert_eq!(admitted, 10, "the burst of one second");
        let reasons = last.expect("throttled");
        assert_eq!(reasons.len(), 1);
        assert_eq!(reasons[0].reason(), "IndexWriteKeyRangeThroughputExceeded");
        assert_eq!(reasons[0].index(), Some("G"));
        let usage = meter.usage();
        assert_eq!(usage.partition("T", Some("G"), "hot").write_units, 10.0);
        assert_eq!(usage.partition("T", Some("G"), "hot").throttled_writes, 90);
        assert_eq!(
            usage.partition("T", None, "item99").write_units,
            0.0,
            "nothing is taken from a refused request"
        );
        assert_eq!(usage.throttled_requests(), 90);
        // A second later, ten more.
        assert!(meter.admit(&[write(Some("G"), "hot", 1.0)], 1.0).is_ok());
    }

    #[test]
    fn table_limits_give_their_own_reason() {
        let limits = PartitionLimits::dynamodb().table("T", TableLimit::on_demand_maximum().write_units(5.0));
        let mut meter = Meter::new(limits);
        for n in 0..5 {
            assert!(meter.admit(&[write(None, &format!("p{n}"), 1.0)], 0.0).is_ok());
        }
        let reasons = meter.admit(&[write(None, "p9", 1.0)], 0.0).expect_err("over the table's maximum");
        assert_eq!(reasons[0].reason(), "TableWriteMaxOnDemandThroughputExceeded");
        assert_eq!(reasons[0].arn(), Some("arn:aws:dynamodb:ddblocal:000000000000:table/T"));
        assert!(meter.admit(&[write(Some("G"), "g", 1.0)], 0.0).is_ok(), "the index is not limited");
    }

    #[test]
    fn settling_replaces_the_estimate() {
        let mut meter = Meter::new(PartitionLimits::dynamodb().write_units(4.0));
        let estimate = [write(None, "p", 1.0)];
        meter.admit(&estimate, 0.0).expect("admitted");
        meter.settle(&estimate, &[write(None, "p", 6.0)], 0.0);
        assert_eq!(meter.usage().partition("T", None, "p").write_units, 6.0);
        assert!(meter.admit(&estimate, 0.4).is_err(), "in debt until 0.5 s");
        assert!(meter.admit(&estimate, 0.6).is_ok());
    }
}
