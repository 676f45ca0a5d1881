//! One pass of a change feed over the shards ready now: plan it from the stream's listing and
//! the recorded leases, record new shards, read the shards it can lease, forget the gone ones.

use super::lineage;
use super::reader::ShardRead;
use super::stream::{self, stream_of, FeedRecord, FeedRecords};
use super::{ChangeFeed, ChangePage, FeedPass};
use crate::error::{Error, Result};
use crate::metadata::lease::{self, Leases};
use futures::stream::{self as futures_stream, StreamExt, TryStreamExt};
use std::collections::BTreeSet;
use std::future::Future;

impl ChangeFeed {
    /// One pass over the shards ready now; returns it and how many shards it read to their end.
    pub(super) async fn pass<H, Fut>(&self, handler: &H) -> Result<(FeedPass, usize)>
    where
        H: Fn(ChangePage) -> Fut + Sync,
        Fut: Future<Output = Result<()>> + Send,
    {
        let (arn, _) = stream_of(&self.db, &self.table).await?;
        let key = self.key();
        let records = FeedRecords { db: &self.db, table: self.metadata_table(), key: &key };
        let recorded = records.read().await?;
        if let Some(record) = &recorded {
            if record.stream != arn {
                return Err(
                    self.gap(format!("the table's stream was replaced ({} is now {arn})", record.stream))
                );
            }
        }
        let listed = stream::list_shards(&self.db, &arn).await?;
        let known: BTreeSet<&str> = recorded
            .iter()
            .flat_map(|record| record.shards.iter().map(String::as_str))
            .chain(listed.iter().map(|shard| shard.id.as_str()))
            .collect();
        let lease_keys: Vec<String> = known.iter().map(|shard| self.lease_key(shard)).collect();
        let leases = Leases { db: (&self.db).into(), table: self.metadata_table() };
        let stored = leases.read(&lease_keys).await?;
        let lease_of = |shard: &str| stored.get(&self.lease_key(shard));
        let with = |keep: &dyn Fn(&lease::LeaseRecord) -> bool| -> BTreeSet<String> {
            known.iter().filter(|shard| lease_of(shard).is_some_and(keep)).map(|s| s.to_string()).collect()
        };
        let (leased, ended) = (with(&|_| true), with(&|lease| lease.ended));
        let plan = lineage::plan(&listed, recorded.as_ref().map(|record| &record.shards), &leased, &ended);
        if let Some(reason) = plan.gap {
            return Err(self.gap(reason));
        }
        self.record(&records, &leases, &arn, &listed, &plan.record, recorded.is_none()).await?;
        let stored =
            leases.read(&plan.ready.iter().map(|shard| self.lease_key(shard)).collect::<Vec<_>>()).await?;
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
        let reads = futures_stream::iter(to_read)
            .map(|(shard, seen)| {
                let (arn, leases) = (&arn, &leases);
                async move {
                    // The fence is taken after this pass read that the shard's parent ended (the
                    // plan), and the parent's last holder took its fence before it marked the
                    // end: so a child's fence is above every fence a holder of its parent had.
                    let fences_key = self.fences_key();
                    let fences = lease::Fences {
                        db: (&self.db).into(),
                        table: self.metadata_table(),
                        key: &fences_key,
                    };
                    let floor = fences.above(seen.as_ref().map_or(0, |seen| seen.fence)).await?;
                    let taken =
                        leases.acquire(&self.lease_key(&shard.id), seen.as_ref(), &self.owner, floor).await?;
                    let Some(mut lease) = taken else { return Ok::<_, Error>((shard.id, None)) };
                    let read = self.read_shard(arn, &shard, &mut lease, handler).await;
                    if !matches!(read, Ok((ShardRead::Ended | ShardRead::Lost, _))) {
                        leases.release(&lease).await?;
                    }
                    read.map(|read| (shard.id, Some(read)))
                }
            })
            .buffer_unordered(self.concurrency)
            .try_collect::<Vec<_>>()
            .await?;
        let ended_now = tally(&mut pass, reads);
        // Forgotten: out of the record first, then the lease item (a recorded shard without one
        // reads as forgotten, never as a gap).
        if records.change(&arn, &plan.forget, false).await? {
            leases.forget(&plan.forget.iter().map(|shard| self.lease_key(shard)).collect::<Vec<_>>()).await?;
        }
        Ok((pass, ended_now))
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
