//! Counting what a query returns without reading it: `Select=COUNT` requests, every page of
//! every partition the query reads, the partitions in parallel.

use super::request::{check, key_condition};
use super::{FromItem, Query, QueryPlan, SortRange};
use crate::db::Db;
use crate::error::{Error, Result};
use crate::expression::Placeholders;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity, Select};
use futures::stream::{self, StreamExt, TryStreamExt};
use std::sync::Arc;

/// How many items a stream of `query` would yield (see [`Db::count`](crate::Db::count)).
pub(crate) async fn count<E: FromItem, F>(db: &Db, query: &Query<E, F>) -> Result<u64> {
    let traced = query.plan.operation(db, "count").traced();
    let span = traced.span().clone();
    query.plan.record_on(&span, query.plan.limit);
    span.record("aws.dynamodb.select", "COUNT");
    let counted = traced.run(count_all(db, query)).await;
    if let Ok(count) = &counted {
        span.record("aws.dynamodb.count", crate::telemetry::int(*count));
    }
    counted
}

/// See [`count`].
async fn count_all<E: FromItem, F>(db: &Db, query: &Query<E, F>) -> Result<u64> {
    let plan = query.plan.clone().with_window_named();
    check(&plan)?;
    if plan.start_after.is_some() {
        return Err(Error::InvalidQuery {
            reason: "a count covers the whole query: it cannot start after a key".into(),
        });
    }
    if let Some(index) = plan.index.filter(|index| !crate::projection::covers(plan.table, index, Some(&[]))) {
        let reason = format!(
            "index `{}` does not hold the entity-type attribute `{}`, so a count cannot tell its items' \
             types apart; count through the base table or an index that holds it",
            index.name, plan.table.type_attribute
        );
        return Err(Error::InvalidQuery { reason });
    }
    if plan.limit == Some(0) || plan.range.is_empty() {
        return Ok(0);
    }
    let plan = db.resolve_plan(Arc::new(plan)).await?;
    // A window of an index with a bucket directory counts the partitions it lists.
    let listed = super::sharded::directory::listed_partitions(db, &plan).await?;
    let partitions = match (&plan.shards, listed) {
        (_, Some(listed)) => listed,
        (Some(shards), None) => shards.partition_keys(plan.max_partitions)?,
        (None, None) => vec![plan.partition_value.clone()],
    };
    let plan = &plan;
    let total = stream::iter(partitions.into_iter().enumerate())
        .map(|(lane, partition)| async move {
            let range = plan.range_of(lane as u64);
            count_partition(db, plan, E::TYPE_NAMES, &partition, range).await
        })
        .buffer_unordered(plan.concurrency.max(1))
        .try_fold(0_u64, |total, count| async move { Ok(total + count) })
        .await?;
    Ok(plan.limit.map_or(total, |limit| total.min(limit as u64)))
}

/// The items of one partition that the query keeps: those in its sort-key range, less those
/// with the one sort key the range drops client-side (an exclusive bound).
async fn count_partition(
    db: &Db,
    plan: &QueryPlan,
    types: &[&str],
    partition: &str,
    range: &SortRange,
) -> Result<u64> {
    let all = count_range(db, plan, types, partition, range).await?;
    match range.excluded() {
        Some(key) => {
            let dropped = count_range(db, plan, types, partition, &SortRange::equals(key)).await?;
            Ok(all.saturating_sub(dropped))
        }
        None => Ok(all),
    }
}

/// Every page of a `Select=COUNT` query of `partition` within `range`, counting items of the
/// entity types `types` that pass the query's filter.
async fn count_range(
    db: &Db,
    plan: &QueryPlan,
    types: &[&str],
    partition: &str,
    range: &SortRange,
) -> Result<u64> {
    let mut placeholders = Placeholders::default();
    let key = key_condition(plan, partition, range, &mut placeholders);
    let mut filters = Vec::new();
    if !types.is_empty() {
        let attribute = placeholders.name(plan.table.type_attribute);
        let names: Vec<String> =
            types.iter().map(|name| placeholders.value(AttributeValue::S((*name).to_owned()))).collect();
        filters.push(format!("{attribute} IN ({})", names.join(", ")));
    }
    if let Some(filter) = &plan.filter_now() {
        filters.push(format!("({})", filter.render(&mut placeholders)?));
    }
    let filter = (!filters.is_empty()).then(|| filters.join(" AND "));
    let (names, values) = (placeholders.take_names(), placeholders.take_values());
    let (mut total, mut start) = (0_u64, None);
    loop {
        let query = db
            .client()
            .query()
            .table_name(db.name_of(plan.table.name))
            .set_index_name(plan.index.map(|index| index.name.to_owned()))
            .key_condition_expression(key.clone())
            .set_filter_expression(filter.clone())
            .set_expression_attribute_names(names.clone())
            .set_expression_attribute_values(values.clone())
            .consistent_read(plan.consistent)
            .select(Select::Count)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .set_limit(plan.page_size.map(|size| size.clamp(1, i32::MAX as usize) as i32))
            .set_exclusive_start_key(start);
        let output = super::request::send(db, plan, query, (partition, None)).await?;
        total += u64::try_from(output.count).unwrap_or(0);
        start = output.last_evaluated_key.filter(|key| !key.is_empty());
        if start.is_none() {
            return Ok(total);
        }
    }
}
