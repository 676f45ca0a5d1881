//! A consumer of a table's stream that any number of processes can share: shards found and
//! followed across splits, each read by one process at a time under a lease, and a checkpoint
//! kept per shard in the shard metadata table, so that a consumer that stops or dies resumes where
//! it stopped.
//!
//! **Delivery is at least once, in order per item.** A page of records is handed to the handler,
//! and the shard's checkpoint moves past it only once the handler returned `Ok`; a process that
//! dies between the two, or loses its lease while its handler runs, leaves the page to be handed
//! over again. Records of one item come in the order they were made: a shard is read only after
//! its parent was read to its end. The lease beats while the handler runs, so a slow handler
//! keeps its shard; a holder that could not beat (its process frozen) is taken over, and its late
//! writes are refused where the handler follows the fence rule ([`FeedLease`]). A feed that misses records (its stream trimmed them, 24 hours
//! after they were written, before the feed read them, or the table's stream was replaced) fails
//! with [`Error::ChangeFeedGap`](crate::Error::ChangeFeedGap) instead of skipping them.

mod holding;
mod lineage;
mod listing;
mod pass;
mod queue;
mod reader;
mod stream;

pub use holding::FeedLease;
pub(crate) use stream::stream_of;

use crate::changes::ChangeRecord;
use crate::db::Db;
use crate::error::{Error, Result};
use crate::metadata::lease::Leases;
use crate::metadata::ShardMetadata;
use crate::table::Table;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use stream::FeedRecords;

/// The records of one page of one shard, in the order they were written, and the lease they are
/// handed over under.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ChangePage {
    /// The stream shard they come from.
    pub shard: String,
    /// The records.
    pub records: Vec<ChangeRecord>,
    /// The shard's lease: its fence, for writes that an older holder must not overtake, and
    /// whether it is still held.
    pub lease: FeedLease,
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
            self.shards.require(&T::DEFINITION)?,
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
        }
    }
}

impl ChangeFeed {
    /// How long a shard's lease may go without a beat before another process takes it over.
    /// A holder beats after every page it hands over and, while it waits for a page or for its
    /// handler, every third of it: a handler may take longer than the lease.
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

    /// The key of the counter the feed's lease fences are taken from (kept over resets).
    fn fences_key(&self) -> String {
        format!("fence/{}/{}", self.table, self.consumer)
    }

    pub(crate) fn gap(&self, reason: String) -> Error {
        Error::ChangeFeedGap { consumer: self.consumer.clone(), reason }
    }

    /// Records where the feed begins, if it has not begun: every shard the stream lists now,
    /// from its oldest record. A feed begun before a write reads that write.
    pub async fn begin(&self) -> Result<()> {
        let records = FeedRecords { db: &self.db, table: self.metadata_table(), key: &self.key() };
        if records.read().await?.is_some() {
            return Ok(()); // begun: its pass checks the stream, no need to describe the table here
        }
        let listing = self.listing(None, true).await?.listing;
        let leases = Leases { db: (&self.db).into(), table: self.metadata_table() };
        let all: Vec<String> = listing.shards.iter().map(|shard| shard.id.clone()).collect();
        self.record(&records, &leases, &listing.arn, &listing.shards, &all, true).await
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

    /// Runs [`catch_up`](ChangeFeed::catch_up) every `poll` until `stop` completes. A pass that
    /// fails for a while ([`Error::is_transient`]: throttled, timed out, the connection lost,
    /// in the handler too) is waited out under the `Db`'s retry policy's growing delays and
    /// tried again, its page handed over again; any other error ends it.
    pub async fn run<H, Fut>(&self, handler: H, poll: Duration, stop: impl Future<Output = ()>) -> Result<()>
    where
        H: Fn(ChangePage) -> Fut + Sync,
        Fut: Future<Output = Result<()>> + Send,
    {
        let mut stop = std::pin::pin!(stop);
        let mut outlast = crate::retry::Outlast::new(self.db.retry_policy());
        loop {
            outlast.after(self.catch_up(&handler).await, "a change feed's pass").await?;
            tokio::select! {
                _ = &mut stop => return Ok(()),
                _ = tokio::time::sleep(poll) => {}
            }
        }
    }
}
