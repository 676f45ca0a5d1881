//! Running a scan: one page stream per segment, read with bounded concurrency and merged.

use super::{Decode, ScanPlan, DEFAULT_CONCURRENCY};
use crate::consumption::Kind;
use crate::db::Db;
use crate::error::{Error, Item, Result};
use crate::expression::{Condition, Placeholders};
use crate::query::QueryStats;
use crate::telemetry::{Reported, Request as Traced};
use aws_sdk_dynamodb::operation::scan::builders::ScanFluentBuilder;
use aws_sdk_dynamodb::operation::scan::ScanOutput;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};
use futures::stream::{self, BoxStream, StreamExt};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// DynamoDB's limit of `TotalSegments`.
const MAX_SEGMENTS: u32 = 1_000_000;

/// The parts every request of one scan shares.
pub(super) struct ScanRequest {
    pub table: String,
    pub index: Option<String>,
    pub filter: Option<String>,
    pub names: Option<HashMap<String, String>>,
    pub values: Option<Item>,
    pub consistent: bool,
    pub limit: Option<i32>,
    pub segments: i32,
    /// The entity type its units count under (a collection's first).
    pub entity: &'static str,
}

/// The scan as a stream of items; a plan that cannot run yields its error alone.
pub(super) fn run<T: Send + 'static>(
    db: Db,
    plan: ScanPlan,
    decode: Decode<T>,
    stats: QueryStats,
) -> BoxStream<'static, Result<T>> {
    let request = match prepare(&db, &plan) {
        Ok(request) => Arc::new(request),
        Err(error) => return stream::once(async move { Err(error) }).boxed(),
    };
    if plan.limit == Some(0) {
        return stream::empty().boxed();
    }
    let concurrency = plan.concurrency.unwrap_or(DEFAULT_CONCURRENCY).min(plan.segments as usize).max(1);
    let counted = stats.clone();
    let pages = stream::iter(0..request.segments)
        .map(move |segment| segment_pages(db.clone(), Arc::clone(&request), segment, stats.clone()))
        .flatten_unordered(concurrency)
        .boxed();
    let state = State { pages, buffer: VecDeque::new(), remaining: plan.limit, decode, stats: counted };
    stream::unfold(state, |mut state| async move {
        let next = state.next().await;
        next.map(|item| (item, state))
    })
    .boxed()
}

impl ScanRequest {
    /// The request of `segment`, starting after `start`, as the SDK builds it.
    pub(super) fn scan(&self, db: &Db, segment: i32, start: Option<Item>) -> ScanFluentBuilder {
        db.client()
            .scan()
            .table_name(&self.table)
            .set_index_name(self.index.clone())
            .set_filter_expression(self.filter.clone())
            .set_expression_attribute_names(self.names.clone())
            .set_expression_attribute_values(self.values.clone())
            .consistent_read(self.consistent)
            .segment(segment)
            .total_segments(self.segments)
            .set_exclusive_start_key(start)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
    }

    /// Sends `scan` (a request of `segment`) in a span of its own, and counts the units it
    /// consumed in the `Db`'s totals (a scan reads no partition key in particular: none is hot
    /// for it).
    pub(super) async fn send(&self, db: &Db, segment: i32, scan: ScanFluentBuilder) -> Result<ScanOutput> {
        let traced = Traced { sends: "Scan", table: &self.table };
        let span = traced.span();
        if !span.is_disabled() {
            if let Some(index) = &self.index {
                span.record("aws.dynamodb.index_name", index.as_str());
            }
            span.record("aws.dynamodb.segment", segment);
            span.record("aws.dynamodb.total_segments", self.segments);
            span.record("aws.dynamodb.consistent_read", self.consistent);
            if let Some(limit) = scan.get_limit() {
                span.record("aws.dynamodb.limit", limit);
            }
            if let Some(select) = scan.get_select() {
                span.record("aws.dynamodb.select", select.as_str());
            }
        }
        let sent = async { scan.send().await.map_err(|error| Error::from_sdk("Scan", error)) };
        let output = traced.send(span, sent, |output: &ScanOutput| Reported {
            consumed: output.consumed_capacity.iter().collect(),
            count: Some(output.count),
            scanned: Some(output.scanned_count),
        });
        let output = output.await?;
        let units = output.consumed_capacity.as_ref().and_then(|consumed| consumed.capacity_units);
        db.meter().add((&self.table, self.index.as_deref(), self.entity), Kind::Read, units.unwrap_or(0.0));
        Ok(output)
    }
}

/// Checks the plan and renders what every request shares; nothing is sent.
pub(super) fn prepare(db: &Db, plan: &ScanPlan) -> Result<ScanRequest> {
    let invalid = |reason: String| Error::InvalidQuery { reason };
    if !(1..=MAX_SEGMENTS).contains(&plan.segments) {
        return Err(invalid(format!("a scan needs 1 to {MAX_SEGMENTS} segments, not {}", plan.segments)));
    }
    if let Some(index) = &plan.index {
        let Some(declared) = plan.table.indexes.iter().find(|known| known.name == index) else {
            return Err(invalid(format!("table `{}` declares no index `{index}`", plan.table.name)));
        };
        if plan.consistent && !declared.local {
            return Err(invalid(
                "strongly consistent reads are not supported on global secondary indexes".into(),
            ));
        }
    }
    let mut placeholders = Placeholders::default();
    let mut filters = Vec::new();
    if !plan.type_names.is_empty() {
        let attribute = placeholders.name(plan.table.type_attribute);
        let names: Vec<String> = plan
            .type_names
            .iter()
            .map(|name| placeholders.value(AttributeValue::S((*name).to_owned())))
            .collect();
        filters.push(match names.as_slice() {
            [one] => format!("{attribute} = {one}"),
            many => format!("{attribute} IN ({})", many.join(", ")),
        });
    }
    if let Some(filter) = &plan.filter {
        filters.push(format!("({})", filter.render(&mut placeholders)?));
    }
    if plan.unexpired {
        let index =
            plan.index.as_ref().and_then(|name| plan.table.indexes.iter().find(|index| index.name == *name));
        if let (Some(index), Some(ttl)) = (index, plan.table.ttl) {
            if !crate::projection::index_holds(plan.table, index, ttl) {
                return Err(invalid(format!(
                    "index `{}` does not hold the `ttl` attribute `{ttl}`",
                    index.name
                )));
            }
        }
        let Some(ttl) = plan.table.ttl else {
            return Err(invalid(format!(
                "table `{}` declares no `ttl` attribute to leave expired items out by",
                plan.table.name
            )));
        };
        let unexpired = Condition::unexpired(ttl, crate::metadata::now_ms() / 1_000);
        filters.push(format!("({})", unexpired.render(&mut placeholders)?));
    }
    let limit = plan.page_size.or(plan.limit);
    Ok(ScanRequest {
        table: db.name_of(plan.table.name).to_owned(),
        index: plan.index.clone(),
        filter: (!filters.is_empty()).then(|| filters.join(" AND ")),
        names: placeholders.take_names(),
        values: placeholders.take_values(),
        consistent: plan.consistent,
        limit: limit.map(|limit| limit.clamp(1, i32::MAX as usize) as i32),
        segments: plan.segments as i32,
        entity: plan.type_names.first().copied().unwrap_or_default(),
    })
}

/// The pages of one segment, each requested after the previous one arrived.
fn segment_pages(
    db: Db,
    request: Arc<ScanRequest>,
    segment: i32,
    stats: QueryStats,
) -> BoxStream<'static, Result<Vec<Item>>> {
    // State: `None` once the segment is done, else the key to start after (`None` at first).
    stream::unfold(Some(None), move |start: Option<Option<Item>>| {
        let (db, request, stats) = (db.clone(), Arc::clone(&request), stats.clone());
        async move {
            let start = start?;
            match fetch(&db, &request, (segment, &stats), start).await {
                Ok((items, next)) => Some((Ok(items), next.map(Some))),
                Err(error) => Some((Err(error), None)),
            }
        }
    })
    .boxed()
}

/// Sends one Scan request, counting it in `stats`; returns its items and the key to continue
/// after, if any.
async fn fetch(
    db: &Db,
    request: &ScanRequest,
    (segment, stats): (i32, &QueryStats),
    start: Option<Item>,
) -> Result<(Vec<Item>, Option<Item>)> {
    stats.record_request(segment as usize);
    let scan = request.scan(db, segment, start).set_limit(request.limit);
    let output = request.send(db, segment, scan).await?;
    let capacity = output.consumed_capacity.and_then(|consumed| consumed.capacity_units).unwrap_or(0.0);
    let items = output.items.unwrap_or_default();
    stats.record_response(items.len(), capacity);
    let next = output.last_evaluated_key.filter(|key| !key.is_empty());
    Ok((items, next))
}

/// The merged pages, decoded one item at a time, up to the limit. An item that does not decode
/// is an error the scan goes on past (counted against the limit and in the stats).
struct State<T> {
    pages: BoxStream<'static, Result<Vec<Item>>>,
    buffer: VecDeque<Item>,
    remaining: Option<usize>,
    decode: Decode<T>,
    stats: QueryStats,
}

impl<T> State<T> {
    async fn next(&mut self) -> Option<Result<T>> {
        loop {
            if self.remaining == Some(0) {
                self.stop();
                return None;
            }
            if let Some(item) = self.buffer.pop_front() {
                let yielded = match (self.decode)(item, false) {
                    Ok(None) => continue,
                    Ok(Some(value)) => Ok(value),
                    Err(error @ Error::Undecodable(_)) => {
                        self.stats.record_undecodable();
                        Err(error)
                    }
                    Err(error) => return Some(Err(self.stop_with(error))),
                };
                if let Some(remaining) = &mut self.remaining {
                    *remaining -= 1;
                }
                return Some(yielded);
            }
            match self.pages.next().await? {
                Ok(items) => self.buffer.extend(items),
                Err(error) => return Some(Err(self.stop_with(error))),
            }
        }
    }

    /// Drops the segment streams, which cancels their requests in flight.
    fn stop(&mut self) {
        self.pages = stream::empty().boxed();
        self.buffer.clear();
    }

    fn stop_with(&mut self, error: Error) -> Error {
        self.stop();
        self.remaining = Some(0);
        error
    }
}
