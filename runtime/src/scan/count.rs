//! Counting what a scan returns without reading it: `Select=COUNT` requests, every page of every
//! segment, the segments in parallel.

use super::run::prepare;
use super::{Scan, DEFAULT_CONCURRENCY};
use crate::db::Db;
use crate::error::{Error, Result};
use aws_sdk_dynamodb::types::Select;
use futures::stream::{self, StreamExt, TryStreamExt};

/// How many items a stream of `scan` would yield (see [`Db::count`](crate::Db::count)).
pub(crate) async fn count<T>(db: &Db, scan: &Scan<T>) -> Result<u64> {
    let traced = scan.plan.operation(db, "count").traced();
    let span = traced.span().clone();
    scan.plan.record_on(&span);
    span.record("aws.dynamodb.select", "COUNT");
    let counted = traced.run(count_all(db, scan)).await;
    if let Ok(count) = &counted {
        span.record("aws.dynamodb.count", crate::telemetry::int(*count));
    }
    counted
}

/// See [`count`].
async fn count_all<T>(db: &Db, scan: &Scan<T>) -> Result<u64> {
    let plan = &scan.plan;
    let request = prepare(db, plan)?;
    if plan.limit == Some(0) {
        return Ok(0);
    }
    let page = plan.page_size.map(|size| size.clamp(1, i32::MAX as usize) as i32);
    let concurrency = plan.concurrency.unwrap_or(DEFAULT_CONCURRENCY).min(plan.segments as usize).max(1);
    let request = &request;
    let total = stream::iter(0..request.segments)
        .map(|segment| async move {
            let (mut total, mut start) = (0_u64, None);
            loop {
                let scan = request.scan(db, segment, start).select(Select::Count).set_limit(page);
                let output = request.send(db, segment, scan).await?;
                total += u64::try_from(output.count).unwrap_or(0);
                start = output.last_evaluated_key.filter(|key| !key.is_empty());
                if start.is_none() {
                    return Ok::<u64, Error>(total);
                }
            }
        })
        .buffer_unordered(concurrency)
        .try_fold(0_u64, |total, count| async move { Ok(total + count) })
        .await?;
    Ok(plan.limit.map_or(total, |limit| total.min(limit as u64)))
}
