//! A put of an entity with a `#[created_at]` field, sent as an update so that an existing item
//! keeps its creation time: every attribute of the new item is set (the creation time through
//! `if_not_exists`), and every attribute an item of the entity can hold that the new item lacks
//! is removed, so the stored item ends as a put would leave it.

use super::request::UpdateAction;
use crate::entity::Entity;
use crate::error::{Error, Item, Result};
use crate::expression::Placeholders;
use crate::item::table_of;
use aws_sdk_dynamodb::types::AttributeValue;

/// The update that stores `item` (complete, keys included) as a put would, except that the
/// `created` attribute keeps the value an existing item has (`created_now` when there is none).
///
/// DynamoDB's limit on the length of an expression.
pub(crate) const MAX_EXPRESSION_BYTES: usize = 4096;

/// Attributes no item of `E` writes (left by another type, or by an older declaration) stay. An
/// entity with so many attributes that the expression is over DynamoDB's limit is
/// [`Error::ExpressionTooLarge`].
pub(crate) fn keeping_created<E: Entity>(
    mut item: Item,
    (created, created_now): (&str, AttributeValue),
    p: &mut Placeholders,
) -> Result<UpdateAction> {
    let table = table_of::<E>();
    let mut key = Item::with_capacity(2);
    for name in std::iter::once(table.partition_key).chain(table.sort_key) {
        if let Some((name, value)) = item.remove_entry(name) {
            key.insert(name, value);
        }
    }
    item.remove(created);
    let mut set: Vec<(String, AttributeValue)> = item.into_iter().collect();
    set.sort_by(|a, b| a.0.cmp(&b.0));
    let mut removed: Vec<&str> = E::ATTRIBUTES
        .unwrap_or_default()
        .iter()
        .copied()
        .chain(
            table
                .indexes
                .iter()
                .flat_map(|index| index.partition_key.iter().chain(index.sort_key))
                .map(|key| key.name),
        )
        .filter(|name| {
            *name != created && !set.iter().any(|(set, _)| set == name) && !key.contains_key(*name)
        })
        .collect();
    removed.sort_unstable();
    removed.dedup();
    let mut actions: Vec<String> =
        set.into_iter().map(|(name, value)| format!("{} = {}", p.name(&name), p.value(value))).collect();
    let target = p.name(created);
    actions.push(format!("{target} = if_not_exists({target}, {})", p.value(created_now)));
    let mut expression = format!("SET {}", actions.join(", "));
    if !removed.is_empty() {
        let removed: Vec<String> = removed.into_iter().map(|name| p.name(name)).collect();
        expression.push_str(&format!(" REMOVE {}", removed.join(", ")));
    }
    if expression.len() > MAX_EXPRESSION_BYTES {
        return Err(Error::ExpressionTooLarge { bytes: expression.len(), max: MAX_EXPRESSION_BYTES });
    }
    Ok(UpdateAction { key, expression: Some(expression) })
}
