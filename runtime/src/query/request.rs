//! One Query request of a query plan, and what runs before the first one.

use super::{cursor, QueryPlan};
use crate::db::Db;
use crate::error::{Error, Item, Result};
use crate::expression::Placeholders;
use aws_sdk_dynamodb::types::AttributeValue;

/// One page as DynamoDB returned it: the items and the key to continue after, if any.
pub(crate) struct RawPage {
    pub items: Vec<Item>,
    pub last_evaluated_key: Option<Item>,
}

/// Checks a plan before anything is sent, and resolves its starting cursor.
pub(crate) fn prepare(db: &Db, plan: &QueryPlan, cursor: Option<&str>) -> Result<Option<Item>> {
    if let Some(error) = &plan.error {
        return Err(error.clone().into_error());
    }
    if plan.consistent && plan.index.is_some() {
        return Err(Error::InvalidQuery {
            reason: "strongly consistent reads are not supported on global secondary indexes".into(),
        });
    }
    let cursor = cursor.or(plan.start_after.as_deref());
    cursor
        .map(|cursor| cursor::decode(cursor, &cursor::fingerprint(plan), db.cursor_key()))
        .transpose()
        .map_err(|reason| Error::InvalidCursor { reason })
}

/// Sends one Query request.
pub(crate) async fn fetch(
    db: &Db,
    plan: &QueryPlan,
    start: Option<Item>,
    limit: Option<usize>,
) -> Result<RawPage> {
    let mut placeholders = Placeholders::default();
    let name = placeholders.name(plan.partition_attribute);
    let value = placeholders.value(AttributeValue::S(plan.partition_value.clone()));
    let mut key_condition = format!("{name} = {value}");
    if let Some(sort) =
        plan.sort_attribute.and_then(|attribute| plan.range.render(attribute, &mut placeholders))
    {
        key_condition.push_str(" AND ");
        key_condition.push_str(&sort);
    }
    let filter = plan.filter.as_ref().map(|filter| filter.render(&mut placeholders)).transpose()?;
    let output = db
        .client()
        .query()
        .table_name(db.name_of(plan.table.name))
        .set_index_name(plan.index.map(|index| index.name.to_owned()))
        .key_condition_expression(key_condition)
        .set_filter_expression(filter)
        .set_expression_attribute_names(placeholders.take_names())
        .set_expression_attribute_values(placeholders.take_values())
        .scan_index_forward(!plan.descending)
        .consistent_read(plan.consistent)
        .set_limit(limit.map(|limit| limit.clamp(1, i32::MAX as usize) as i32))
        .set_exclusive_start_key(start)
        .send()
        .await
        .map_err(|error| Error::from_sdk("Query", error))?;
    Ok(RawPage { items: output.items.unwrap_or_default(), last_evaluated_key: output.last_evaluated_key })
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

/// The sort key value of a raw item, for client-side exclusion.
pub(crate) fn sort_key_of<'a>(plan: &QueryPlan, item: &'a Item) -> Option<&'a str> {
    plan.sort_attribute
        .and_then(|attribute| item.get(attribute))
        .and_then(|value| value.as_s().ok())
        .map(String::as_str)
}
