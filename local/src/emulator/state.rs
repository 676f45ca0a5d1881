//! What every connection of the emulator shares: the endpoint, the meter and the table schemas.

use super::charge::Charge;
use super::described::{Described, Lookup};
use super::limits::PartitionLimits;
use super::meter::{Meter, Refusal};
use super::schema::{DescribeTableOutput, TableSchema};
use super::upstream::{Upstream, UpstreamError};
use super::usage::Usage;
use hyper::header::{HeaderMap, AUTHORIZATION};
use serde::Serialize;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

/// The state of one emulator.
#[derive(Debug)]
pub(crate) struct Shared {
    pub upstream: Upstream,
    meter: Mutex<Meter>,
    /// The tables' descriptions, by caller and table.
    described: Mutex<Described>,
    started: Instant,
    /// The streams served split.
    pub splits: super::streams::splits::Splits,
    /// The `DescribeStream` calls each stream has left.
    describes: super::streams::describe_limit::DescribeLimits,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct DescribeTableInput<'a> {
    table_name: &'a str,
}

impl Shared {
    pub(crate) fn new(upstream: Upstream, limits: PartitionLimits) -> Self {
        Self {
            upstream,
            meter: Mutex::new(Meter::new(limits)),
            described: Mutex::default(),
            started: Instant::now(),
            splits: super::streams::splits::Splits::default(),
            describes: Default::default(),
        }
    }

    /// Whether a `DescribeStream` call of stream `arn` is answered now; a refusal is counted as
    /// a throttled request.
    pub(crate) fn admit_describe(&self, arn: &str) -> bool {
        let admitted = self.describes.admits(arn, self.now());
        if !admitted {
            self.meter().count_throttled_request();
        }
        admitted
    }

    fn now(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    fn meter(&self) -> MutexGuard<'_, Meter> {
        // The meter's maps stay consistent however a holder panicked: each update is one insert.
        self.meter.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Admits a request that consumes `charges`, or refuses it with the reasons.
    pub(crate) fn admit(&self, charges: &[Charge]) -> Result<(), Refusal> {
        let now = self.now();
        self.meter().admit(charges, now)
    }

    /// Admits a request that consumes `charges`; a refusal is counted as a throttled request
    /// and its reasons returned.
    pub(crate) fn admit_request(&self, charges: &[Charge]) -> Result<(), Refusal> {
        let now = self.now();
        let mut meter = self.meter();
        meter.admit(charges, now).inspect_err(|_| meter.count_throttled_request())
    }

    /// Counts one request that had anything refused (a batch with refused entries).
    pub(crate) fn count_throttled_request(&self) {
        self.meter().count_throttled_request();
    }

    /// Replaces what admission took by what the request consumed.
    pub(crate) fn settle(&self, estimated: &[Charge], actual: &[Charge]) {
        let now = self.now();
        self.meter().settle(estimated, actual, now);
    }

    pub(crate) fn usage(&self) -> Usage {
        self.meter().usage()
    }

    /// What a partition serves a second under the current limits.
    pub(crate) fn rate(&self) -> dynashard::heat::PartitionRate {
        let limits = self.meter().limits().clone();
        dynashard::heat::PartitionRate {
            read_units: limits.partition_read_units(),
            write_units: limits.partition_write_units(),
        }
    }

    pub(crate) fn reset_usage(&self) {
        self.meter().reset_usage();
    }

    /// The time every request takes at least, under the current limits.
    pub(crate) fn round_trip(&self) -> std::time::Duration {
        self.meter().limits().round_trip_time()
    }

    /// Enforces `limits` from now on, with full buckets; the counters stay.
    pub(crate) fn set_limits(&self, limits: PartitionLimits) {
        let mut meter = self.meter();
        let usage = meter.usage();
        *meter = Meter::with_usage(limits, usage);
    }

    /// The schema of `table` as the caller with `headers` sees it (see [`Described`] for when
    /// it is described again).
    pub(crate) async fn schema(
        &self,
        headers: &HeaderMap,
        table: &str,
    ) -> Result<Arc<TableSchema>, UpstreamError> {
        let key = (caller(headers), table.to_owned());
        let generation = match self.described().look_up(&key, Instant::now()) {
            Lookup::Held(schema) => return Ok(schema),
            Lookup::Describe { generation } => generation,
        };
        let at = Instant::now();
        let input = DescribeTableInput { table_name: table };
        let output = self.upstream.call::<_, DescribeTableOutput>(headers, "DescribeTable", &input).await;
        let mut described = self.described();
        match output {
            Ok(output) => {
                let schema = Arc::new(TableSchema::from(output));
                described.keep(key, Arc::clone(&schema), generation, at, at.elapsed());
                Ok(schema)
            }
            Err(error) => {
                described.failed(&key);
                Err(error)
            }
        }
    }

    /// Forgets the schema of `table` (it was created, changed or deleted).
    pub(crate) fn forget_schema(&self, headers: &HeaderMap, table: &str) {
        self.described().forget(&(caller(headers), table.to_owned()));
    }

    fn described(&self) -> MutexGuard<'_, Described> {
        self.described.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The caller's access key and region, from `Authorization: ... Credential=AKID/date/region/...`.
fn caller(headers: &HeaderMap) -> String {
    let authorization = headers.get(AUTHORIZATION).and_then(|value| value.to_str().ok()).unwrap_or_default();
    let credential = authorization.split("Credential=").nth(1).unwrap_or_default();
    let mut scope = credential.split(['/', ',']);
    let key = scope.next().unwrap_or_default();
    let region = scope.nth(1).unwrap_or_default();
    format!("{key}/{region}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callers_are_told_apart_by_key_and_region() {
        let mut headers = HeaderMap::new();
        let value = "AWS4-HMAC-SHA256 Credential=AKID/20261124/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=x";
        headers.insert(AUTHORIZATION, value.parse().expect("a header value"));
        assert_eq!(caller(&headers), "AKID/us-east-1");
        assert_eq!(caller(&HeaderMap::new()), "/");
    }
}
