//! The meter: token buckets per partition and per limited table or index, and the counters
//! (sans-IO: time is passed in, in seconds).

use super::bucket::TokenBucket;
use super::charge::{Charge, Target};
use super::limits::PartitionLimits;
use super::usage::{Consumption, PartitionId, Usage};
use dynashard::throttling::{
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

/// Partitions whose buckets are kept before full ones are forgotten.
const MAX_SLOTS: usize = 100_000;

/// Why a request was refused: the reasons, and which of its charges were over a limit.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Refusal {
    pub reasons: Vec<ThrottlingReason>,
    /// Positions of the refused charges in the request's charges.
    pub charges: Vec<usize>,
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
    /// The limits it enforces.
    pub(crate) fn limits(&self) -> &PartitionLimits {
        &self.limits
    }

    pub(crate) fn new(limits: PartitionLimits) -> Self {
        Self::with_usage(limits, Usage::default())
    }

    /// A meter with full buckets that goes on counting from `usage`.
    pub(crate) fn with_usage(limits: PartitionLimits, usage: Usage) -> Self {
        Self { limits, slots: HashMap::new(), limited: HashMap::new(), usage }
    }

    /// Admits a request consuming `charges` (as far as known before it runs) at `now`, taking
    /// them; or refuses it, counting each refused charge at its partition.
    pub(crate) fn admit(&mut self, charges: &[Charge], now: f64) -> Result<(), Refusal> {
        let mut reasons: Vec<ThrottlingReason> = Vec::new();
        let mut refused_charges = Vec::new();
        for (at, charge) in charges.iter().enumerate() {
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
            if !refused.is_empty() {
                refused_charges.push(at);
                self.count_throttled(&charge.target, charge.operation);
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
                if !reasons.contains(&reason) {
                    reasons.push(reason);
                }
            }
        }
        if !reasons.is_empty() {
            return Err(Refusal { reasons, charges: refused_charges });
        }
        let taken: Vec<(Charge, f64)> = charges.iter().map(|charge| (charge.clone(), charge.units)).collect();
        self.take(&taken, now);
        Ok(())
    }

    /// Replaces what was taken at admission (`estimated`) by what the request consumed
    /// (`actual`): the difference, at each target, in one step (a refund first could be lost to
    /// a full bucket's cap).
    pub(crate) fn settle(&mut self, estimated: &[Charge], actual: &[Charge], now: f64) {
        let mut net: Vec<(Charge, f64)> = Vec::new();
        let signed = estimated
            .iter()
            .map(|charge| (charge, -charge.units))
            .chain(actual.iter().map(|charge| (charge, charge.units)));
        for (charge, units) in signed {
            match net
                .iter_mut()
                .find(|(known, _)| known.target == charge.target && known.operation == charge.operation)
            {
                Some((_, total)) => *total += units,
                None => net.push((charge.clone(), units)),
            }
        }
        net.retain(|(_, units)| *units != 0.0);
        self.take(&net, now);
    }

    /// Counts one request that had anything refused (a batch with refused entries once).
    pub(crate) fn count_throttled_request(&mut self) {
        self.usage.throttled_requests += 1;
    }

    /// The counters.
    pub(crate) fn usage(&self) -> Usage {
        self.usage.clone()
    }

    /// Forgets the counters (the buckets stay as they are).
    pub(crate) fn reset_usage(&mut self) {
        self.usage = Usage::default();
    }

    /// Takes `units` at each charge's target (negative: gives them back).
    fn take(&mut self, charges: &[(Charge, f64)], now: f64) {
        for (charge, units) in charges {
            let units = *units;
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
        if self.slots.len() >= MAX_SLOTS {
            // A partition whose buckets are full is in the state a new one starts in.
            self.slots.retain(|_, slot| !(slot.read.is_full(now) && slot.write.is_full(now)));
        }
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
                Err(refusal) => last = Some(refusal.reasons),
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
        assert_eq!(usage.throttled_requests(), 0, "requests are counted by the handlers, once each");
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
        let reasons =
            meter.admit(&[write(None, "p9", 1.0)], 0.0).expect_err("over the table's maximum").reasons;
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

    #[test]
    fn settling_a_full_bucket_loses_nothing() {
        let mut meter = Meter::new(PartitionLimits::dynamodb().write_units(10.0));
        let estimate = [write(None, "p", 1.0)];
        meter.admit(&estimate, 0.0).expect("admitted");
        // The bucket refills while the write is sent; settling an exact estimate changes nothing.
        meter.settle(&estimate, &estimate, 5.0);
        for _ in 0..10 {
            assert!(meter.admit(&estimate, 5.0).is_ok(), "the full burst is there");
        }
        assert!(meter.admit(&estimate, 5.0).is_err());
    }

    #[test]
    fn refusals_name_the_refused_charges() {
        let mut meter = Meter::new(PartitionLimits::dynamodb().write_units(1.0));
        meter.admit(&[write(Some("G"), "hot", 1.0)], 0.0).expect("the burst");
        let refusal = meter
            .admit(&[write(None, "cold", 1.0), write(Some("G"), "hot", 1.0)], 0.0)
            .expect_err("the hot partition is empty");
        assert_eq!(refusal.charges, [1]);
        assert_eq!(meter.usage().partition("T", Some("G"), "hot").throttled_writes, 1);
    }
}
