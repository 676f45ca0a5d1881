//! One pass of a change feed over the shards ready now: plan it from the stream's listing (kept,
//! or made anew where the kept one could miss a shard) and the recorded leases, record new
//! shards, read the shards it can lease, forget the gone ones.

use super::lineage;
use super::queue::{Deal, Queue, Waiting};
use super::reader::ShardRead;
use super::stream::{FeedRecord, FeedRecords};
use super::{ChangeFeed, ChangePage, FeedPass};
use crate::client::Listing;
use crate::error::{Error, Result};
use crate::metadata::fences::Fences;
use crate::metadata::lease::{self, Leases};
use std::collections::{BTreeSet, HashMap};
use std::future::Future;
use std::sync::Arc;

/// What a pass reads: the listing it planned from, the leases as read, and the plan.
struct Planned {
    listing: Arc<Listing>,
    stored: HashMap<String, lease::LeaseRecord>,
    plan: lineage::Plan,
}

impl ChangeFeed {
    /// One pass over the shards ready now; returns it and how many shards it read to their end.
    pub(super) async fn pass<H, Fut>(&self, handler: &H) -> Result<(FeedPass, usize)>
    where
        H: Fn(ChangePage) -> Fut + Sync,
        Fut: Future<Output = Result<()>> + Send,
    {
        let key = self.key();
        let records = FeedRecords { db: &self.db, table: self.metadata_table(), key: &key };
        let leases = Leases { db: (&self.db).into(), table: self.metadata_table() };
        let recorded = records.read().await?;
        let Planned { listing, stored, plan } = self.plan(recorded.as_ref(), &leases).await?;
        let (arn, listed) = (&listing.arn, &listing.shards);
        self.record(&records, &leases, arn, listed, &plan.record, recorded.is_none()).await?;
        // New shards' lease items were made since the leases were read: read the ready ones again.
        // Otherwise they are as read (one read was going to be as old as the other for a lease
        // another process changes meanwhile: its acquisition is refused either way).
        let stored = match plan.record.is_empty() && recorded.is_some() {
            true => stored,
            false => {
                let ready: Vec<String> = plan.ready.iter().map(|shard| self.lease_key(shard)).collect();
                leases.read(&ready).await?
            }
        };
        let mut pass = FeedPass { caught_up: true, ..FeedPass::default() };
        let mut to_read = Vec::new();
        for shard in listed.iter().filter(|shard| plan.ready.contains(&shard.id)) {
            let seen = stored.get(&self.lease_key(&shard.id));
            if seen.is_some_and(|lease| lease.ended) {
                continue; // read to its end by another process since the plan was made
            }
            let held_elsewhere =
                seen.is_some_and(|lease| lease.owner.as_ref().is_some_and(|owner| owner != &self.owner));
            if held_elsewhere && !self.expired(&shard.id, seen) {
                pass.shards_elsewhere += 1;
                pass.caught_up = false;
                pass.pending.push(shard.id.clone());
                continue;
            }
            to_read.push((shard.clone(), seen.cloned()));
        }
        let reads = self.read_all(arn, to_read, &plan.ready, handler).await?;
        let ended_now = tally(&mut pass, reads);
        // Forgotten: out of the record first, then the lease item (a recorded shard without one
        // reads as forgotten, never as a gap).
        if records.change(arn, &plan.forget, false).await? {
            leases.forget(&plan.forget.iter().map(|shard| self.lease_key(shard)).collect::<Vec<_>>()).await?;
        }
        Ok((pass, ended_now))
    }

    /// Plans a pass from the listing kept of the stream, or from a new one where the kept one
    /// could miss a shard (see [`listing`](super::listing)), and the leases of every shard known.
    async fn plan(&self, recorded: Option<&FeedRecord>, leases: &Leases<'_>) -> Result<Planned> {
        let mut listing = self.listing(recorded, false).await?;
        loop {
            let known: BTreeSet<&str> = recorded
                .iter()
                .flat_map(|record| record.shards.iter().map(String::as_str))
                .chain(listing.listing.shards.iter().map(|shard| shard.id.as_str()))
                .collect();
            let lease_keys: Vec<String> = known.iter().map(|shard| self.lease_key(shard)).collect();
            let stored = leases.read(&lease_keys).await?;
            let with = |keep: &dyn Fn(&lease::LeaseRecord) -> bool| -> BTreeSet<String> {
                let kept = known.iter().filter(|shard| stored.get(&self.lease_key(shard)).is_some_and(keep));
                kept.map(|shard| shard.to_string()).collect()
            };
            let (leased, ended) = (with(&|_| true), with(&|lease| lease.ended));
            if !listing.usable(recorded, &ended) {
                listing = self.listing(recorded, true).await?;
                continue;
            }
            let shards = &listing.listing.shards;
            let plan = lineage::plan(shards, recorded.map(|record| &record.shards), &leased, &ended);
            if let Some(reason) = plan.gap {
                return Err(self.gap(reason));
            }
            return Ok(Planned { listing: listing.listing, stored, plan });
        }
    }

    /// Records shards first seen: their lease items first (free, with when), then
    /// the feed record (made on its first pass).
    pub(super) async fn record(
        &self,
        records: &FeedRecords<'_>,
        leases: &Leases<'_>,
        arn: &str,
        listed: &[lineage::ListedShard],
        new: &[String],
        first: bool,
    ) -> Result<()> {
        let keys: Vec<String> = listed
            .iter()
            .filter(|shard| new.contains(&shard.id))
            .map(|shard| self.lease_key(&shard.id))
            .collect();
        leases.create(&keys).await?;
        let recorded = match first {
            true => {
                let record = FeedRecord { stream: arn.to_owned(), shards: new.iter().cloned().collect() };
                records.create(&record).await?
                    || records.read().await?.is_some_and(|record| record.stream == arn)
            }
            false => records.change(arn, new, true).await?,
        };
        match recorded {
            true => Ok(()),
            false => Err(self.gap("the feed was reset while this pass read it".into())),
        }
    }

    /// Reads the shards of `to_read` under leases, [`concurrency`](ChangeFeed::concurrency) at
    /// once, each shard as it was last read by a slot that acquired it, those dealt to the pass
    /// among the `ready` ones first (see [`queue`](super::queue)); what became of each, `None` for
    /// a shard another process acquired first or one left to a later pass.
    async fn read_all<H, Fut>(
        &self,
        arn: &str,
        to_read: Vec<Waiting>,
        ready: &[String],
        handler: &H,
    ) -> Result<Vec<(String, Option<(ShardRead, u64)>)>>
    where
        H: Fn(ChangePage) -> Fut + Sync,
        Fut: Future<Output = Result<()>> + Send,
    {
        let seed = rand::random::<u64>();
        let slots = self.concurrency.clamp(1, to_read.len().max(1));
        let floor = self.fence_floor(&to_read).await?;
        let deal = Deal { ready, ticket: floor, slots: self.concurrency };
        let queue = std::sync::Mutex::new(Queue::new(to_read, deal, seed));
        let next = || queue.lock().unwrap_or_else(std::sync::PoisonError::into_inner).next();
        // A slot refused a shard stops: other processes read the stream, and the shards still
        // waiting are likely theirs too. The next pass plans them from one read of the leases,
        // rather than each slot read them all again or be refused by them one by one.
        let slot = || async {
            let mut read = Vec::new();
            while let Some((shard, seen)) = next() {
                let outcome = self.lease_and_read(arn, &shard, seen.as_ref(), floor, handler).await?;
                let refused = outcome.is_none();
                read.push((shard.id, outcome));
                if refused {
                    break;
                }
            }
            Ok::<_, Error>(read)
        };
        let reads = futures::future::try_join_all((0..slots).map(|_| slot())).await?;
        let mut reads: Vec<_> = reads.into_iter().flatten().collect();
        // Left for a later pass: not read now.
        while let Some((shard, _)) = next() {
            reads.push((shard.id, None));
        }
        Ok(reads)
    }

    /// Acquires the lease of `shard`, as the pass read it (`seen`), and reads the shard under it;
    /// `None` when another process changed the lease first.
    async fn lease_and_read<H, Fut>(
        &self,
        arn: &str,
        shard: &lineage::ListedShard,
        seen: Option<&lease::LeaseRecord>,
        floor: u64,
        handler: &H,
    ) -> Result<Option<(ShardRead, u64)>>
    where
        H: Fn(ChangePage) -> Fut + Sync,
        Fut: Future<Output = Result<()>> + Send,
    {
        let leases = Leases { db: (&self.db).into(), table: self.metadata_table() };
        let Some(mut lease) = leases.acquire(&self.lease_key(&shard.id), seen, &self.owner, floor).await?
        else {
            tracing::debug!(target: "dynashard::changes", shard = shard.id, owner = self.owner, "shard taken first by another");
            return Ok(None);
        };
        tracing::debug!(target: "dynashard::changes", shard = shard.id, owner = self.owner, fence = lease.fence, "shard leased");
        let read = self.read_shard(arn, shard, &mut lease, handler).await;
        if let Ok((outcome, records)) = &read {
            tracing::debug!(target: "dynashard::changes", shard = shard.id, owner = self.owner, ?outcome, records, "shard read");
        }
        if !matches!(read, Ok((ShardRead::Ended | ShardRead::Lost, _))) {
            leases.release(&lease).await?;
        }
        read.map(Some)
    }

    /// The least fence of every lease this pass acquires, one value of the feed's [`Fences`](crate::metadata::fences::Fences)
    /// counter for all of them (0 when it reads none).
    ///
    /// A child shard's lease must be fenced above every fence a holder of its parent had, so
    /// that a handler can refuse its parent's late applications. The value is taken after the
    /// pass's plan read that the parent ended, and the parent's last holder took its own fence
    /// before it marked that end, so the counter handed that out first: the value is above it.
    /// Every lease the pass acquires is also fenced above its own last fence (see
    /// [`Leases::acquire`]), so shards that share the floor still fence their holders apart.
    async fn fence_floor(&self, to_read: &[Waiting]) -> Result<u64> {
        let Some(seen) = to_read.iter().map(|(_, seen)| seen.as_ref().map_or(0, |seen| seen.fence)).max()
        else {
            return Ok(0);
        };
        let key = self.fences_key();
        let fences = Fences { db: (&self.db).into(), table: self.metadata_table(), key: &key };
        fences.above(seen).await
    }

    /// Whether the lease of `shard`, held by another process as `seen`, has expired by what this
    /// process watched of it.
    fn expired(&self, shard: &str, seen: Option<&lease::LeaseRecord>) -> bool {
        self.metadata.lease_expired(&self.lease_key(shard), seen, self.lease)
    }
}

/// Adds the shards read in a pass to it; returns how many of them were read to their end.
fn tally(pass: &mut FeedPass, reads: Vec<(String, Option<(ShardRead, u64)>)>) -> usize {
    let mut ended_now = 0;
    for (shard, read) in reads {
        match read {
            Some((outcome @ (ShardRead::Ended | ShardRead::CaughtUp), records)) => {
                pass.shards_read += 1;
                pass.records += records;
                ended_now += usize::from(outcome == ShardRead::Ended);
                pass.covered.push(shard);
            }
            Some((ShardRead::Lost, records)) => {
                (pass.shards_read, pass.records, pass.caught_up) =
                    (pass.shards_read + 1, pass.records + records, false);
                pass.pending.push(shard);
            }
            None => {
                pass.caught_up = false;
                pass.pending.push(shard);
            }
        }
    }
    ended_now
}
