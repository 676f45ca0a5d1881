//! The backfill and the cleanup of a resharding: parallel scans of the source index that give
//! every item its place in the target layout, or take it out of the source.

use super::not_started;
use super::rewrite::{Pass, Rewrite};
use super::view::Reshards;
use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Item, Result};
use crate::index::Index;
use crate::item::table_of;
use crate::key_record::key_to_json;
use crate::metadata::{now_ms, Checked, Phase, ReshardState, SegmentProgress, ShardMetadata};
use aws_sdk_dynamodb::types::AttributeValue;
use futures::stream::{self, StreamExt, TryStreamExt};
use std::sync::Arc;
use std::time::Duration;

/// One run of a backfill or cleanup: the token it holds a freeze by, and how long it may go
/// silent before another run may take the freeze over.
struct Run {
    owner: String,
    lease: Duration,
}

/// A random token naming one run.
fn run_id() -> String {
    format!("{:016x}", rand::random::<u64>())
}

/// How one pass scans: its segments, and whether it reads the table (a batched backfill, which
/// holds the freeze of `run`) or the source index.
struct Scan<'r> {
    segments: u32,
    scan_table: bool,
    run: &'r Run,
}

/// Called with the recorded state after every scanned page.
type ProgressReport = Arc<dyn Fn(&ReshardState) + Send + Sync>;

/// How a backfill runs. `Backfill::default()`: 8 scan segments, 2 write requests (of up to 25
/// items each) in flight per segment, conditional writes, no progress report.
#[derive(Clone)]
pub struct Backfill {
    segments: u32,
    in_flight: usize,
    batched: bool,
    freeze_lease: Duration,
    page_size: Option<u32>,
    progress: Option<ProgressReport>,
}

impl Default for Backfill {
    fn default() -> Self {
        Self {
            segments: 8,
            in_flight: 2,
            batched: false,
            freeze_lease: Duration::from_secs(60),
            page_size: None,
            progress: None,
        }
    }
}

impl std::fmt::Debug for Backfill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Backfill")
            .field("segments", &self.segments)
            .field("in_flight", &self.in_flight)
            .field("batched", &self.batched)
            .field("freeze_lease", &self.freeze_lease)
            .finish()
    }
}

impl Backfill {
    /// Scans in `segments` parallel segments (a resumed backfill keeps the first run's count).
    pub fn segments(mut self, segments: u32) -> Self {
        self.segments = segments.max(1);
        self
    }

    /// Sends at most `requests` write requests (of up to 25 items each) at once in each segment.
    pub fn in_flight(mut self, requests: usize) -> Self {
        self.in_flight = requests.max(1);
        self
    }

    /// Writes whole items with `BatchWriteItem` instead of conditional updates, read from the
    /// table with strongly consistent scans, and for that **freezes existing items** of the
    /// entity until the backfill has finished: writers may
    /// create items (a put becomes create-only, a batch put a series of them), but a write that
    /// would change or delete an existing item fails with [`Error::Frozen`]. For append-only
    /// data (logs, events, readings) nothing changes for writers, and the backfill costs what a
    /// batch import of the same items costs. Writes that bypass dynashard and TTL deletions are
    /// not held back: an item they change during the backfill can lose that change, and an item
    /// time to live deletes between the scan and the rewrite comes back, still expired, until
    /// DynamoDB deletes it again (`.unexpired()` reads leave it out).
    ///
    /// A batched backfill that was interrupted keeps the items frozen until it is run again;
    /// running it again without `batched()` lifts the freeze and goes on with conditional writes,
    /// once the batched run has been silent for the [freeze lease](Backfill::freeze_lease). The
    /// cleanup of [`Db::finish_resharding`] always writes conditionally.
    pub fn batched(mut self) -> Self {
        self.batched = true;
        self
    }

    /// How long a batched backfill must have been silent (it renews its freeze before every page
    /// it writes) before a backfill without [`batched`](Backfill::batched) may lift the freeze
    /// and take over; until then that backfill fails with [`Error::Resharding`]. Default: 60 s.
    pub fn freeze_lease(mut self, lease: Duration) -> Self {
        self.freeze_lease = lease;
        self
    }

    /// Reads at most `items` per scan page (default: DynamoDB's 1 MB pages). Progress is
    /// recorded after every page, so smaller pages lose less work when a backfill is killed.
    pub fn page_size(mut self, items: u32) -> Self {
        self.page_size = Some(items.max(1));
        self
    }

    /// Calls `report` with the recorded state after every scanned page.
    pub fn on_progress(mut self, report: impl Fn(&ReshardState) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(report));
        self
    }
}

impl Db {
    /// Gives every item already in the source index its place in the target layout, applies the
    /// change log to its current end ([`Db::catch_up`]), then moves the resharding to
    /// [`Phase::Backfilled`]. Resumes an interrupted backfill where it stopped.
    ///
    /// The default, conditional backfill starts at once: a writer that has not yet seen the
    /// resharding is placed by the catch-up. A [batched](Backfill::batched) one first waits one
    /// metadata cache time after freezing existing items, since its whole-item puts are safe
    /// only while every writer honours the freeze.
    pub async fn backfill<E: Entity>(
        &self,
        index: Index<E::Table>,
        options: Backfill,
    ) -> Result<ReshardState> {
        let index = index.name();
        let state = Reshards::<E>::of(self).state(index).await?.ok_or_else(|| not_started(index))?;
        if state.phase >= Phase::Backfilled {
            return Ok(state);
        }
        let run = Run { owner: run_id(), lease: options.freeze_lease };
        self.set_frozen::<E>(&state, &options, &run).await?;
        self.scan_all::<E>(&state, &options, Pass::Place, &run).await?;
        self.caught_up::<E>(index).await?;
        Reshards::<E>::of(self).forget_verification(index).await?;
        Reshards::<E>::of(self).advance(index, Phase::DualWrites, Phase::Backfilled).await
    }

    /// Ends a cut-over resharding: writes stop filling the source index, and a scan removes the
    /// source attributes from every item. Returns the final state ([`Phase::Done`]); then declare
    /// the target index with the new layout in code.
    pub async fn finish_resharding<E: Entity>(
        &self,
        index: Index<E::Table>,
        options: Backfill,
    ) -> Result<ReshardState> {
        let index = index.name();
        let mut state = Reshards::<E>::of(self).state(index).await?.ok_or_else(|| not_started(index))?;
        if state.phase == Phase::CutOver {
            self.caught_up::<E>(index).await?;
            state = Reshards::<E>::of(self).advance(index, Phase::CutOver, Phase::Done).await?;
            self.wait_for_writers(&*Reshards::<E>::of(self).metadata()?, now_ms()).await?;
        } else if state.phase != Phase::Done {
            return Err(Error::Resharding { index: index.to_owned(), reason: "cut over first".into() });
        }
        state.segments.clear();
        self.scan_all::<E>(
            &state,
            &options,
            Pass::Clean,
            &Run { owner: run_id(), lease: options.freeze_lease },
        )
        .await?;
        Ok(state)
    }

    /// After the catch-up failed with [`Error::ChangeFeedGap`] (it was stopped for longer than
    /// the stream keeps records, 24 hours): begins its change feed anew, then places every item
    /// as it is now with a conditional backfill scan from the start, and applies the log. In any
    /// phase before the finish (after it, the source places a scan would read are gone).
    pub async fn restart_catch_up<E: Entity>(
        &self,
        index: Index<E::Table>,
        options: Backfill,
    ) -> Result<ReshardState> {
        let index = index.name();
        let reshards = Reshards::<E>::of(self);
        let mut state = reshards.state(index).await?.ok_or_else(|| not_started(index))?;
        if state.phase == Phase::Done {
            return Err(Error::Resharding { index: index.to_owned(), reason: "it finished".into() });
        }
        reshards.forget_verification(index).await?; // verify again after it
        let feed = reshards.feed(index)?;
        feed.reset().await?;
        feed.begin().await?;
        state.segments.clear();
        let options = Backfill { batched: false, ..options };
        let run = Run { owner: run_id(), lease: options.freeze_lease };
        self.scan_all::<E>(&state, &options, Pass::Place, &run).await?;
        self.caught_up::<E>(index).await?;
        reshards.state(index).await?.ok_or_else(|| not_started(index))
    }

    /// Freezes existing items for a batched backfill (and waits until every writer knows), or
    /// lifts the freeze of a batched backfill that has been silent for the freeze lease.
    async fn set_frozen<E: Entity>(&self, state: &ReshardState, options: &Backfill, run: &Run) -> Result<()> {
        let refuse = |reason: String| Error::Resharding { index: state.source.clone(), reason };
        let (records, key) = (Reshards::<E>::of(self).records()?, Reshards::<E>::of(self).key(&state.source));
        let now = now_ms();
        if options.batched {
            if !records.freeze(&key, now, &run.owner).await? {
                return Err(refuse("the resharding left its dual-writes phase".into()));
            }
            tracing::info!(target: "dynashard::reshard", index = state.source, "existing items frozen for a batched backfill");
            return self.wait_for_writers(&records.shards, now_ms()).await;
        }
        if !state.frozen {
            return Ok(());
        }
        let silent = now.saturating_sub(state.frozen_seen);
        if silent < options.freeze_lease.as_millis() as u64 {
            return Err(refuse(format!(
                "a batched backfill holds existing items frozen (last seen {silent} ms ago): run it again with \
                 `batched()`, or wait for the freeze lease"
            )));
        }
        if !records.lift_freeze(&key, state.frozen_seen).await? {
            return Err(refuse("the batched backfill holding the freeze renewed it".into()));
        }
        tracing::info!(target: "dynashard::reshard", index = state.source, "freeze of a silent batched backfill lifted");
        Ok(())
    }

    /// Waits until one metadata cache time has passed since `since` (unix ms).
    async fn wait_for_writers(&self, shards: &ShardMetadata, since: u64) -> Result<()> {
        let cache = shards.cache_time().as_millis() as u64;
        let now = now_ms();
        let wait = (since + cache + 1).saturating_sub(now);
        tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
        Ok(())
    }

    async fn scan_all<E: Entity>(
        &self,
        state: &ReshardState,
        options: &Backfill,
        pass: Pass,
        run: &Run,
    ) -> Result<()> {
        let checked = Checked::new::<E>(state)?;
        let key = Reshards::<E>::of(self).key(&state.source);
        // A batched backfill reads whole items from the table, strongly consistent: an index
        // can lag behind a write made just before the freeze.
        let scan_table = matches!(pass, Pass::Place) && options.batched;
        // A resumed backfill must scan what its positions belong to, with the same segmentation;
        // otherwise it starts over (its writes are idempotent).
        let resumed =
            matches!(pass, Pass::Place) && !state.segments.is_empty() && state.scan_table == scan_table;
        let segments = match pass {
            Pass::Place if resumed => state.segments.len() as u32,
            Pass::Place => {
                Reshards::<E>::of(self).records()?.start_segments(&key, options.segments, scan_table).await?;
                options.segments
            }
            Pass::Clean => options.segments,
        };
        let scan = Scan { segments, scan_table, run };
        let checked = &checked;
        let work = (0..segments).map(|segment| {
            let progress = match resumed {
                true => state.segments.get(&segment).cloned().unwrap_or_default(),
                false => SegmentProgress::default(),
            };
            let key = key.clone();
            let scan = &scan;
            async move { self.scan_segment::<E>(checked, scan, segment, progress, &key, options, pass).await }
        });
        stream::iter(work).buffer_unordered(segments as usize).try_collect::<Vec<()>>().await?;
        Ok(())
    }

    #[allow(clippy::too_many_arguments)] // one segment of one pass: every argument is its own
    async fn scan_segment<E: Entity>(
        &self,
        checked: &Checked,
        scan: &Scan<'_>,
        segment: u32,
        mut progress: SegmentProgress,
        key: &str,
        options: &Backfill,
        pass: Pass,
    ) -> Result<()> {
        let table = table_of::<E>();
        let refuse =
            |reason: &str| Error::Resharding { index: checked.mapping.index.into(), reason: reason.into() };
        while !progress.done {
            let start = super::resume_at(progress.after.as_ref(), checked.mapping.index)?;
            // Whole-item puts are safe only while this run holds the freeze: renew it before the
            // page is read, and write the page only well within the lease.
            let deadline = std::time::Instant::now() + scan.run.lease / 2;
            if scan.scan_table
                && !Reshards::<E>::of(self).records()?.renew_freeze(key, now_ms(), &scan.run.owner).await?
            {
                return Err(refuse("another backfill took the freeze over; this run stopped"));
            }
            let request = self
                .client()
                .scan()
                .table_name(self.table_of::<E>())
                .segment(segment as i32)
                .total_segments(scan.segments as i32)
                .expression_attribute_names("#type", table.type_attribute)
                .expression_attribute_values(":type", AttributeValue::S(E::TYPE_NAME.to_owned()))
                .set_exclusive_start_key(start)
                .set_limit(options.page_size.map(|items| items.min(i32::MAX as u32) as i32));
            let request = match scan.scan_table {
                true => request
                    .consistent_read(true)
                    .filter_expression("#type = :type AND attribute_exists(#spk)")
                    .expression_attribute_names("#spk", checked.source.0),
                false => request.index_name(checked.mapping.index).filter_expression("#type = :type"),
            };
            let page = request.send().await.map_err(|error| Error::from_sdk("Scan", error))?;
            let items = page.items.unwrap_or_default();
            progress.scanned += items.len() as u64;
            if scan.scan_table && std::time::Instant::now() > deadline {
                return Err(refuse("the page took over half the freeze lease to read; this run stopped"));
            }
            progress.written += self.rewrite_page::<E>(checked, &items, pass, options).await?;
            match page.last_evaluated_key {
                Some(last) => progress.after = Some(key_to_json(&last).to_string()),
                None => (progress.after, progress.done) = (None, true),
            }
            if let Pass::Place = pass {
                let records = Reshards::<E>::of(self).records()?;
                records.save_progress(key, segment, &progress).await?;
                if let (Some(report), Some(state)) = (&options.progress, records.read(key).await?) {
                    report(&state);
                }
            }
        }
        Ok(())
    }

    /// Sends the rewrites of one scanned page (see [`Rewrite`]). Returns how many items were
    /// written.
    async fn rewrite_page<E: Entity>(
        &self,
        checked: &Checked,
        items: &[Item],
        pass: Pass,
        options: &Backfill,
    ) -> Result<u64> {
        let rewrites: Vec<Rewrite> =
            items.iter().filter_map(|item| Rewrite::of(checked, item, pass, table_of::<E>())).collect();
        // An item whose new place breaks a key limit stops the backfill with a typed error
        // before the page is sent; shorten it, and the backfill resumes from its checkpoint.
        rewrites.iter().try_for_each(|rewrite| rewrite.check(table_of::<E>()))?;
        let table = self.table_of::<E>();
        match pass {
            Pass::Place if options.batched => self.put_rewrites(table, rewrites, options.in_flight).await,
            Pass::Place => {
                let (written, skipped) = self.send_rewrites(table, rewrites, options.in_flight).await?;
                Ok(written + self.place_again::<E>(checked, skipped, options.in_flight).await?)
            }
            // An item a writer changed since keeps its source place: harmless, and placed from it.
            Pass::Clean => Ok(self.send_rewrites(table, rewrites, options.in_flight).await?.0),
        }
    }
}
