//! Metering `BatchGetItem`: each key admitted on its own, refused keys handed back unprocessed.

use super::charge::Charge;
use super::reads::full_sizes;
use super::reply::Reply;
use super::schema::TableSchema;
use super::state::Shared;
use super::wire::{key_values, wire_item_size, BatchRequest, WireItem};
use super::writes::{schema_or_none, Handled};
use bytes::Bytes;
use dynashard::throttling::ThrottlingReason;
use hyper::HeaderMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// DynamoDB's most keys in one `BatchGetItem`; a larger one is forwarded for it to refuse.
const MAX_BATCH_KEYS: usize = 100;

/// The sizes of the items answered for `keys` (0 where none was).
fn answered_sizes(schema: &TableSchema, keys: &[WireItem], items: &[WireItem]) -> Vec<usize> {
    let names = schema.key.names();
    keys.iter()
        .map(|key| {
            let wanted = key_values(key, &names);
            items.iter().find(|item| key_values(item, &names) == wanted).map_or(0, wire_item_size)
        })
        .collect()
}

/// One table's part of a `BatchGetItem`.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct KeysAndAttributes {
    #[serde(rename = "Keys")]
    keys: Vec<WireItem>,
    #[serde(rename = "ConsistentRead", default, skip_serializing_if = "Option::is_none")]
    consistent_read: Option<bool>,
    #[serde(flatten)]
    rest: Map<String, Value>,
}

type BatchGetBody = BatchRequest<KeysAndAttributes>;

#[derive(Debug, Serialize, Deserialize)]
struct BatchGetAnswer {
    #[serde(rename = "Responses", default)]
    responses: BTreeMap<String, Vec<WireItem>>,
    #[serde(rename = "UnprocessedKeys", default)]
    unprocessed: BTreeMap<String, KeysAndAttributes>,
    #[serde(flatten)]
    rest: Map<String, Value>,
}

/// `BatchGetItem`: each key admitted on its own; refused keys come back unprocessed, and a batch
/// of which nothing is admitted fails with `ProvisionedThroughputExceededException`.
pub(crate) async fn batch(shared: &Shared, headers: &HeaderMap, body: Bytes) -> Handled {
    let Ok(request) = serde_json::from_slice::<BatchGetBody>(&body) else { return Ok(None) };
    if request.request_items.values().map(|part| part.keys.len()).sum::<usize>() > MAX_BATCH_KEYS {
        return Ok(None); // DynamoDB refuses it
    }
    // Every table is described before anything is admitted, so a request the emulator cannot
    // read takes nothing.
    let mut schemas = BTreeMap::new();
    for table in request.request_items.keys() {
        let Some(schema) = schema_or_none(shared, headers, table).await? else { return Ok(None) };
        schemas.insert(table.clone(), schema);
    }
    let Admission { admitted, refused, reasons, taken } = admit(shared, &request, &schemas);
    if !refused.is_empty() {
        shared.count_throttled_request();
    }
    if admitted.is_empty() && !refused.is_empty() {
        return Ok(Some(Reply::throttled(&reasons)));
    }
    let forwarded = BatchGetBody { request_items: admitted.clone(), rest: request.rest };
    let Ok(forwarded) = serde_json::to_vec(&forwarded) else {
        shared.settle(&taken, &[]);
        return Ok(None);
    };
    let answer = shared
        .upstream
        .send(headers, Bytes::from(forwarded))
        .await
        .inspect_err(|_| shared.settle(&taken, &[]))?;
    if !answer.status.is_success() {
        shared.settle(&taken, &[]);
        return Ok(Some(Reply::forward(answer)));
    }
    // The keys were read: whatever happens now, the answer goes back, with the refused keys.
    let mut merged = serde_json::from_slice::<BatchGetAnswer>(&answer.body).unwrap_or_else(|_| {
        BatchGetAnswer { responses: BTreeMap::new(), unprocessed: BTreeMap::new(), rest: Map::new() }
    });
    let mut actual = Vec::with_capacity(taken.len());
    for (table, part) in &admitted {
        let Some(schema) = schemas.get(table) else { continue };
        let consistent = part.consistent_read.unwrap_or(false);
        let projected =
            part.rest.contains_key("ProjectionExpression") || part.rest.contains_key("AttributesToGet");
        let answered =
            answered_sizes(schema, &part.keys, merged.responses.get(table).map_or(&[], Vec::as_slice));
        let sizes = match projected {
            true => full_sizes(shared, headers, schema, &part.keys).await.unwrap_or(answered),
            false => answered,
        };
        for (key, size) in part.keys.iter().zip(sizes) {
            actual.push(schema.read_charge(None, schema.key.partition(key), size, consistent));
        }
    }
    shared.settle(&taken, &actual);
    if refused.is_empty() {
        return Ok(Some(Reply::forward(answer)));
    }
    for (table, part) in refused {
        match merged.unprocessed.get_mut(&table) {
            Some(existing) => existing.keys.extend(part.keys),
            None => {
                merged.unprocessed.insert(table, part);
            }
        }
    }
    let body = serde_json::to_vec(&merged).unwrap_or_default();
    Ok(Some(Reply::rewritten(answer, body)))
}

/// The keys of a batch read, split by whether the partition-limit admitted them.
struct Admission {
    admitted: BTreeMap<String, KeysAndAttributes>,
    refused: BTreeMap<String, KeysAndAttributes>,
    /// Why keys were refused, each reason once.
    reasons: Vec<ThrottlingReason>,
    /// The charges of the admitted keys, to settle once their sizes are known.
    taken: Vec<Charge>,
}

/// Admits each key of `request` on its own.
fn admit(shared: &Shared, request: &BatchGetBody, schemas: &BTreeMap<String, Arc<TableSchema>>) -> Admission {
    let mut admitted: BTreeMap<String, KeysAndAttributes> = BTreeMap::new();
    let mut refused: BTreeMap<String, KeysAndAttributes> = BTreeMap::new();
    let mut reasons = Vec::new();
    let mut taken: Vec<Charge> = Vec::new();
    for (table, part) in &request.request_items {
        let Some(schema) = schemas.get(table) else { continue };
        let consistent = part.consistent_read.unwrap_or(false);
        for key in &part.keys {
            let charge = schema.read_charge(None, schema.key.partition(key), 0, consistent);
            let target = match shared.admit(std::slice::from_ref(&charge)) {
                Ok(()) => {
                    taken.push(charge);
                    &mut admitted
                }
                Err(refusal) => {
                    for reason in refusal.reasons {
                        if !reasons.contains(&reason) {
                            reasons.push(reason);
                        }
                    }
                    &mut refused
                }
            };
            let entry = target
                .entry(table.clone())
                .or_insert_with(|| KeysAndAttributes { keys: Vec::new(), ..part.clone() });
            entry.keys.push(key.clone());
        }
    }
    Admission { admitted, refused, reasons, taken }
}
