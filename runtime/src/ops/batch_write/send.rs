//! Sending the writes of a batch call, of one entity type or several: every write checked and
//! converted first, then the parts that must go one write at a time on their own, and the rest
//! together in requests of 25, retried under every part's resharding guard. Whatever is not
//! applied, or of unknown outcome, comes back in one [`Error::BatchIncomplete`].

use super::BatchVersions;
use crate::batch::{send_requests, BeforeRetry, RetryPolicy, Sender, Writes, MAX_WRITES, OPERATION};
use crate::consumption::EntityType;
use crate::db::Db;
use crate::entity::PrimaryKey;
use crate::error::{Error, Result};
use crate::reshard::ReshardGuard;
use crate::table::TableDefinition;
use aws_sdk_dynamodb::types::WriteRequest;
use futures::future::BoxFuture;
use std::collections::HashMap;
use std::collections::HashSet;

/// The writes of one entity type in a batch call.
pub(super) trait Part: Send + Sync {
    /// Checks and converts every write (`versions` for the call, if it sets them); sends nothing.
    fn prepare(&self, versions: Option<BatchVersions>) -> BoxFuture<'_, Result<Prepared>>;

    /// Sends this part's prepared `requests` one write at a time, as single writes check them
    /// (see [`Alone`]), `in_flight` at once; fails with [`Error::BatchIncomplete`].
    fn each_on_its_own<'s>(
        &'s self,
        alone: Alone,
        requests: Vec<WriteRequest>,
        in_flight: usize,
    ) -> BoxFuture<'s, Result<()>>;
}

/// The writes of a part, checked and converted, and how they must be sent.
pub(super) struct Prepared {
    /// Each write with the key it writes, puts first.
    pub(super) requests: Vec<(PrimaryKey, WriteRequest)>,
    /// Whether the writes must go one at a time.
    pub(super) alone: Option<Alone>,
    /// What to check before a retry: the reshardings the writes were built for.
    pub(super) guard: Option<ReshardGuard>,
    /// The entity type, and its table.
    pub(super) entity: (EntityType, &'static TableDefinition),
}

/// Why a part's writes go one at a time.
#[derive(Clone, Copy)]
pub(super) enum Alone {
    /// A batched backfill holds existing items of this index frozen: puts create only (a
    /// `BatchWriteItem` cannot check that), deletes are refused.
    Frozen(&'static str),
    /// `#[version]` entities written [`BatchVersions::Checked`].
    Checked,
}

/// Sends the writes of `parts` to `table` (`versions` for all, when the call sets them),
/// `concurrency` requests at once (one-at-a-time parts: `concurrency` requests' worth of
/// writes), retrying per `retry`.
pub(super) async fn run(
    db: &Db,
    table: &str,
    parts: &[&dyn Part],
    versions: Option<BatchVersions>,
    (concurrency, retry): (usize, RetryPolicy),
) -> Result<()> {
    let mut prepared = Vec::with_capacity(parts.len());
    for part in parts {
        prepared.push(part.prepare(versions).await?);
    }
    let mut keys = HashSet::new();
    for (key, _) in prepared.iter().flat_map(|part| &part.requests) {
        if !keys.insert(key) {
            return Err(Error::DuplicateBatchKey { key: key.clone() });
        }
    }
    // A delete handed back names its entity type, so that it is resent as one of that type.
    let mut left = Left::default();
    for part in &prepared {
        let (entity, table) = part.entity;
        left.tags.table = Some(table);
        let deletes = part.requests.iter().filter(|(_, request)| request.delete_request.is_some());
        left.tags.deletes.extend(deletes.map(|(key, _)| (key.clone(), entity.name)));
    }
    let entities: Vec<EntityType> = prepared.iter().map(|part| part.entity.0).collect();
    let definition = prepared.first().map(|part| part.entity.1);
    let (mut together, mut guards) = (Vec::new(), Guards(Vec::new()));
    for (part, prepared) in parts.iter().zip(prepared) {
        let requests: Vec<WriteRequest> = prepared.requests.into_iter().map(|(_, request)| request).collect();
        match prepared.alone {
            Some(alone) => {
                let count = requests.len();
                left.add(count, part.each_on_its_own(alone, requests, concurrency * MAX_WRITES).await)?;
            }
            None => {
                together.extend(requests);
                guards.0.extend(prepared.guard);
            }
        }
    }
    if !together.is_empty() {
        let count = together.len();
        let sender = Sender {
            db,
            retry,
            before_retry: (!guards.0.is_empty()).then_some(&guards as &dyn BeforeRetry),
            on_request: None,
            counted: definition.map(|definition| (definition, entities.as_slice())),
        };
        left.add(count, send_requests(&sender, table, chunks(together), concurrency).await)?;
    }
    left.into_result()
}

/// `requests` in requests of at most 25.
fn chunks(requests: Vec<WriteRequest>) -> Vec<Vec<WriteRequest>> {
    let mut chunks = Vec::with_capacity(requests.len().div_ceil(MAX_WRITES));
    let mut requests = requests.into_iter().peekable();
    while requests.peek().is_some() {
        chunks.push(requests.by_ref().take(MAX_WRITES).collect());
    }
    chunks
}

/// The reshardings of every part of a call, checked before a retry.
struct Guards(Vec<ReshardGuard>);

impl BeforeRetry for Guards {
    fn check<'a>(&'a self, db: &'a Db) -> BoxFuture<'a, Result<()>> {
        Box::pin(async move {
            for guard in &self.0 {
                guard.check(db).await?;
            }
            Ok(())
        })
    }
}

/// What the sends of a call left, added up.
#[derive(Default)]
struct Left {
    unprocessed: Writes,
    unknown: Writes,
    tags: Tags,
    succeeded: usize,
    last_error: Option<Box<Error>>,
    incomplete: bool,
}

impl Left {
    /// Adds the outcome of sending `count` writes; an error that is not a batch's leftovers is
    /// passed on (nothing of it was sent).
    fn add(&mut self, count: usize, outcome: Result<()>) -> Result<()> {
        match outcome {
            Ok(()) => self.succeeded += count,
            Err(Error::BatchIncomplete { unprocessed, unknown, succeeded, last_error, .. }) => {
                self.unprocessed.absorb(unprocessed);
                self.unknown.absorb(*unknown);
                self.succeeded += succeeded;
                self.last_error = last_error.or(self.last_error.take());
                self.incomplete = true;
            }
            Err(error) => return Err(error),
        }
        Ok(())
    }

    fn into_result(self) -> Result<()> {
        if !self.incomplete {
            return Ok(());
        }
        let (mut unprocessed, mut unknown) = (self.unprocessed, self.unknown);
        self.tags.tag(unprocessed.deletes_mut());
        self.tags.tag(unknown.deletes_mut());
        Err(Error::BatchIncomplete {
            operation: OPERATION,
            unprocessed: unprocessed.into(),
            unknown: Box::new(unknown.into()),
            succeeded: self.succeeded,
            last_error: self.last_error,
        })
    }
}

/// The entity type of every delete of a call, by its key.
#[derive(Default)]
struct Tags {
    table: Option<&'static TableDefinition>,
    deletes: HashMap<PrimaryKey, &'static str>,
}

impl Tags {
    /// Adds to each key item of `deletes` the entity-type attribute of the delete's type.
    fn tag(&self, deletes: &mut [crate::error::Item]) {
        let Some(table) = self.table else { return };
        for key in deletes {
            let entity = crate::batch::key_of(table, key).and_then(|found| self.deletes.get(&found));
            if let Some(entity) = entity {
                let tag = aws_sdk_dynamodb::types::AttributeValue::S((*entity).to_owned());
                key.insert(table.type_attribute.to_owned(), tag);
            }
        }
    }
}
