//! One leased scan segment: read page after page from the lease's checkpoint, rewrite each page,
//! record the position and what was read and written with a beat of the lease, and wait as the
//! budget share requires. While a page is under way the lease beats every third of its time.

use super::options::Backfill;
use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Item, Result};
use crate::item::table_of;
use crate::key_record::key_to_json;
use crate::metadata::lease::{Lease, Leases, Tally};
use crate::metadata::{now_ms, Checked, ScanKind, ScanPlan};
use crate::reshard::pace::{Meter, Pace};
use crate::reshard::page::{PageRead, Part};
use crate::reshard::pieces::Piece;
use crate::reshard::rewrite::{Pass, Rewrite};
use crate::reshard::send::Deadline;
use crate::reshard::view::Reshards;
use aws_sdk_dynamodb::types::AttributeValue;
use std::future::Future;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

/// The budget share every segment of a worker spends by: the scan's budget over the segments
/// being worked on, by any worker, as last read.
#[derive(Debug, Default)]
pub(super) struct Shares {
    pub plan: std::sync::Mutex<Option<ScanPlan>>,
    pub held: std::sync::atomic::AtomicU32,
}

impl Shares {
    /// Records the scan's plan (its budget) as last read, and how many segments share it.
    pub fn set(&self, plan: ScanPlan, held: u32) {
        *self.plan.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(plan);
        self.hold(held);
    }

    /// Records how many segments the budget is shared among.
    pub fn hold(&self, segments: u32) {
        self.held.store(segments, Ordering::Relaxed);
    }
}

/// One segment of a scan, as one worker works on it.
pub(super) struct Segment<'a> {
    pub db: &'a Db,
    pub checked: &'a Checked,
    /// The resharding record's key.
    pub key: &'a str,
    pub plan: ScanPlan,
    pub segment: u32,
    /// The piece the segment reads (`None`: a segment of a parallel Scan).
    pub piece: Option<Piece>,
    pub options: &'a Backfill,
    /// The freeze a batched backfill renews before every page.
    pub freeze: Option<&'a str>,
    /// What this segment's requests consumed, as DynamoDB reported it.
    pub meter: Meter,
    pub shares: Arc<Shares>,
}

impl Segment<'_> {
    /// Scans the segment to its end from `lease`'s checkpoint; returns early (`Ok`) when another
    /// worker took the lease, or when the worker's deadline came (the lease given up at the
    /// checkpoint, for the next worker to take at once).
    pub async fn run<E: Entity>(mut self, mut lease: Lease) -> Result<()> {
        let reshards = Reshards::<E>::of(self.db);
        let shards = reshards.metadata()?;
        let leases = Leases { db: self.db.into(), table: shards.table() };
        let mut pace = Pace::new(Instant::now());
        self.share(&mut pace, Instant::now()); // before the first page too
                                               // What an item of the last page cost, `(read, write)`: the next page is sized by it.
        let mut per_item = None;
        loop {
            if self.options.past_deadline() {
                leases.release(&lease).await?;
                tracing::debug!(target: "dynashard::reshard", segment = self.segment, "segment given up at the deadline");
                return Ok(());
            }
            self.meter = Meter::default(); // what this page consumes
            let after = lease.checkpoint.clone();
            let limit = match (self.options.page_size, pace.page_items(per_item)) {
                (Some(size), Some(paced)) => Some(size.min(paced)),
                (size, paced) => size.or(paced),
            };
            let Some(page) =
                self.beating(&leases, &mut lease, self.page::<E>(after.as_deref(), limit)).await?
            else {
                return self.lost();
            };
            let (items, written, last) = page?;
            let tally = Tally {
                read: lease.tally.read + items,
                written: lease.tally.written + written,
                capacity: lease.tally.capacity + self.meter.consumed(),
            };
            let checkpoint = last.as_ref().map(|last| key_to_json(last).to_string());
            let done = last.is_none();
            if !leases.beat_with(&mut lease, checkpoint.as_deref(), Some(tally), done).await? {
                return self.lost();
            }
            if let Some(report) = &self.options.progress {
                if let Some(state) = reshards.records()?.read(self.key).await? {
                    report(&self.db.with_progress::<E>(state).await?);
                }
            }
            if done {
                tracing::debug!(target: "dynashard::reshard", segment = self.segment, piece = ?self.piece, scan_table = self.plan.scan_table, read = tally.read, written = tally.written, "segment done");
                return Ok(());
            }
            let now = Instant::now();
            let (read, write) = self.meter.totals();
            if items > 0 {
                per_item = Some((read / items as f64, write / items as f64));
            }
            self.share(&mut pace, now);
            pace.spend((read, write), now);
            let wait = pace.wait(now);
            if !wait.is_zero() && self.beating(&leases, &mut lease, tokio::time::sleep(wait)).await?.is_none()
            {
                return self.lost();
            }
        }
    }

    /// Stops working on a segment whose lease another worker took.
    fn lost(&self) -> Result<()> {
        tracing::info!(target: "dynashard::reshard", segment = self.segment, epoch = self.plan.epoch, "segment taken over by another worker");
        Ok(())
    }

    /// Sets `pace` to this segment's share of the budget as last read.
    fn share(&self, pace: &mut Pace, now: Instant) {
        let plan = *self.shares.plan.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let budget = plan.map_or(self.plan.budget, |plan| plan.budget);
        pace.share(budget, self.shares.held.load(Ordering::Relaxed), now);
    }

    /// Runs `work`, beating `lease` every third of the lease time meanwhile; `None` when the
    /// lease was lost (the work is dropped unfinished).
    async fn beating<F: Future>(
        &self,
        leases: &Leases<'_>,
        lease: &mut Lease,
        work: F,
    ) -> Result<Option<F::Output>> {
        tokio::pin!(work);
        let every = self.options.lease / 3;
        loop {
            tokio::select! {
                output = &mut work => return Ok(Some(output)),
                _ = tokio::time::sleep(every) => {
                    match leases.beat(lease, None, false).await {
                        Ok(true) => {}
                        Ok(false) => return Ok(None),
                        // A beat that failed leaves the lease to expire: another worker takes
                        // the segment over, so this one stops it rather than the whole worker.
                        Err(error) => {
                            tracing::warn!(target: "dynashard::reshard", %error, segment = self.segment, "a beat failed; the segment is left to another worker");
                            return Ok(None);
                        }
                    }
                }
            }
        }
    }

    /// Reads and rewrites the page after `after`, of at most `limit` items: how many items it
    /// read, how many it wrote, and the position after it (`None`: the segment's end).
    async fn page<E: Entity>(
        &self,
        after: Option<&str>,
        limit: Option<u32>,
    ) -> Result<(u64, u64, Option<Item>)> {
        let table = table_of::<E>();
        let index = self.checked.index();
        let refuse = |reason: &str| Error::Resharding { index: index.into(), reason: reason.into() };
        let start = crate::reshard::resume_at(after.map(str::to_owned).as_ref(), index)?;
        // Whole-item puts are safe only while the freeze is in force: renew it before the page
        // is read, and write the page only well within the freeze lease.
        let deadline = Instant::now() + self.options.freeze_lease / 2;
        if let Some(token) = self.freeze {
            if !Reshards::<E>::of(self.db).records()?.renew_freeze(self.key, now_ms(), token).await? {
                return Err(refuse("the freeze was lifted; this batched backfill stopped"));
            }
        }
        let type_name = AttributeValue::S(E::TYPE_NAME.to_owned());
        // The source index, unless the scan reads the table: a batched backfill's (strongly
        // consistent), or an added mapping's, whose items are every item of the entity.
        let (scanned, marker) = match self.checked.source() {
            Some(_) if !self.plan.scan_table => (Some(index), None),
            Some((source_pk, _)) => (None, Some(source_pk)),
            None => (None, None),
        };
        let part = match (&self.piece, self.checked.source()) {
            (Some(piece), Some(keys)) => Part::Piece { piece, keys },
            _ => Part::Segment { segment: self.segment, total: self.plan.segments },
        };
        let read = PageRead {
            table: self.db.table_of::<E>(),
            index: scanned,
            consistent: self.plan.scan_table,
            filter: match marker {
                Some(_) => "#type = :type AND attribute_exists(#spk)",
                None => "#type = :type",
            },
            names: &[("#type", table.type_attribute), ("#spk", marker.unwrap_or_default())]
                [..if marker.is_some() { 2 } else { 1 }],
            values: &[(":type", type_name)],
            start,
            limit,
        };
        let page = self.db.read_part(part, read).await?;
        let place = (self.db.table_of::<E>(), scanned, E::TYPE_NAME);
        self.db.meter().add(place, crate::consumption::Kind::Read, page.units);
        self.meter.read(page.units);
        let items = page.items;
        if self.freeze.is_some() && Instant::now() > deadline {
            return Err(refuse("the page took over half the freeze lease to read; this run stopped"));
        }
        let written = self.rewrite::<E>(&items, deadline).await?;
        Ok((items.len() as u64, written, page.last))
    }

    /// Sends the rewrites of one scanned page (see [`Rewrite`]). Returns how many items were
    /// written.
    async fn rewrite<E: Entity>(&self, items: &[Item], deadline: Instant) -> Result<u64> {
        let pass = self.plan.kind.pass();
        let rewrites: Vec<Rewrite> =
            items.iter().filter_map(|item| Rewrite::of(self.checked, item, pass, table_of::<E>())).collect();
        // An item whose new place breaks a key limit stops the backfill with a typed error
        // before the page is sent; shorten it, and the backfill resumes from its checkpoint.
        rewrites.iter().try_for_each(|rewrite| rewrite.check(table_of::<E>()))?;
        let (db, in_flight, meter) = (self.db, self.options.in_flight, Some(&self.meter));
        match pass {
            Pass::Place if self.plan.scan_table => {
                let deadline = Deadline { at: deadline, index: self.checked.index().to_owned() };
                db.put_rewrites::<E>(rewrites, in_flight, (meter, deadline)).await
            }
            Pass::Place => {
                let (written, skipped) = db.send_rewrites::<E>(rewrites, in_flight, meter).await?;
                Ok(written + db.place_again::<E>(self.checked, skipped, in_flight, meter).await?)
            }
            // An item a writer changed since keeps its source place: harmless, and placed from it.
            Pass::Clean => Ok(db.send_rewrites::<E>(rewrites, in_flight, meter).await?.0),
        }
    }
}

impl ScanKind {
    /// What the scan does to each item.
    fn pass(self) -> Pass {
        match self {
            ScanKind::Backfill => Pass::Place,
            ScanKind::Cleanup => Pass::Clean,
        }
    }
}
