//! Reading items by key: `BatchGetItem` requests of up to 100 distinct keys, sent with bounded
//! concurrency, retrying what comes back unprocessed; a key left unread fails the read with
//! [`Error::BatchIncomplete`], never silently.

use super::{key_of, Attempts, Failure, RetryPolicy, Tally, Unprocessed, MAX_GET_KEYS};
use crate::consumption::{BatchItem, BatchItems, EntityType, Kind};
use crate::db::Db;
use crate::entity::PrimaryKey;
use crate::error::{Error, Item, Result};
use crate::item::key_item;
use crate::item_size::item_size;
use crate::table::TableDefinition;
use crate::telemetry::{Reported, Request as Traced};
use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemOutput;
use aws_sdk_dynamodb::types::{KeysAndAttributes, ReturnConsumedCapacity};
use futures::stream::{self, StreamExt};
use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::AtomicBool;

pub(crate) const OPERATION: &str = "BatchGetItem";

/// Told of every request a read sends, with the read capacity it consumed.
pub(crate) type OnRequest<'a> = &'a (dyn Fn(f64) + Send + Sync);

/// One read of items by key.
pub(crate) struct KeyRead<'a> {
    pub db: &'a Db,
    pub table: &'static TableDefinition,
    pub keys: Vec<PrimaryKey>,
    pub consistent: bool,
    pub concurrency: usize,
    pub retry: RetryPolicy,
    pub on_request: Option<OnRequest<'a>>,
    /// The entity types read: the `Db`'s totals and hot keys count the reads under them.
    pub entities: &'a [&'static str],
}

/// The outcome of one request and its retries.
struct Outcome {
    /// Items read, by distinct-key slot.
    found: Vec<(usize, Item)>,
    /// Slots still unread.
    pending: Vec<usize>,
    /// Keys resolved (read, or known to be absent).
    resolved: usize,
    error: Option<(Error, bool)>,
}

impl KeyRead<'_> {
    /// The item under each key, in input order (`None` where there is none); a repeated key is
    /// read once.
    pub(crate) async fn run(self) -> Result<Vec<Option<Item>>> {
        let mut slots: HashMap<PrimaryKey, usize> = HashMap::with_capacity(self.keys.len());
        let mut distinct: Vec<PrimaryKey> = Vec::with_capacity(self.keys.len());
        let order: Vec<usize> = self
            .keys
            .iter()
            .map(|key| {
                *slots.entry(key.clone()).or_insert_with(|| {
                    distinct.push(key.clone());
                    distinct.len() - 1
                })
            })
            .collect();

        let table = self.db.name_of(self.table.name);
        let stop = AtomicBool::new(false);
        let ranges = (0..distinct.len())
            .step_by(MAX_GET_KEYS)
            .map(|start| start..distinct.len().min(start + MAX_GET_KEYS));
        let mut outcomes = stream::iter(ranges)
            .map(|range| self.read(table, &distinct, &slots, range, &stop))
            .buffer_unordered(self.concurrency.max(1));
        let mut found: Vec<Option<Item>> = vec![None; distinct.len()];
        let mut unread: Vec<usize> = Vec::new();
        let mut tally = Tally::default();
        while let Some(outcome) = outcomes.next().await {
            for (slot, item) in outcome.found {
                found[slot] = Some(item);
            }
            unread.extend(outcome.pending);
            tally.add(outcome.resolved, outcome.error);
        }
        drop(outcomes);

        if !unread.is_empty() {
            unread.sort_unstable();
            return Err(Error::BatchIncomplete {
                operation: OPERATION,
                unprocessed: Unprocessed::Keys(
                    unread.into_iter().map(|slot| distinct[slot].clone()).collect(),
                ),
                unknown: Box::new(Unprocessed::Keys(Vec::new())),
                succeeded: tally.succeeded,
                last_error: tally.last_error(),
            });
        }
        Ok(fan_out(&order, found))
    }

    /// Reads the keys of `range` (slots into `distinct`), retrying what comes back unprocessed.
    async fn read(
        &self,
        table: &str,
        distinct: &[PrimaryKey],
        slots: &HashMap<PrimaryKey, usize>,
        range: Range<usize>,
        stop: &AtomicBool,
    ) -> Outcome {
        let definition = self.table;
        let total = range.len();
        let mut pending: Vec<usize> = range.collect();
        let mut found = Vec::new();
        let mut attempts = Attempts::new(OPERATION, self.retry, stop, total);
        while attempts.begin() {
            let keys = pending.iter().map(|&slot| key_item(definition, &distinct[slot])).collect();
            match self.send(table, keys).await {
                Ok((items, unprocessed)) => {
                    let slot_of =
                        |item: &Item| key_of(definition, item).and_then(|key| slots.get(&key).copied());
                    found.extend(items.into_iter().filter_map(|item| Some((slot_of(&item)?, item))));
                    pending = unprocessed.iter().filter_map(slot_of).collect();
                }
                Err(failure) => {
                    if !attempts.failed(failure) {
                        break;
                    }
                }
            }
            if pending.is_empty() || !attempts.retry(pending.len()).await {
                break;
            }
        }
        Outcome { found, resolved: total - pending.len(), pending, error: attempts.finish() }
    }

    /// One `BatchGetItem` request: the items read and the keys left unprocessed.
    async fn send(&self, table: &str, keys: Vec<Item>) -> Result<(Vec<Item>, Vec<Item>), Failure> {
        let request = KeysAndAttributes::builder()
            .set_keys(Some(keys.clone()))
            .consistent_read(self.consistent)
            .build()
            .map_err(|error| Failure::fatal(Error::from_build(OPERATION, error)))?;
        let request = self
            .db
            .client()
            .batch_get_item()
            .request_items(table, request)
            .return_consumed_capacity(ReturnConsumedCapacity::Total);
        let sent = async { request.send().await.map_err(|error| Failure::from_sdk(OPERATION, error)) };
        let traced = Traced { sends: OPERATION, table };
        let span = traced.span();
        span.record("aws.dynamodb.consistent_read", self.consistent);
        let output = traced.send(span, sent, |output: &BatchGetItemOutput| Reported {
            consumed: output.consumed_capacity.iter().flatten().collect(),
            ..Reported::default()
        });
        let output = output.await?;
        self.count(table, &keys, &output);
        if let Some(on_request) = self.on_request {
            let consumed = output.consumed_capacity.iter().flatten();
            on_request(consumed.filter_map(|consumed| consumed.capacity_units).sum());
        }
        let items = output.responses.and_then(|mut responses| responses.remove(table)).unwrap_or_default();
        let unprocessed = output
            .unprocessed_keys
            .and_then(|mut unprocessed| unprocessed.remove(table))
            .map(|request| request.keys)
            .unwrap_or_default();
        Ok((items, unprocessed))
    }
}

impl KeyRead<'_> {
    /// Counts what a request for `keys` consumed, and the keys it left unprocessed as
    /// throttled, in the `Db`'s totals and hot keys.
    fn count(&self, table: &str, keys: &[Item], output: &BatchGetItemOutput) {
        let entities: Vec<EntityType> = self.entities.iter().map(|name| EntityType::named(name)).collect();
        let batch = BatchItems { definition: self.table, table, entities: &entities, kind: Kind::Read };
        let found = output.responses.as_ref().and_then(|responses| responses.get(table));
        let found: HashMap<PrimaryKey, &Item> =
            found.into_iter().flatten().filter_map(|item| Some((key_of(self.table, item)?, item))).collect();
        let read = |key: &Item| found.get(&key_of(self.table, key)?).copied();
        let items: Vec<BatchItem<'_>> = keys
            .iter()
            .map(|key| match read(key) {
                Some(item) => BatchItem { item, bytes: Some(item_size(item)), entity: None },
                None => BatchItem { item: key, bytes: None, entity: None },
            })
            .collect();
        batch.count(self.db.meter(), &items, output.consumed_capacity.as_deref().unwrap_or_default());
        let unprocessed = output.unprocessed_keys.as_ref().and_then(|unprocessed| unprocessed.get(table));
        batch.throttled(self.db.meter(), unprocessed.into_iter().flat_map(|request| &request.keys));
    }
}

/// One item per input position; an item read once for a repeated key is cloned for its earlier
/// positions and moved into its last.
fn fan_out(order: &[usize], mut found: Vec<Option<Item>>) -> Vec<Option<Item>> {
    let mut last_use = vec![0; found.len()];
    for (position, &slot) in order.iter().enumerate() {
        last_use[slot] = position;
    }
    order
        .iter()
        .enumerate()
        .map(
            |(position, &slot)| {
                if last_use[slot] == position {
                    found[slot].take()
                } else {
                    found[slot].clone()
                }
            },
        )
        .collect()
}
