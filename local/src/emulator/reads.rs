//! Metering reads: `GetItem`, `Query`, `Scan` and `TransactGetItems` (`BatchGetItem`: [`super::batch_reads`]).
//!
//! A read is admitted while its partition has capacity, then charged what it read: the whole
//! item for a get, every item evaluated for a query or scan. When a projection, a filter or
//! `Select` makes the answer smaller than what was read, the emulator reads the same again
//! without them (unmetered) to know the size.

use super::charge::Charge;
use super::expression::{equalities, placeholders};
use super::reply::Reply;
use super::schema::TableSchema;
use super::state::Shared;
use super::upstream::UpstreamError;
use super::wire::{wire_item_size, WireItem, WireValue};
use super::writes::{schema_or_none, Handled};
use bytes::Bytes;
use hyper::HeaderMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ItemRead {
    table_name: String,
    key: WireItem,
    #[serde(default)]
    consistent_read: bool,
    #[serde(default)]
    projection_expression: Option<String>,
    #[serde(default)]
    attributes_to_get: Option<Vec<String>>,
}

impl ItemRead {
    /// Whether the answer holds less of the item than was read.
    fn projected(&self) -> bool {
        self.projection_expression.is_some() || self.attributes_to_get.is_some()
    }
}

/// Parameters of the legacy API that make an answer smaller than what was read.
const LEGACY_NARROWING: [&str; 4] = ["QueryFilter", "ScanFilter", "AttributesToGet", "ConditionalOperator"];

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ItemAnswer {
    #[serde(default)]
    item: Option<WireItem>,
}

/// The full sizes of the items under `keys` (0 where there is none).
pub(crate) async fn full_sizes(
    shared: &Shared,
    headers: &HeaderMap,
    schema: &TableSchema,
    keys: &[WireItem],
) -> Result<Vec<usize>, UpstreamError> {
    let items = shared.upstream.read_items(headers, &schema.name, &schema.key.names(), keys).await?;
    Ok(items.iter().map(|item| item.as_ref().map_or(0, wire_item_size)).collect())
}

/// `GetItem`.
pub(crate) async fn get(shared: &Shared, headers: &HeaderMap, body: Bytes) -> Handled {
    let Ok(read) = serde_json::from_slice::<ItemRead>(&body) else { return Ok(None) };
    let Some(schema) = schema_or_none(shared, headers, &read.table_name).await? else { return Ok(None) };
    let partition = schema.key.partition(&read.key);
    let estimate = [schema.read_charge(None, partition.clone(), 0, read.consistent_read)];
    if let Err(refusal) = shared.admit_request(&estimate) {
        return Ok(Some(Reply::throttled(&refusal.reasons)));
    }
    let answer = shared.upstream.send(headers, body).await.inspect_err(|_| shared.settle(&estimate, &[]))?;
    let actual = if answer.status.is_success() {
        // Once read, the answer goes back whatever happens: a size not measured counts as none.
        let size = match read.projected() {
            true => full_sizes(shared, headers, &schema, std::slice::from_ref(&read.key))
                .await
                .ok()
                .and_then(|mut sizes| sizes.pop())
                .unwrap_or(0),
            false => serde_json::from_slice::<ItemAnswer>(&answer.body)
                .ok()
                .and_then(|answer| answer.item)
                .map_or(0, |item| wire_item_size(&item)),
        };
        vec![schema.read_charge(None, partition, size, read.consistent_read)]
    } else {
        Vec::new()
    };
    shared.settle(&estimate, &actual);
    Ok(Some(Reply::forward(answer)))
}

/// A `Query` or `Scan` request: what the emulator reads, and the rest as it came.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Search {
    table_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    index_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    key_condition_expression: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    filter_expression: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    projection_expression: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    select: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    consistent_read: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    expression_attribute_names: Option<HashMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    expression_attribute_values: Option<BTreeMap<String, WireValue>>,
    #[serde(flatten)]
    rest: Map<String, Value>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct SearchAnswer {
    #[serde(default)]
    items: Vec<WireItem>,
}

impl Search {
    /// The partition a query reads: its key condition's values of the partition key attributes.
    fn partition(&self, schema: &TableSchema) -> Option<String> {
        let key = match &self.index_name {
            Some(index) => &schema.index(index)?.key,
            None => &schema.key,
        };
        let no_names = HashMap::new();
        let names = self.expression_attribute_names.as_ref().unwrap_or(&no_names);
        let fixed = equalities(self.key_condition_expression.as_deref()?, names);
        let values = self.expression_attribute_values.as_ref()?;
        let mut parts = Vec::with_capacity(key.hash.len());
        for attribute in &key.hash {
            let (_, placeholder) = fixed.iter().find(|(name, _)| name == attribute)?;
            parts.push(values.get(*placeholder)?.key_text()?);
        }
        Some(parts.join("#"))
    }

    /// Whether the answer holds every item evaluated, whole.
    fn answers_whole(&self) -> bool {
        self.filter_expression.is_none()
            && self.projection_expression.is_none()
            && !LEGACY_NARROWING.iter().any(|name| self.rest.contains_key(*name))
            && self
                .select
                .as_deref()
                .is_none_or(|select| select == "ALL_ATTRIBUTES" || select == "ALL_PROJECTED_ATTRIBUTES")
    }

    /// The same search without filter, projection and `Select`, keeping only the placeholders
    /// the key condition uses (DynamoDB refuses unused ones).
    fn unfiltered(&self) -> Self {
        let mut search = self.clone();
        search.filter_expression = None;
        search.projection_expression = None;
        search.select = None;
        for name in LEGACY_NARROWING {
            search.rest.remove(name);
        }
        let used = placeholders(search.key_condition_expression.as_deref());
        if let Some(names) = &mut search.expression_attribute_names {
            names.retain(|name, _| used.contains(name.as_str()));
        }
        if let Some(values) = &mut search.expression_attribute_values {
            values.retain(|name, _| used.contains(name.as_str()));
        }
        search.expression_attribute_names =
            search.expression_attribute_names.filter(|names| !names.is_empty());
        search.expression_attribute_values =
            search.expression_attribute_values.filter(|values| !values.is_empty());
        search
    }
}

/// `Query` (one partition of the table or an index) and `Scan` (the whole table or index).
pub(crate) async fn search(
    shared: &Shared,
    headers: &HeaderMap,
    body: Bytes,
    operation: &'static str,
) -> Handled {
    let Ok(search) = serde_json::from_slice::<Search>(&body) else { return Ok(None) };
    let Some(schema) = schema_or_none(shared, headers, &search.table_name).await? else { return Ok(None) };
    let partition = match operation {
        "Query" => match search.partition(&schema) {
            Some(partition) => Some(partition),
            None => return Ok(None),
        },
        _ => None,
    };
    let global = search.index_name.as_deref().is_some_and(|index| !schema.is_local(index));
    let consistent = search.consistent_read.unwrap_or(false) && !global;
    let index = search.index_name.as_deref();
    let estimate = [schema.read_charge(index, partition.clone(), 0, consistent)];
    if let Err(refusal) = shared.admit_request(&estimate) {
        return Ok(Some(Reply::throttled(&refusal.reasons)));
    }
    let answer = shared.upstream.send(headers, body).await.inspect_err(|_| shared.settle(&estimate, &[]))?;
    if !answer.status.is_success() {
        shared.settle(&estimate, &[]);
        return Ok(Some(Reply::forward(answer)));
    }
    let items = if search.answers_whole() {
        serde_json::from_slice::<SearchAnswer>(&answer.body).map(|answer| answer.items).unwrap_or_default()
    } else {
        match shared.upstream.call::<_, SearchAnswer>(headers, operation, &search.unfiltered()).await {
            Ok(measured) => measured.items,
            Err(_) => Vec::new(), // charged the least, as if nothing was read
        }
    };
    let bytes = items.iter().map(wire_item_size).sum();
    shared.settle(&estimate, &[schema.read_charge(index, partition, bytes, consistent)]);
    Ok(Some(Reply::forward(answer)))
}

#[derive(Debug, Deserialize)]
struct TransactGetBody {
    #[serde(rename = "TransactItems")]
    items: Vec<TransactGet>,
}

#[derive(Debug, Deserialize)]
struct TransactGet {
    #[serde(rename = "Get")]
    get: ItemRead,
}

/// `TransactGetItems`: admitted whole or not at all, at twice the units of strongly consistent
/// reads.
pub(crate) async fn transaction(shared: &Shared, headers: &HeaderMap, body: Bytes) -> Handled {
    let Ok(request) = serde_json::from_slice::<TransactGetBody>(&body) else { return Ok(None) };
    if request.items.len() > super::writes::MAX_TRANSACTION_ACTIONS {
        return Ok(None); // DynamoDB refuses it
    }
    let mut reads = Vec::with_capacity(request.items.len());
    for item in request.items {
        let Some(schema) = schema_or_none(shared, headers, &item.get.table_name).await? else {
            return Ok(None);
        };
        reads.push((schema, item.get.key));
    }
    let doubled = |mut charge: Charge| {
        charge.units *= 2.0;
        charge
    };
    let estimate: Vec<Charge> = reads
        .iter()
        .map(|(schema, key)| doubled(schema.read_charge(None, schema.key.partition(key), 0, true)))
        .collect();
    if let Err(refusal) = shared.admit_request(&estimate) {
        // One charge per action.
        let throttled: Vec<bool> = (0..estimate.len()).map(|at| refusal.charges.contains(&at)).collect();
        return Ok(Some(Reply::transaction_throttled(&throttled)));
    }
    let answer = shared.upstream.send(headers, body).await.inspect_err(|_| shared.settle(&estimate, &[]))?;
    if !answer.status.is_success() {
        shared.settle(&estimate, &[]);
        return Ok(Some(Reply::forward(answer)));
    }
    let mut actual = Vec::with_capacity(reads.len());
    for ((schema, key), estimated) in reads.iter().zip(&estimate) {
        // Once read, the answer goes back whatever happens: a size not measured is estimated.
        match full_sizes(shared, headers, schema, std::slice::from_ref(key))
            .await
            .ok()
            .and_then(|mut s| s.pop())
        {
            Some(size) => {
                actual.push(doubled(schema.read_charge(None, schema.key.partition(key), size, true)))
            }
            None => actual.push(estimated.clone()),
        }
    }
    shared.settle(&estimate, &actual);
    Ok(Some(Reply::forward(answer)))
}
