//! One Query request of a query plan, and the checks that run before the first one.

use super::{NativeCondition, QueryPlan, QueryStats, SortRange};
use crate::consumption::{count_read, watched};
use crate::db::Db;
use crate::error::{Error, Item, Result};
use crate::expression::Placeholders;
use crate::telemetry::{Reported, Request as Traced};
use aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder;
use aws_sdk_dynamodb::operation::query::QueryOutput;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};

/// One page as DynamoDB returned it: the items and the key to continue after, if any.
pub(crate) struct RawPage {
    pub items: Vec<Item>,
    pub last_evaluated_key: Option<Item>,
    /// The read capacity it consumed, as DynamoDB reported it.
    pub capacity_units: f64,
}

/// One request: which partition (and the shard it counts under), the sort-key range when it is
/// not the plan's own, where to start, how many.
pub(crate) struct Request {
    pub partition: String,
    pub shard: usize,
    pub range: Option<SortRange>,
    pub start: Option<Item>,
    pub limit: Option<usize>,
}

/// Checks a plan before anything is sent.
pub(crate) fn check(plan: &QueryPlan) -> Result<()> {
    let invalid = |reason: &str| Err(Error::InvalidQuery { reason: reason.into() });
    if let Some(error) = &plan.error {
        return Err(error.clone().into_error());
    }
    if plan.keys.len() > plan.max_keys {
        return Err(Error::TooManyKeys { keys: plan.keys.len(), max: plan.max_keys });
    }
    if plan.page_size == Some(0) {
        return invalid("the page size must be at least 1");
    }
    if plan.consistent && plan.index.is_some_and(|index| !index.local) {
        return invalid("strongly consistent reads are not supported on global secondary indexes");
    }
    if plan.unexpired && plan.table.ttl.is_none() {
        let reason =
            format!("table `{}` declares no `ttl` attribute to leave expired items out by", plan.table.name);
        return Err(Error::InvalidQuery { reason });
    }
    if let Some((index, filter)) = plan.index.zip(plan.filter_now()) {
        let held = |attribute: &&str| crate::projection::index_holds(plan.table, index, attribute);
        if let Some(attribute) = filter.attributes().into_iter().find(|attribute| !held(attribute)) {
            // DynamoDB would evaluate the filter on index items without the attribute: every
            // item would be dropped, or kept, without a word.
            return Err(Error::InvalidQuery {
                reason: format!(
                    "the filter names attribute `{attribute}`, which index `{}` does not hold; add it to the \
                     index's projection, or filter the items after reading them",
                    index.name
                ),
            });
        }
    }
    if let Some(shards) = &plan.shards {
        // A dynamic layout's partitions are read from the shard metadata when the query runs,
        // a window's buckets as the read reaches them.
        let described = shards.layout.awaits_count()
            || shards.window.as_ref().is_some_and(|window| !window.shards.is_empty());
        if shards.partitions.is_empty() && !described {
            return invalid("a sharded query needs at least one partition");
        }
        if !plan.native_partition.is_empty() {
            return invalid("a query on a multi-attribute index key cannot be sharded");
        }
    }
    Ok(())
}

/// Sends one Query request, counting it and its answer in `stats`.
pub(crate) async fn fetch(
    db: &Db,
    plan: &QueryPlan,
    request: Request,
    stats: &QueryStats,
) -> Result<RawPage> {
    let mut placeholders = Placeholders::default();
    let range = request.range.as_ref().unwrap_or(&plan.range);
    let key_condition = key_condition(plan, &request.partition, range, &mut placeholders);
    let filter = plan.filter_now().map(|filter| filter.render(&mut placeholders)).transpose()?;
    let projection =
        plan.projection.map(|attributes| projection_expression(plan, attributes, &mut placeholders));
    let query = db
        .client()
        .query()
        .table_name(db.name_of(plan.table.name))
        .set_index_name(plan.index.map(|index| index.name.to_owned()))
        .key_condition_expression(key_condition)
        .set_filter_expression(filter)
        .set_projection_expression(projection)
        .set_expression_attribute_names(placeholders.take_names())
        .set_expression_attribute_values(placeholders.take_values())
        .scan_index_forward(!plan.descending)
        .consistent_read(plan.consistent)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .set_limit(request.limit.map(|limit| limit.clamp(1, i32::MAX as usize) as i32))
        .set_exclusive_start_key(request.start);
    stats.record_request(request.shard);
    let output = send(db, plan, query, (&request.partition, Some(request.shard))).await?;
    let capacity = output.consumed_capacity.as_ref().and_then(|consumed| consumed.capacity_units);
    let capacity = capacity.unwrap_or(0.0);
    let items = output.items.unwrap_or_default();
    stats.record_response(items.len(), capacity);
    Ok(RawPage { items, last_evaluated_key: output.last_evaluated_key, capacity_units: capacity })
}

/// Sends `query`, a request of `plan` to `partition` (of shard `shard`, when it has shards), in
/// a span of its own, and counts what it consumed in the `Db`'s totals and hot keys.
pub(crate) async fn send(
    db: &Db,
    plan: &QueryPlan,
    query: QueryFluentBuilder,
    (partition, shard): (&str, Option<usize>),
) -> Result<QueryOutput> {
    let table = db.name_of(plan.table.name);
    let traced = Traced { sends: "Query", table };
    let span = traced.span();
    if !span.is_disabled() {
        plan.record_on(&span, query.get_limit().map(|limit| limit as usize));
        if let Some(shard) = shard {
            span.record("dynashard.shard", crate::telemetry::int(shard));
        }
        if let Some(select) = query.get_select() {
            span.record("aws.dynamodb.select", select.as_str());
        }
    }
    let sent = async { query.send().await.map_err(|error| query_error(plan, error)) };
    let result = traced.send(span, sent, |output: &QueryOutput| Reported {
        consumed: output.consumed_capacity.iter().collect(),
        count: Some(output.count),
        scanned: Some(output.scanned_count),
    });
    let (result, throttles) = watched(result).await;
    let capacity =
        |output: &QueryOutput| output.consumed_capacity.as_ref().and_then(|consumed| consumed.capacity_units);
    let place = (table, plan.index.map(|index| index.name), partition);
    count_read(
        db.meter(),
        place,
        plan.type_name,
        result.as_ref().map(|output| capacity(output).unwrap_or(0.0)),
        &throttles,
    );
    result
}

/// The key condition of a request of `plan` to `partition` within `range` (a query on a
/// multi-attribute index has its own, whatever the partition).
pub(crate) fn key_condition(
    plan: &QueryPlan,
    partition: &str,
    range: &SortRange,
    placeholders: &mut Placeholders,
) -> String {
    if plan.native_partition.is_empty() {
        composed_key_condition(plan, partition, range, placeholders)
    } else {
        native_key_condition(plan, placeholders)
    }
}

/// The key attributes a cursor needs to resume after `item`: the table's keys, plus the index's.
pub(crate) fn resume_key(plan: &QueryPlan, item: &Item) -> Item {
    let table = plan.table;
    let index_attributes =
        plan.index.into_iter().flat_map(|index| index.partition_key.iter().chain(index.sort_key));
    std::iter::once(table.partition_key)
        .chain(table.sort_key)
        .chain(index_attributes.map(|attribute| attribute.name))
        .filter_map(|name| item.get(name).map(|value| (name.to_owned(), value.clone())))
        .collect()
}

/// The `ProjectionExpression` of a view: its attributes, the entity type, and the table's and the
/// index's keys, which cursors and merges read.
fn projection_expression(plan: &QueryPlan, attributes: &[&str], placeholders: &mut Placeholders) -> String {
    let table = plan.table;
    let index_keys =
        plan.index.into_iter().flat_map(|index| index.partition_key.iter().chain(index.sort_key));
    let mut names: Vec<&str> =
        [table.type_attribute, table.partition_key].into_iter().chain(table.sort_key).collect();
    names.extend(index_keys.map(|attribute| attribute.name));
    names.extend(attributes);
    let mut seen = std::collections::HashSet::with_capacity(names.len());
    names.retain(|name| seen.insert(*name));
    names.iter().map(|name| placeholders.name(name)).collect::<Vec<_>>().join(", ")
}

/// The sort key value of a raw item, for client-side exclusion.
pub(crate) fn sort_key_of<'a>(plan: &QueryPlan, item: &'a Item) -> Option<&'a str> {
    plan.sort_attribute
        .and_then(|attribute| item.get(attribute))
        .and_then(|value| value.as_s().ok())
        .map(String::as_str)
}

/// The key condition of a multi-attribute index query: equality on every partition attribute
/// and on the constrained sort attributes, then an optional comparison on the next one.
fn native_key_condition(plan: &QueryPlan, placeholders: &mut Placeholders) -> String {
    let mut parts: Vec<String> = plan
        .native_partition
        .iter()
        .chain(&plan.native_sort)
        .map(|(attribute, value)| {
            format!("{} = {}", placeholders.name(attribute), placeholders.value(value.clone()))
        })
        .collect();
    if let Some((attribute, condition)) = &plan.native_range {
        let name = placeholders.name(attribute);
        let mut value = |value: &AttributeValue| placeholders.value(value.clone());
        parts.push(match condition {
            NativeCondition::Lt(v) => format!("{name} < {}", value(v)),
            NativeCondition::Le(v) => format!("{name} <= {}", value(v)),
            NativeCondition::Gt(v) => format!("{name} > {}", value(v)),
            NativeCondition::Ge(v) => format!("{name} >= {}", value(v)),
            NativeCondition::Between(low, high) => {
                let low = value(low);
                format!("{name} BETWEEN {low} AND {}", value(high))
            }
            NativeCondition::BeginsWith(v) => format!("begins_with({name}, {})", value(v)),
        });
    }
    parts.join(" AND ")
}

/// The key condition of a query on composed (template) keys.
fn composed_key_condition(
    plan: &QueryPlan,
    partition: &str,
    range: &SortRange,
    placeholders: &mut Placeholders,
) -> String {
    let name = placeholders.name(plan.partition_attribute);
    let value = placeholders.value(AttributeValue::S(partition.to_owned()));
    let mut key_condition = format!("{name} = {value}");
    if let Some(sort) = plan.sort_attribute.and_then(|attribute| range.render(attribute, placeholders)) {
        key_condition.push_str(" AND ");
        key_condition.push_str(&sort);
    }
    key_condition
}

/// The error of a `Query` of `plan`: a refusal to filter on attributes the live index does not
/// hold, though its declaration projects them, is [`Error::IndexNarrowerThanDeclared`] (a filter
/// on attributes the declaration does not project is refused before sending).
pub(crate) fn query_error(
    plan: &QueryPlan,
    error: aws_sdk_dynamodb::error::SdkError<
        aws_sdk_dynamodb::operation::query::QueryError,
        aws_sdk_dynamodb::config::http::HttpResponse,
    >,
) -> Error {
    let error = Error::from_sdk("Query", error);
    const UNPROJECTED: &str = "does not project one or more filter attributes: [";
    let Error::Service { code: Some(code), message, .. } = &error else { return error };
    let missing = message.split_once(UNPROJECTED).and_then(|(_, rest)| rest.split_once(']'));
    match (plan.index, missing) {
        (Some(index), Some((attribute, _))) if code == "ValidationException" => {
            Error::IndexNarrowerThanDeclared { index: index.name.to_owned(), attribute: attribute.to_owned() }
        }
        _ => error,
    }
}
