//! A consumer of a table's stream that any number of processes can share: shards found and
//! followed across splits, each read by one process at a time under a lease, and a checkpoint
//! kept per shard in the shard metadata table, so that a consumer that stops or dies resumes where
//! it stopped.
//!
//! **Delivery is at least once, in order per item.** A page of records is handed to the handler,
//! and the shard's checkpoint moves past it only once the handler returned `Ok`; a process that
//! dies between the two, or loses its lease while its handler runs, leaves the page to be handed
//! over again. Records of one item come in the order they were made: a shard is read only after
//! its parent was read to its end. A feed that misses records (its stream trimmed them, 24 hours
//! after they were written, before the feed read them, or the table's stream was replaced) fails
//! with [`Error::ChangeFeedGap`](crate::Error::ChangeFeedGap) instead of skipping them.

mod lease;
mod lineage;
mod reader;
mod stream;

pub(crate) use stream::stream_of;

use crate::changes::ChangeRecord;
use crate::db::Db;
use crate::error::{Error, Result};
use crate::metadata::ShardMetadata;
use crate::table::Table;
use futures::stream::{self as futures_stream, StreamExt, TryStreamExt};
use lease::{expired, Leases, Watched};
use reader::ShardRead;
use std::collections::{BTreeSet, HashMap};
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use stream::{FeedRecord, FeedRecords};

/// What a `Db`'s change feeds saw of the leases other processes hold (by lease key), shared by
/// its clones and feeds, so that a lease left by a feed of this process that stopped expires too.
pub(crate) type LeaseWatch = Arc<Mutex<HashMap<String, Watched>>>;

/// The records of one page of one shard, in the order they were written.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ChangePage {
    /// The stream shard they come from.
    pub shard: String,
    /// The records.
    pub records: Vec<ChangeRecord>,
}

/// What one [`ChangeFeed::catch_up`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FeedPass {
    /// Records handed to the handler.
    pub records: u64,
    /// Shards this process read.
    pub shards_read: usize,
    /// Shards it left alone because another process holds them.
    pub shards_elsewhere: usize,
    /// Whether every shard was read to what it holds now by this process (none was held
    /// elsewhere, none was lost to another process).
    pub caught_up: bool,
    /// The shards this pass read to their end, or to their last record.
    pub(crate) covered: Vec<String>,
    /// The shards ready to read that this pass left (held elsewhere, or taken meanwhile).
    pub(crate) pending: Vec<String>,
}

/// A consumer of the stream of one table, named so that its checkpoints are its own; made by
/// [`Db::change_feed`]. Clones share their name in the leases.
///
/// ```no_run
/// # async fn example(db: dynashard::Db) -> dynashard::Result<()> {
/// use dynashard::changes::Change;
/// # use dynashard::{Entity, Table};
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Table)]
/// # #[table(name = "Shop", pk = "pk", sk = "sk", stream = "new_image", shard_metadata = "ShopMeta")]
/// # struct Shop;
/// # #[derive(Entity, Serialize, Deserialize)]
/// # #[entity(table = Shop, pk = "{id}", sk = "order")]
/// # struct Order { id: String }
/// let feed = db.change_feed::<Shop>("invoices")?;
/// let pass = feed
///     .catch_up(|page| async move {
///         for record in &page.records {
///             if let Change::Item(change) = record.decode::<Order>()? {
///                 println!("{:?} {:?}", change.kind, change.new.map(|order| order.id));
///             }
///         }
///         Ok(())
///     })
///     .await?;
/// println!("{} records", pass.records);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct ChangeFeed {
    pub(crate) db: Db,
    table: String,
    consumer: String,
    metadata: Arc<ShardMetadata>,
    owner: String,
    pub(crate) lease: Duration,
    concurrency: usize,
    pub(crate) page: i32,
    watched: LeaseWatch,
}

impl std::fmt::Debug for ChangeFeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChangeFeed")
            .field("table", &self.table)
            .field("consumer", &self.consumer)
            .field("metadata", &self.metadata.table())
            .field("owner", &self.owner)
            .field("lease", &self.lease)
            .field("concurrency", &self.concurrency)
            .field("page", &self.page)
            .finish()
    }
}

impl Db {
    /// The consumer named `consumer` of the stream of table `T`: its checkpoints and leases are
    /// kept in `T`'s shard metadata table (declared, or the one this `Db` was given;
    /// [`Error::ShardMetadataNotConfigured`] without one). Defaults: a lease of 30 s, 4 shards
    /// read at once, pages of up to 1,000 records.
    pub fn change_feed<T: Table>(&self, consumer: impl Into<String>) -> Result<ChangeFeed> {
        Ok(self.feed_of(
            self.name_of(T::DEFINITION.name).to_owned(),
            consumer.into(),
            self.require_metadata(&T::DEFINITION)?,
        ))
    }

    pub(crate) fn feed_of(
        &self,
        table: String,
        consumer: String,
        metadata: Arc<ShardMetadata>,
    ) -> ChangeFeed {
        ChangeFeed {
            db: self.clone(),
            table,
            consumer,
            metadata,
            owner: format!("{:016x}", rand::random::<u64>()),
            lease: Duration::from_secs(30),
            concurrency: 4,
            page: 1_000,
            watched: Arc::clone(&self.lease_watch),
        }
    }
}

impl ChangeFeed {
    /// How long a shard's lease may go without a beat before another process takes it over.
    /// A holder beats after every page it hands over and, while it waits, every third of it.
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease;
        self
    }

    /// Reads at most `shards` shards at once (the handler is then called that often at once).
    pub fn concurrency(mut self, shards: usize) -> Self {
        self.concurrency = shards.max(1);
        self
    }

    /// Asks for at most `records` records a page (1 to 1,000).
    pub fn page_size(mut self, records: u32) -> Self {
        self.page = records.clamp(1, 1_000) as i32;
        self
    }

    /// Names this process in the leases it holds (default: a random token per feed).
    pub fn worker(mut self, name: impl Into<String>) -> Self {
        self.owner = name.into();
        self
    }

    /// The consumer's name.
    pub fn consumer(&self) -> &str {
        &self.consumer
    }

    pub(crate) fn metadata_table(&self) -> &str {
        self.metadata.table()
    }

    fn key(&self) -> String {
        format!("feed/{}/{}", self.table, self.consumer)
    }

    fn lease_key(&self, shard: &str) -> String {
        format!("feed/{}/{}/{shard}", self.table, self.consumer)
    }

    pub(crate) fn gap(&self, reason: String) -> Error {
        Error::ChangeFeedGap { consumer: self.consumer.clone(), reason }
    }

    /// Records where the feed begins, if it has not begun: every shard the stream lists now,
    /// from its oldest record. A feed begun before a write reads that write.
    pub async fn begin(&self) -> Result<()> {
        let (arn, _) = stream_of(&self.db, &self.table).await?;
        let records = FeedRecords { db: &self.db, table: self.metadata_table(), key: &self.key() };
        if records.read().await?.is_some() {
            return Ok(());
        }
        let listed = stream::list_shards(&self.db, &arn).await?;
        let leases = Leases { db: &self.db, table: self.metadata_table() };
        let all: Vec<String> = listed.iter().map(|shard| shard.id.clone()).collect();
        self.record(&records, &leases, &arn, &listed, &all, true).await
    }

    /// Forgets the feed's checkpoints: its next pass begins again at the oldest records the
    /// stream holds (for a feed that failed with a gap, once what it missed was dealt with).
    pub async fn reset(&self) -> Result<()> {
        let records = FeedRecords { db: &self.db, table: self.metadata_table(), key: &self.key() };
        let Some(record) = records.read().await? else { return Ok(()) };
        let leases: Vec<String> = record.shards.iter().map(|shard| self.lease_key(shard)).collect();
        records.delete(&leases).await
    }

    /// Reads every shard this process can lease, to the last record it holds, handing each page of
    /// records to `handler` (at most [`concurrency`](ChangeFeed::concurrency) at once) and
    /// recording the checkpoint after it; follows shards that end into their children. Shards
    /// other processes hold are left to them, unless their lease expired.
    pub async fn catch_up<H, Fut>(&self, handler: H) -> Result<FeedPass>
    where
        H: Fn(ChangePage) -> Fut + Sync,
        Fut: Future<Output = Result<()>> + Send,
    {
        let mut total = FeedPass { caught_up: true, ..FeedPass::default() };
        loop {
            let (pass, ended) = self.pass(&handler).await?;
            total.records += pass.records;
            total.shards_read += pass.shards_read;
            total.shards_elsewhere = pass.shards_elsewhere;
            total.caught_up &= pass.caught_up;
            total.covered.extend(pass.covered);
            total.pending = pass.pending;
            // A shard read to its end makes its children ready: read them in the same call.
            if ended == 0 {
                return Ok(total);
            }
        }
    }

    /// Runs [`catch_up`](ChangeFeed::catch_up) every `poll` until `stop` completes.
    pub async fn run<H, Fut>(&self, handler: H, poll: Duration, stop: impl Future<Output = ()>) -> Result<()>
    where
        H: Fn(ChangePage) -> Fut + Sync,
        Fut: Future<Output = Result<()>> + Send,
    {
        let mut stop = std::pin::pin!(stop);
        loop {
            self.catch_up(&handler).await?;
            tokio::select! {
                _ = &mut stop => return Ok(()),
                _ = tokio::time::sleep(poll) => {}
            }
        }
    }

    /// One pass over the shards ready now; returns it and how many shards it read to their end.
    async fn pass<H, Fut>(&self, handler: &H) -> Result<(FeedPass, usize)>
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
        let leases = Leases { db: &self.db, table: self.metadata_table() };
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
                    let taken =
                        leases.acquire(&self.lease_key(&shard.id), seen.as_ref(), &self.owner).await?;
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
        // Forgotten: out of the record first, then the lease item (a recorded shard without one
        // reads as forgotten, never as a gap).
        if records.change(&arn, &plan.forget, false).await? {
            leases.forget(&plan.forget.iter().map(|shard| self.lease_key(shard)).collect::<Vec<_>>()).await?;
        }
        Ok((pass, ended_now))
    }

    /// Records shards first seen: their lease items first (free, with when), then
    /// the feed record (made on its first pass).
    async fn record(
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
    /// feed watched of it.
    fn expired(&self, shard: &str, seen: Option<&lease::LeaseRecord>) -> bool {
        let Some(seen) = seen else { return true };
        let key = self.lease_key(shard);
        let mut watched = self.watched.lock().unwrap_or_else(PoisonError::into_inner);
        let mut entry = watched.get(&key).copied();
        let expired = expired(&mut entry, seen, self.lease, Instant::now());
        if let Some(entry) = entry {
            watched.insert(key, entry);
        }
        expired
    }
}
