//! Turning write requests into `TransactWriteItem`s, checking a transaction before it is sent,
//! sending it, and explaining a cancellation per action.

use super::limits::{MAX_TRANSACTION_ACTIONS, MAX_TRANSACTION_BYTES};
use crate::consumption::{count_actions, Action, Kind};
use crate::db::Db;
use crate::entity::PrimaryKey;
use crate::error::{CancellationReason, ReasonCode};
use crate::error::{Error, Result};
use crate::item::key_item;
use crate::item_size::{item_size, value_size};
use crate::telemetry::Operation;
use crate::write::{Buckets, CheckAction, DeleteAction, Explain, PutAction, UpdateAction, WriteRequest};
use aws_sdk_dynamodb::error::BuildError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{
    self, ConditionCheck, ReturnConsumedCapacity, ReturnValuesOnConditionCheckFailure, TransactWriteItem,
};
use std::collections::HashSet;

const ALL_OLD: ReturnValuesOnConditionCheckFailure = ReturnValuesOnConditionCheckFailure::AllOld;

/// One action of a transaction, ready to send, with what is needed to explain its failure.
pub(crate) struct Pending {
    table: String,
    key: PrimaryKey,
    item: TransactWriteItem,
    explain: Explain,
    /// What the action adds to the transaction's size (see [`action_bytes`]).
    bytes: usize,
    /// The time-bucket partitions it puts an item in.
    buckets: Buckets,
    /// What counting its units needs.
    counted: Action,
}

impl Pending {
    /// Converts the parts of a single-item write into a transaction action.
    pub fn new<A: TransactAction>(request: WriteRequest<A>) -> Result<Self> {
        let (table, key, explain) = (request.table.clone(), request.key.clone(), request.explain.clone());
        let (buckets, place) = (request.buckets.clone(), (request.definition, request.entity));
        let item = A::transact_item(request).map_err(build_error)?;
        let bytes = action_bytes(&item);
        let place = (table.as_str(), place.0, place.1);
        let counted = match &item.put {
            Some(put) => Action::new(place, &put.item, true),
            None => Action::new(place, &key_item(place.1, &key), false),
        };
        Ok(Self { table, key, item, explain, bytes, buckets, counted })
    }
}

impl Pending {
    /// The transaction of `actions`, as its span names it: by its first action's table and
    /// entity type.
    pub(crate) fn operation(actions: &[Pending]) -> Operation<'_> {
        let first = actions.first().map(|action| &action.counted);
        Operation {
            name: "transaction",
            sends: "TransactWriteItems",
            table: first.map(|action| action.table.as_str()).unwrap_or_default(),
            entity: first.map(|action| action.entity.name).unwrap_or_default(),
            definition: first.map(|action| action.definition),
        }
    }
}

/// A kind of write that can be one action of a transaction.
pub(crate) trait TransactAction: Sized {
    /// The action as DynamoDB's transaction API takes it; the stored item is returned when the
    /// condition fails.
    fn transact_item(request: WriteRequest<Self>) -> Result<TransactWriteItem, BuildError>;
}

impl TransactAction for PutAction {
    fn transact_item(request: WriteRequest<Self>) -> Result<TransactWriteItem, BuildError> {
        let put = types::Put::builder()
            .table_name(request.table)
            .set_item(Some(request.action.item))
            .set_condition_expression(request.condition)
            .set_expression_attribute_names(request.names)
            .set_expression_attribute_values(request.values)
            .return_values_on_condition_check_failure(ALL_OLD)
            .build()?;
        Ok(TransactWriteItem::builder().put(put).build())
    }
}

impl TransactAction for UpdateAction {
    /// An update without changes (possible for entities without a version) only checks its
    /// condition, which always includes the must-exist guard.
    fn transact_item(mut request: WriteRequest<Self>) -> Result<TransactWriteItem, BuildError> {
        let Some(expression) = request.action.expression.take() else {
            let key = std::mem::take(&mut request.action.key);
            return CheckAction::transact_item(request.with_action(CheckAction { key }));
        };
        let WriteRequest { table, action, condition, names, values, .. } = request;
        let update = types::Update::builder()
            .table_name(table)
            .set_key(Some(action.key))
            .update_expression(expression)
            .set_condition_expression(condition)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .return_values_on_condition_check_failure(ALL_OLD)
            .build()?;
        Ok(TransactWriteItem::builder().update(update).build())
    }
}

impl TransactAction for DeleteAction {
    fn transact_item(request: WriteRequest<Self>) -> Result<TransactWriteItem, BuildError> {
        let delete = types::Delete::builder()
            .table_name(request.table)
            .set_key(Some(request.action.key))
            .set_condition_expression(request.condition)
            .set_expression_attribute_names(request.names)
            .set_expression_attribute_values(request.values)
            .return_values_on_condition_check_failure(ALL_OLD)
            .build()?;
        Ok(TransactWriteItem::builder().delete(delete).build())
    }
}

impl TransactAction for CheckAction {
    fn transact_item(request: WriteRequest<Self>) -> Result<TransactWriteItem, BuildError> {
        let check = ConditionCheck::builder()
            .table_name(request.table)
            .set_key(Some(request.action.key))
            .set_condition_expression(request.condition)
            .set_expression_attribute_names(request.names)
            .set_expression_attribute_values(request.values)
            .return_values_on_condition_check_failure(ALL_OLD)
            .build()?;
        Ok(TransactWriteItem::builder().condition_check(check).build())
    }
}

/// The size an action adds to a transaction: its item or key, its expressions and their
/// attribute names and values, counted as DynamoDB counts item sizes.
fn action_bytes(action: &TransactWriteItem) -> usize {
    let values = |values: Option<&std::collections::HashMap<String, types::AttributeValue>>| {
        values.map_or(0, |values| values.iter().map(|(name, value)| name.len() + value_size(value)).sum())
    };
    let names = |names: Option<&std::collections::HashMap<String, String>>| {
        names.map_or(0, |names| names.iter().map(|(placeholder, name)| placeholder.len() + name.len()).sum())
    };
    let text = |text: Option<&str>| text.map_or(0, str::len);
    let mut bytes = 0;
    if let Some(put) = &action.put {
        bytes += item_size(&put.item) + text(put.condition_expression.as_deref());
        bytes +=
            names(put.expression_attribute_names.as_ref()) + values(put.expression_attribute_values.as_ref());
    }
    if let Some(update) = &action.update {
        bytes += item_size(&update.key)
            + update.update_expression.len()
            + text(update.condition_expression.as_deref());
        bytes += names(update.expression_attribute_names.as_ref())
            + values(update.expression_attribute_values.as_ref());
    }
    if let Some(delete) = &action.delete {
        bytes += item_size(&delete.key) + text(delete.condition_expression.as_deref());
        bytes += names(delete.expression_attribute_names.as_ref())
            + values(delete.expression_attribute_values.as_ref());
    }
    if let Some(check) = &action.condition_check {
        bytes += item_size(&check.key) + check.condition_expression.len();
        bytes += names(check.expression_attribute_names.as_ref())
            + values(check.expression_attribute_values.as_ref());
    }
    bytes
}

/// A request the SDK refused to build (a required member missing).
fn build_error(error: BuildError) -> Error {
    Error::from_build("TransactWriteItems", error)
}

/// Rejects, before sending, a transaction over DynamoDB's limits (100 actions, 4 MB) or with two
/// actions on one item.
pub(crate) fn check(actions: &[Pending]) -> Result<()> {
    if actions.len() > MAX_TRANSACTION_ACTIONS {
        return Err(Error::TransactionTooLarge { actions: actions.len(), max: MAX_TRANSACTION_ACTIONS });
    }
    let bytes = actions.iter().map(|action| action.bytes).sum();
    if bytes > MAX_TRANSACTION_BYTES {
        return Err(Error::TransactionTooBig { bytes, max: MAX_TRANSACTION_BYTES });
    }
    let mut seen = HashSet::with_capacity(actions.len());
    for action in actions {
        if !seen.insert((action.table.as_str(), &action.key)) {
            return Err(Error::DuplicateTransactionKey {
                table: action.table.clone(),
                key: action.key.clone(),
            });
        }
    }
    Ok(())
}

/// Sends the actions as one `TransactWriteItems` request.
pub(crate) async fn send(db: &Db, actions: Vec<Pending>, token: Option<String>) -> Result<()> {
    for action in &actions {
        db.record_buckets(&action.buckets).await?;
    }
    let mut items = Vec::with_capacity(actions.len());
    let mut targets = Vec::with_capacity(actions.len());
    let mut counted = Vec::with_capacity(actions.len());
    for action in actions {
        items.push(action.item);
        targets.push((action.table, action.key, action.explain));
        counted.push(action.counted);
    }
    let result = db
        .client()
        .transact_write_items()
        .set_transact_items(Some(items))
        .set_client_request_token(token)
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        .send()
        .await;
    match result {
        Ok(output) => {
            let consumed = output.consumed_capacity.as_deref().unwrap_or_default();
            count_actions(db.meter(), Kind::Write, &counted, consumed);
            Ok(())
        }
        Err(error) => match error.as_service_error() {
            Some(TransactWriteItemsError::TransactionCanceledException(canceled)) => {
                Err(canceled_error(targets, canceled.cancellation_reasons()))
            }
            _ => Err(Error::from_sdk("TransactWriteItems", error)),
        },
    }
}

/// Pairs DynamoDB's reasons (one per action, in order) with the actions, and explains failed
/// conditions the way the single-item operation would.
fn canceled_error(
    targets: Vec<(String, PrimaryKey, Explain)>,
    reasons: &[types::CancellationReason],
) -> Error {
    let reasons = targets
        .into_iter()
        .enumerate()
        .map(|(action, (table, key, explain))| {
            let reason = reasons.get(action);
            let code = ReasonCode::parse(reason.and_then(types::CancellationReason::code));
            let item =
                reason.and_then(types::CancellationReason::item).filter(|item| !item.is_empty()).cloned();
            let message = reason.and_then(types::CancellationReason::message).map(str::to_owned);
            let too_large = message.as_deref().is_some_and(crate::error::sdk::grew_too_large);
            let error = match code {
                ReasonCode::ConditionalCheckFailed => Some(Box::new(explain.failure(item.clone()))),
                _ if too_large => {
                    Some(Box::new(Error::UpdatedItemTooLarge { max: crate::item_size::MAX_ITEM_BYTES }))
                }
                _ => None,
            };
            CancellationReason { action, table, key, code, message, item: item.map(Box::new), error }
        })
        .collect();
    Error::TransactionCanceled { reasons }
}
