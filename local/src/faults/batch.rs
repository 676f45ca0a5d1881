//! Withholding part of a batch request and returning it as unprocessed, on the JSON wire format.

use super::error::FaultError;
use super::plan::choose_withheld;
use rand::rngs::StdRng;
use serde_json::{Map, Value};

/// The batch operations that can return unprocessed entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BatchKind {
    /// `BatchWriteItem`: `RequestItems` maps tables to lists of write requests.
    Write,
    /// `BatchGetItem`: `RequestItems` maps tables to `{"Keys": [...], ...}`.
    Get,
}

impl BatchKind {
    /// The batch kind of an operation name, if it is one.
    pub(crate) fn of(operation: &str) -> Option<Self> {
        match operation {
            "BatchWriteItem" => Some(Self::Write),
            "BatchGetItem" => Some(Self::Get),
            _ => None,
        }
    }

    fn operation(self) -> &'static str {
        match self {
            Self::Write => "BatchWriteItem",
            Self::Get => "BatchGetItem",
        }
    }

    fn unprocessed_field(self) -> &'static str {
        match self {
            Self::Write => "UnprocessedItems",
            Self::Get => "UnprocessedKeys",
        }
    }

    /// The entries of one table's request: the list itself, or the `Keys` of the table's object.
    fn entries(self, table_request: &mut Value) -> Option<&mut Vec<Value>> {
        match self {
            Self::Write => table_request.as_array_mut(),
            Self::Get => table_request.get_mut("Keys")?.as_array_mut(),
        }
    }
}

/// Entries taken out of a request, in the shape of the response's unprocessed field.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Withheld {
    kind: BatchKind,
    unprocessed: Map<String, Value>,
    count: usize,
}

impl Withheld {
    /// How many write requests or keys were withheld.
    pub(crate) fn count(&self) -> usize {
        self.count
    }
}

/// A batch request with some entries withheld.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Split {
    /// The request body that still goes out; `None` when every entry was withheld.
    pub remaining: Option<Vec<u8>>,
    /// What was taken out.
    pub withheld: Withheld,
}

/// Withholds a random subset of the entries of a batch request body. `None` when the body is not
/// a batch request with entries (the attempt then goes out untouched).
///
/// Tables are visited in name order, so the choice depends only on the seed and the request.
pub(crate) fn split(kind: BatchKind, body: &[u8], rng: &mut StdRng) -> Option<Split> {
    let mut request: Value = serde_json::from_slice(body).ok()?;
    let items = request.get_mut("RequestItems")?.as_object_mut()?;
    let mut tables: Vec<String> = items.keys().cloned().collect();
    tables.sort();
    let mut total = 0;
    for table in &tables {
        total += items.get_mut(table).and_then(|request| kind.entries(request)).map_or(0, |list| list.len());
    }
    if total == 0 {
        return None;
    }
    let mut flags = choose_withheld(rng, total).into_iter();
    let mut unprocessed = Map::new();
    let mut count = 0;
    for table in tables {
        let Some(table_request) = items.get_mut(&table) else { continue };
        let Some(entries) = kind.entries(table_request) else { continue };
        let (mut kept, mut taken) = (Vec::new(), Vec::new());
        for entry in entries.drain(..) {
            if flags.next().unwrap_or(false) {
                taken.push(entry);
            } else {
                kept.push(entry);
            }
        }
        *entries = kept;
        let emptied = entries.is_empty();
        if !taken.is_empty() {
            count += taken.len();
            let mut returned = table_request.clone();
            if let Some(entries) = kind.entries(&mut returned) {
                *entries = taken;
            }
            unprocessed.insert(table.clone(), returned);
        }
        if emptied {
            items.remove(&table);
        }
    }
    let remaining = match items.is_empty() {
        true => None,
        false => Some(serde_json::to_vec(&request).ok()?),
    };
    Some(Split { remaining, withheld: Withheld { kind, unprocessed, count } })
}

/// Adds the withheld entries to the unprocessed field of a successful response body.
pub(crate) fn merge(body: &[u8], withheld: Withheld) -> Result<Vec<u8>, FaultError> {
    let Withheld { kind, unprocessed, .. } = withheld;
    let invalid =
        |reason: &str| FaultError::ResponseBody { operation: kind.operation(), reason: reason.to_owned() };
    let mut response: Value = serde_json::from_slice(body).map_err(|e| invalid(&e.to_string()))?;
    let object = response.as_object_mut().ok_or_else(|| invalid("not a JSON object"))?;
    let field = object.entry(kind.unprocessed_field()).or_insert_with(|| Value::Object(Map::new()));
    let tables = field.as_object_mut().ok_or_else(|| invalid("the unprocessed field is not an object"))?;
    for (table, mut returned) in unprocessed {
        let Some(existing) = tables.get_mut(&table) else {
            tables.insert(table, returned);
            continue;
        };
        let extra = kind.entries(&mut returned).map(std::mem::take).unwrap_or_default();
        let list =
            kind.entries(existing).ok_or_else(|| invalid("an unprocessed table has no list of entries"))?;
        list.extend(extra);
    }
    serde_json::to_vec(&response).map_err(|e| invalid(&e.to_string()))
}

/// The response to a batch whose every entry was withheld: nothing read or written, everything
/// unprocessed.
pub(crate) fn all_unprocessed(withheld: Withheld) -> Result<Vec<u8>, FaultError> {
    let empty: &[u8] = match withheld.kind {
        BatchKind::Write => b"{}",
        BatchKind::Get => br#"{"Responses":{}}"#,
    };
    merge(empty, withheld)
}

#[cfg(test)]
#[path = "batch_tests.rs"]
mod tests;
