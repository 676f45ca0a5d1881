//! Metering writes: `PutItem`, `UpdateItem`, `DeleteItem`, `BatchWriteItem` and
//! `TransactWriteItems`.
//!
//! The item before the write is read first (unmetered), so that the write is admitted on every
//! partition it will touch, index partitions included, and charged the larger of its sizes. An
//! update's item after the write is read again once it succeeded, and the charge settled on it.

use super::charge::Charge;
use super::reply::Reply;
use super::schema::TableSchema;
use super::state::Shared;
use super::upstream::{Answer, UpstreamError};
use super::wire::{BatchRequest, WireItem};
use super::write_plan::{key_of, ItemWrite, WriteKind};
use bytes::Bytes;
use hyper::HeaderMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// DynamoDB's most writes in one `BatchWriteItem`; a larger one is forwarded for it to refuse.
const MAX_BATCH_WRITES: usize = 25;
/// DynamoDB's most actions in one transaction.
pub(crate) const MAX_TRANSACTION_ACTIONS: usize = 100;

/// How a handler ends: an answer, or "forward unmetered" when the request is not one the
/// emulator can read (the endpoint then answers it, usually with a validation error).
pub(crate) type Handled = Result<Option<Reply>, UpstreamError>;

/// The schema of `table`; `None` when the endpoint refuses to describe it (a table that does
/// not exist: the request is forwarded for the endpoint to answer).
pub(crate) async fn schema_or_none(
    shared: &Shared,
    headers: &HeaderMap,
    table: &str,
) -> Result<Option<Arc<TableSchema>>, UpstreamError> {
    unless_refused(shared.schema(headers, table).await)
}

/// `None` for a request the endpoint refused (it answers the client's request the same way).
fn unless_refused<T>(result: Result<T, UpstreamError>) -> Result<Option<T>, UpstreamError> {
    match result {
        Ok(value) => Ok(Some(value)),
        Err(UpstreamError::Refused { .. }) => Ok(None),
        Err(error) => Err(error),
    }
}

/// Reads the items before a write; `None` when the endpoint refuses (invalid keys).
async fn items_before(
    shared: &Shared,
    headers: &HeaderMap,
    schema: &TableSchema,
    keys: &[WireItem],
) -> Result<Option<Vec<Option<WireItem>>>, UpstreamError> {
    unless_refused(shared.upstream.read_items(headers, &schema.name, &schema.key.names(), keys).await)
}

/// The item after a successful update, read again; `None` when it cannot be read (then the
/// estimate stands).
async fn item_after(
    shared: &Shared,
    headers: &HeaderMap,
    schema: &TableSchema,
    key: &WireItem,
) -> Option<Option<WireItem>> {
    let read = items_before(shared, headers, schema, std::slice::from_ref(key)).await;
    read.ok().flatten().map(|mut items| items.pop().flatten())
}

/// Sends the request; gives back what admission took when it cannot be sent.
async fn send_admitted(
    shared: &Shared,
    headers: &HeaderMap,
    body: Bytes,
    estimate: &[Charge],
) -> Result<Answer, UpstreamError> {
    shared.upstream.send(headers, body).await.inspect_err(|_| shared.settle(estimate, &[]))
}

/// `PutItem`, `UpdateItem`, `DeleteItem`.
pub(crate) async fn single(shared: &Shared, headers: &HeaderMap, body: Bytes, kind: WriteKind) -> Handled {
    let Ok(write) = serde_json::from_slice::<ItemWrite>(&body) else { return Ok(None) };
    let Some(schema) = schema_or_none(shared, headers, &write.table_name).await? else { return Ok(None) };
    let Some(key) = write.key(&schema, kind) else { return Ok(None) };
    let Some(mut before) = items_before(shared, headers, &schema, std::slice::from_ref(&key)).await? else {
        return Ok(None);
    };
    let before = before.pop().flatten();
    let after = write.after(kind, &key, before.as_ref());
    let estimate = schema.write_charges(before.as_ref(), after.as_ref(), false);
    if let Err(refusal) = shared.admit_request(&estimate) {
        return Ok(Some(Reply::throttled(&refusal.reasons)));
    }
    let answer = send_admitted(shared, headers, body, &estimate).await?;
    let actual = if answer.status.is_success() {
        match kind {
            WriteKind::Update => match item_after(shared, headers, &schema, &key).await {
                Some(after) => schema.write_charges(before.as_ref(), after.as_ref(), false),
                None => estimate.clone(),
            },
            _ => estimate.clone(),
        }
    } else if answer.error_code().as_deref() == Some("ConditionalCheckFailedException") {
        schema.failed_write_charges(&key, before.as_ref(), false)
    } else {
        Vec::new()
    };
    shared.settle(&estimate, &actual);
    Ok(Some(Reply::forward(answer)))
}

/// A `BatchWriteItem` request: raw entries per table, the rest as it came.
type BatchWriteBody = BatchRequest<Vec<Value>>;

/// A `BatchWriteItem` answer: its unprocessed entries, the rest as it came.
#[derive(Debug, Serialize, Deserialize)]
struct BatchWriteAnswer {
    #[serde(rename = "UnprocessedItems", default)]
    unprocessed: BTreeMap<String, Vec<Value>>,
    #[serde(flatten)]
    rest: Map<String, Value>,
}

#[derive(Debug, Deserialize)]
struct WriteEntry {
    #[serde(rename = "PutRequest")]
    put: Option<Holder>,
    #[serde(rename = "DeleteRequest")]
    delete: Option<Holder>,
}

#[derive(Debug, Deserialize)]
struct Holder {
    #[serde(rename = "Item")]
    item: Option<WireItem>,
    #[serde(rename = "Key")]
    key: Option<WireItem>,
}

/// `BatchWriteItem`: each entry admitted on its own; refused entries come back unprocessed, as
/// DynamoDB returns them under partition pressure, and a batch of which nothing is admitted
/// fails with `ProvisionedThroughputExceededException`. Everything is read before anything is
/// admitted, so a request the emulator cannot read takes nothing.
pub(crate) async fn batch(shared: &Shared, headers: &HeaderMap, body: Bytes) -> Handled {
    let Ok(request) = serde_json::from_slice::<BatchWriteBody>(&body) else { return Ok(None) };
    if request.request_items.values().map(Vec::len).sum::<usize>() > MAX_BATCH_WRITES {
        return Ok(None); // DynamoDB refuses it
    }
    let mut planned = Vec::new();
    for (table, entries) in &request.request_items {
        let Some(schema) = schema_or_none(shared, headers, table).await? else { return Ok(None) };
        let mut writes = Vec::with_capacity(entries.len());
        for entry in entries {
            let Ok(entry) = serde_json::from_value::<WriteEntry>(entry.clone()) else { return Ok(None) };
            let write = match (entry.put.and_then(|put| put.item), entry.delete.and_then(|delete| delete.key))
            {
                (Some(item), None) => (key_of(&schema, &item), Some(item)),
                (None, Some(key)) => (key, None),
                _ => return Ok(None),
            };
            writes.push(write);
        }
        let keys: Vec<WireItem> = writes.iter().map(|(key, _)| key.clone()).collect();
        let Some(before) = items_before(shared, headers, &schema, &keys).await? else { return Ok(None) };
        planned.push((table, entries, schema, writes, before));
    }
    let mut admitted: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let mut refused: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let mut reasons = Vec::new();
    let mut taken: Vec<Charge> = Vec::new();
    for (table, entries, schema, writes, before) in &planned {
        for ((entry, (_, after)), before) in entries.iter().zip(writes).zip(before) {
            let charges = schema.write_charges(before.as_ref(), after.as_ref(), false);
            match shared.admit(&charges) {
                Ok(()) => {
                    admitted.entry((*table).clone()).or_default().push(entry.clone());
                    taken.extend(charges);
                }
                Err(refusal) => {
                    refused.entry((*table).clone()).or_default().push(entry.clone());
                    for reason in refusal.reasons {
                        if !reasons.contains(&reason) {
                            reasons.push(reason);
                        }
                    }
                }
            }
        }
    }
    if !refused.is_empty() {
        shared.count_throttled_request();
    }
    if admitted.is_empty() && !refused.is_empty() {
        return Ok(Some(Reply::throttled(&reasons)));
    }
    let forwarded = BatchWriteBody { request_items: admitted, rest: request.rest };
    let Ok(forwarded) = serde_json::to_vec(&forwarded) else {
        shared.settle(&taken, &[]);
        return Ok(None);
    };
    let answer = send_admitted(shared, headers, Bytes::from(forwarded), &taken).await?;
    if !answer.status.is_success() {
        shared.settle(&taken, &[]);
        return Ok(Some(Reply::forward(answer)));
    }
    if refused.is_empty() {
        return Ok(Some(Reply::forward(answer)));
    }
    // The writes were applied: whatever the answer holds, the refused entries must reach the
    // caller as unprocessed.
    let mut merged = serde_json::from_slice::<BatchWriteAnswer>(&answer.body)
        .unwrap_or_else(|_| BatchWriteAnswer { unprocessed: BTreeMap::new(), rest: Map::new() });
    for (table, entries) in refused {
        merged.unprocessed.entry(table).or_default().extend(entries);
    }
    let body = serde_json::to_vec(&merged).unwrap_or_default();
    Ok(Some(Reply::rewritten(answer, body)))
}

/// A `TransactWriteItems` request, as far as the emulator reads it.
#[derive(Debug, Deserialize)]
struct TransactWriteBody {
    #[serde(rename = "TransactItems")]
    items: Vec<TransactAction>,
}

#[derive(Debug, Deserialize)]
struct TransactAction {
    #[serde(rename = "Put")]
    put: Option<ItemWrite>,
    #[serde(rename = "Update")]
    update: Option<ItemWrite>,
    #[serde(rename = "Delete")]
    delete: Option<ItemWrite>,
    #[serde(rename = "ConditionCheck")]
    check: Option<ItemWrite>,
}

impl TransactAction {
    fn write(self) -> Option<(ItemWrite, WriteKind)> {
        match (self.put, self.update, self.delete, self.check) {
            (Some(write), None, None, None) => Some((write, WriteKind::Put)),
            (None, Some(write), None, None) => Some((write, WriteKind::Update)),
            (None, None, Some(write), None) => Some((write, WriteKind::Delete)),
            (None, None, None, Some(write)) => Some((write, WriteKind::Check)),
            _ => None,
        }
    }
}

/// One action of a transaction, with the item it addresses as stored before.
struct Action {
    schema: Arc<TableSchema>,
    write: ItemWrite,
    kind: WriteKind,
    key: WireItem,
    before: Option<WireItem>,
}

/// The stored items of the `actions` that `wanted` picks (`None` for the others), read with one
/// request per table; `None` when the endpoint refuses (invalid keys).
async fn items_of(
    shared: &Shared,
    headers: &HeaderMap,
    actions: &[Action],
    wanted: impl Fn(&Action) -> bool,
) -> Result<Option<Vec<Option<WireItem>>>, UpstreamError> {
    let mut items = vec![None; actions.len()];
    let mut tables: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (at, action) in actions.iter().enumerate().filter(|(_, action)| wanted(action)) {
        tables.entry(action.schema.name.as_str()).or_default().push(at);
    }
    for positions in tables.values() {
        let schema = &actions[positions[0]].schema;
        let keys: Vec<WireItem> = positions.iter().map(|at| actions[*at].key.clone()).collect();
        let Some(read) = items_before(shared, headers, schema, &keys).await? else { return Ok(None) };
        for (at, item) in positions.iter().zip(read) {
            items[*at] = item;
        }
    }
    Ok(Some(items))
}

/// `TransactWriteItems`: admitted whole or not at all, at twice the units; a refused one fails
/// with `TransactionCanceledException`, `ThrottlingError` for the actions over a limit. A
/// cancelled transaction is not charged.
pub(crate) async fn transaction(shared: &Shared, headers: &HeaderMap, body: Bytes) -> Handled {
    let Ok(request) = serde_json::from_slice::<TransactWriteBody>(&body) else { return Ok(None) };
    if request.items.len() > MAX_TRANSACTION_ACTIONS {
        return Ok(None); // DynamoDB refuses it
    }
    let mut actions = Vec::with_capacity(request.items.len());
    for action in request.items {
        let Some((write, kind)) = action.write() else { return Ok(None) };
        let Some(schema) = schema_or_none(shared, headers, &write.table_name).await? else { return Ok(None) };
        let Some(key) = write.key(&schema, kind) else { return Ok(None) };
        actions.push(Action { schema, write, kind, key, before: None });
    }
    let Some(before) = items_of(shared, headers, &actions, |_| true).await? else { return Ok(None) };
    for (action, before) in actions.iter_mut().zip(before) {
        action.before = before;
    }
    let charges_of = |action: &Action| {
        let before = action.before.as_ref();
        match action.kind {
            WriteKind::Check => action.schema.failed_write_charges(&action.key, before, true),
            kind => action.schema.write_charges(
                before,
                action.write.after(kind, &action.key, before).as_ref(),
                true,
            ),
        }
    };
    let per_action: Vec<Vec<Charge>> = actions.iter().map(charges_of).collect();
    let estimate: Vec<Charge> = per_action.iter().flatten().cloned().collect();
    if let Err(refusal) = shared.admit_request(&estimate) {
        // Charge positions in `estimate` back to the actions they belong to.
        let mut first = 0;
        let throttled: Vec<bool> = per_action
            .iter()
            .map(|charges| {
                let range = first..first + charges.len();
                first = range.end;
                refusal.charges.iter().any(|at| range.contains(at))
            })
            .collect();
        return Ok(Some(Reply::transaction_throttled(&throttled)));
    }
    let answer = send_admitted(shared, headers, body, &estimate).await?;
    if !answer.status.is_success() {
        shared.settle(&estimate, &[]);
        return Ok(Some(Reply::forward(answer)));
    }
    // Updates are read again, table by table; a read that fails leaves their estimates.
    let updated = |action: &Action| action.kind == WriteKind::Update;
    let after = items_of(shared, headers, &actions, updated).await.ok().flatten();
    let mut actual = Vec::with_capacity(estimate.len());
    for (at, (action, charges)) in actions.iter().zip(per_action).enumerate() {
        match after.as_ref().filter(|_| updated(action)).and_then(|after| after.get(at)) {
            Some(after) => {
                actual.extend(action.schema.write_charges(action.before.as_ref(), after.as_ref(), true))
            }
            None => actual.extend(charges),
        }
    }
    shared.settle(&estimate, &actual);
    Ok(Some(Reply::forward(answer)))
}
