//! The catch-up of a resharding: the table's change log (its DynamoDB stream) applied to the
//! target layout, so that a write that did not fill the target itself is placed there anyway.
//!
//! # The invariant
//!
//! **Every item that exists has its place in the target layout once the catch-up has read the
//! change log past the item's last write**, whatever the writer knew of the resharding, however
//! late its request arrived, and whether it went through dynashard at all. It holds because:
//!
//! 1. the feed the catch-up reads begins (at the oldest record of every shard the stream lists)
//!    before the resharding is recorded, so every write after the backfill's scan read an item
//!    is in the part of the log the catch-up reads; writes before it are the backfill's;
//! 2. the change log holds every write (a put, an update, a delete, a deletion by time to live),
//!    and the feed never skips a record: a record it could not read fails it with
//!    [`Error::ChangeFeedGap`](crate::Error::ChangeFeedGap);
//! 3. a place depends on nothing but the source index's key attributes and the attributes the
//!    shard is picked by, and every place is written on the condition that the item exists and
//!    holds the values it was computed from ([`Rewrite`]). A record that is late, repeated or out
//!    of order either finds the item as it shows it (and writes the place the item needs now) or
//!    finds it changed (and writes nothing: the record of that change places it) or deleted (and
//!    does not bring it back).
//!
//! An item that leaves a sparse source index (its own fields keep it out) is taken out of the
//! target the same way: on the condition that it is still out of the source and still where it
//! was in the target.
//!
//! Dual writes stay: they place what fresh writers write at once, and leave the catch-up
//! nothing to do for them. The catch-up is what makes the result independent of timing. The one
//! exception is a [batched](crate::reshard::Backfill::batched) backfill: its whole-item puts
//! rest on every writer honouring its freeze.

use super::place::stray;
use super::rewrite::{Pass, Rewrite};
use super::view::Reshards;
use crate::batch::key_of;
use crate::changes::{ChangeFeed, ChangeKind, ChangeRecord};
use crate::db::Db;
use crate::entity::{Entity, PrimaryKey};
use crate::error::{Item, Result};
use crate::index::Index;
use crate::item::table_of;
use crate::metadata::{Checked, Phase};
use crate::telemetry::Operation;
use aws_sdk_dynamodb::types::AttributeValue;
use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// What one pass of a catch-up did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CatchUpPass {
    /// Change records read.
    pub records: u64,
    /// Items given their place in the target layout (the rest had it, or changed again since),
    /// or taken out of it (they left the sparse source index).
    pub placed: u64,
    /// Items whose place breaks a key size limit of the target index, left out (logged).
    pub refused: u64,
    /// Whether the pass read every shard of the log to what it holds now.
    pub caught_up: bool,
    /// The stream shards it read to their end or last record, and those it left to others.
    covered: Vec<String>,
    pending: Vec<String>,
}

impl<E: Entity> Reshards<'_, E> {
    /// The change feed of `E`'s resharding of `index`, named after it.
    pub(super) fn feed(&self, index: &str) -> Result<ChangeFeed> {
        let metadata = self.metadata()?;
        let lease = metadata.catch_up_lease;
        Ok(self.db.feed_of(self.db.table_of::<E>().to_owned(), self.key(index), metadata).lease(lease))
    }
}

/// How long a worker waiting for the log's holder waits before its second pass; each pass after
/// waits twice as long, up to [`WAIT_LONGEST`].
const WAIT_FIRST: Duration = Duration::from_millis(100);
const WAIT_LONGEST: Duration = Duration::from_secs(2);

impl Db {
    /// Reads the table's change log to its current end and places in the target layout every
    /// item of `E` a write left without its place (see the [`reshard`](crate::reshard) module for
    /// the invariant). The steps of a resharding run it themselves; between them, keep one
    /// running ([`Db::run_catch_up`], in any number of processes) so that the log is applied
    /// within seconds, not only at the next step.
    pub async fn catch_up<E: Entity>(&self, index: Index<E::Table>) -> Result<CatchUpPass> {
        let operation = Operation::of::<E>(self, "catch_up", "");
        operation.run(async move { self.catch_up_named::<E>(index.name()).await }).await
    }

    /// Runs [`Db::catch_up`] every `poll` until `stop` completes (or the resharding fails); a
    /// pass that fails for a while ([`Error::is_transient`](crate::Error::is_transient)) is
    /// waited out and tried again.
    pub async fn run_catch_up<E: Entity>(
        &self,
        index: Index<E::Table>,
        poll: Duration,
        stop: impl Future<Output = ()>,
    ) -> Result<()> {
        let operation = Operation::of::<E>(self, "run_catch_up", "");
        operation
            .run(async move {
                let mut stop = std::pin::pin!(stop);
                let mut outlast = crate::retry::Outlast::new(self.retry_policy());
                loop {
                    outlast.after(self.catch_up_named::<E>(index.name()).await, "a catch-up pass").await?;
                    tokio::select! {
                        _ = &mut stop => return Ok(()),
                        _ = tokio::time::sleep(poll) => {}
                    }
                }
            })
            .await
    }

    /// Applies records of the table's change log that arrived some other way (the batch of a
    /// Lambda function on the table's stream) to the target layout of `E`'s resharding of
    /// `index`, as a pass of [`Db::catch_up`] applies what it reads. Records of other types are
    /// skipped; records repeated, late or out of order are harmless (each place is written on
    /// the condition that the item still holds what it was computed from). An empty pass when
    /// no resharding of `index` was started. The steps of the resharding still read the log
    /// themselves before they move on: this only places items sooner.
    pub async fn catch_up_records<E: Entity>(
        &self,
        index: Index<E::Table>,
        records: &[ChangeRecord],
    ) -> Result<CatchUpPass> {
        let operation = Operation::of::<E>(self, "catch_up_records", "");
        operation
            .run(async move {
                let reshards = Reshards::<E>::of(self);
                let Some(state) = reshards.state(index.name()).await? else {
                    return Ok(CatchUpPass::default());
                };
                let checked = Checked::new::<E>(&state)?;
                let (placed, refused) = self.apply_changes::<E>(&checked, records).await?;
                Ok(CatchUpPass { records: records.len() as u64, placed, refused, ..CatchUpPass::default() })
            })
            .await
    }

    /// Catch-up passes until one reads the whole log to its current end (a shard another process
    /// reads is waited for, or taken over once its lease expires): what a step needs before it
    /// moves the resharding on.
    /// A shard another process holds counts once any of these passes has read it to its last
    /// record: the log was read past every write made before the call, by someone.
    pub(super) async fn caught_up<E: Entity>(&self, index: &str) -> Result<CatchUpPass> {
        self.caught_up_unless::<E>(index, None).await
    }

    /// [`caught_up`](Db::caught_up), or less once the resharding is recorded in a phase past
    /// `moved_past`: another worker of the same step caught up and moved it on. Its catch-up
    /// began after this worker's scan ended (every segment was done before either called this),
    /// so it covers every write this worker needs covered; waiting for the shards it held would
    /// only make the workers of a step take their turns at the log one after another.
    pub(super) async fn caught_up_unless<E: Entity>(
        &self,
        index: &str,
        moved_past: Option<Phase>,
    ) -> Result<CatchUpPass> {
        let mut covered = std::collections::BTreeSet::new();
        // Between passes that found shards held elsewhere, a waiting worker reads only the phase
        // (one read) and passes again less and less often: the workers of a step that all end
        // at once would otherwise keep the log's holder waiting behind their passes.
        let mut between = WAIT_FIRST;
        loop {
            let pass = self.catch_up_named::<E>(index).await?;
            covered.extend(pass.covered.iter().cloned());
            if pass.pending.iter().all(|shard| covered.contains(shard)) {
                if !pass.caught_up {
                    self.record_caught_up::<E>(index).await?;
                }
                return Ok(pass);
            }
            let next_pass = tokio::time::Instant::now() + between;
            loop {
                tokio::time::sleep(WAIT_FIRST).await;
                if let Some(phase) = moved_past {
                    let state = Reshards::<E>::of(self).state(index).await?;
                    if state.is_some_and(|state| state.phase > phase) {
                        return Ok(pass);
                    }
                }
                if tokio::time::Instant::now() >= next_pass {
                    break;
                }
            }
            between = (between * 2).min(WAIT_LONGEST);
        }
    }

    pub(super) async fn catch_up_named<E: Entity>(&self, index: &str) -> Result<CatchUpPass> {
        let reshards = Reshards::<E>::of(self);
        let state = reshards.state(index).await?.ok_or_else(|| super::not_started(index))?;
        let checked = Checked::new::<E>(&state)?;
        // A resharding recorded before it had a feed begins it now, at its first pass (the
        // stream's retention back), as `ChangeFeed::begin` would.
        let feed = reshards.feed(index)?;
        let (placed, refused) = (AtomicU64::new(0), AtomicU64::new(0));
        let pass = feed
            .catch_up(|page| {
                let (checked, placed, refused) = (&checked, &placed, &refused);
                async move {
                    let (placed_now, refused_now) = self.apply_changes::<E>(checked, &page.records).await?;
                    placed.fetch_add(placed_now, Ordering::Relaxed);
                    refused.fetch_add(refused_now, Ordering::Relaxed);
                    Ok(())
                }
            })
            .await?;
        if pass.caught_up {
            self.record_caught_up::<E>(index).await?;
        }
        Ok(CatchUpPass {
            records: pass.records,
            placed: placed.into_inner(),
            refused: refused.into_inner(),
            caught_up: pass.caught_up,
            covered: pass.covered,
            pending: pass.pending,
        })
    }
}

impl Db {
    /// Applies change records of `E`'s table to the target layout of the resharding `checked`
    /// describes; returns the items placed (or taken out) and those refused for a key size limit.
    async fn apply_changes<E: Entity>(
        &self,
        checked: &Checked,
        records: &[ChangeRecord],
    ) -> Result<(u64, u64)> {
        // A stream without new images: the items as they are now, in one batch read.
        let unseen: Vec<PrimaryKey> = records
            .iter()
            .filter(|record| record.kind != ChangeKind::Remove && record.new_image.is_none())
            .filter_map(|record| key_of(table_of::<E>(), &record.keys))
            .collect();
        let now: HashMap<PrimaryKey, Item> = match unseen.is_empty() {
            true => HashMap::new(),
            false => {
                let read = self.read_now::<E>(unseen.clone(), None).await?;
                unseen.into_iter().zip(read).filter_map(|(key, item)| Some((key, item?))).collect()
            }
        };
        let mut latest: HashMap<PrimaryKey, Step> = HashMap::new();
        for record in records {
            if record.kind == ChangeKind::Remove {
                continue; // gone from both layouts with the item
            }
            let image = match &record.new_image {
                Some(image) => Some(image.clone()),
                None => key_of(table_of::<E>(), &record.keys).and_then(|key| now.get(&key).cloned()),
            };
            let Some(image) = image.filter(is_of::<E>) else { continue };
            let Some(key) = key_of(table_of::<E>(), &image) else { continue };
            // One step per item: the latest record's.
            match Rewrite::of(checked, &image, Pass::Place, table_of::<E>()) {
                Some(rewrite) => latest.insert(key, Step::Place(Box::new(rewrite))),
                None if stray::<E>(checked, &image) => latest.insert(key, Step::Unplace(image)),
                // Placed by its writer (or in neither layout).
                None => latest.remove(&key),
            };
        }
        let (mut places, mut strays) = (HashMap::new(), Vec::new());
        for (key, step) in latest {
            match step {
                Step::Place(rewrite) => {
                    places.insert(key, *rewrite);
                }
                Step::Unplace(image) => strays.push(image),
            }
        }
        let (mut placed, refused) = self.place_needed::<E>(places).await?;
        for image in &strays {
            if self.unplace::<E>(checked, image).await? {
                placed += 1;
            }
        }
        Ok((placed, refused))
    }

    /// Records that the change log was applied to its end now, for progress reports.
    async fn record_caught_up<E: Entity>(&self, index: &str) -> Result<()> {
        let reshards = Reshards::<E>::of(self);
        reshards.records()?.set_caught_up(&reshards.key(index), crate::metadata::now_ms()).await
    }
}

/// What the latest record of an item asks of the catch-up.
enum Step {
    /// Give the item its place in the target.
    Place(Box<Rewrite>),
    /// Take the item, which belongs in neither layout, out of the target.
    Unplace(Item),
}

/// Whether `item` is an item of entity type `E`.
fn is_of<E: Entity>(item: &Item) -> bool {
    matches!(item.get(table_of::<E>().type_attribute), Some(AttributeValue::S(name)) if name == E::TYPE_NAME)
}
