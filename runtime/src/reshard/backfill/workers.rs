//! One worker of a shared scan: it leases free segments (or those whose holder went silent for
//! the lease time), works on up to its concurrency at once, and returns once every segment of
//! the scan is done, by whichever worker.
//!
//! Each segment is placed exactly once in effect: a lease names one holder at a time (every
//! change of it is conditioned on the owner and the fence it was acquired with), a new holder
//! resumes from the last recorded position, and every write a segment makes is conditioned on
//! the item as the scan read it, so the pages a silent holder may still write, or a new holder
//! writes again, change nothing that was not meant.

use super::options::Backfill;
use super::plan::{segment_key, segment_keys, Wanted};
use super::segment::{Segment, Shares};
use crate::db::Db;
use crate::entity::Entity;
use crate::error::Result;
use crate::metadata::lease::{LeaseRecord, Leases};
use crate::metadata::{refuse, Checked, ReshardState, ScanPlan};
use crate::reshard::not_started;
use crate::reshard::pace::Meter;
use crate::reshard::view::Reshards;
use futures::stream::{FuturesUnordered, StreamExt};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// Why a worker stops when another started a scan it does not do.
const REPLACED_BY_ANOTHER_KIND: &str = "another worker started a scan of another kind; this one stopped";

impl Db {
    /// Works on the scan `wanted` of `state`'s resharding until every segment is done, or until
    /// its [deadline](Backfill::stop_by) (its segments given up).
    pub(super) async fn sweep<E: Entity>(
        &self,
        state: &ReshardState,
        options: &Backfill,
        wanted: Wanted,
        freeze: Option<&str>,
    ) -> Result<Swept> {
        let checked = Checked::new::<E>(state)?;
        let reshards = Reshards::<E>::of(self);
        let (shards, key) = (reshards.metadata()?, reshards.key(&state.source));
        let leases = Leases { db: self.into(), table: shards.table() };
        let owner = options.worker.clone().unwrap_or_else(|| shards.worker().to_owned());
        let mut plan = self.plan_for::<E>(&state.source, options, wanted).await?;
        let mut pieces = self.pieces_of::<E>(&checked, &key, &plan, options).await?;
        let shares = Arc::new(Shares::default());
        let store = (&leases, &*shares);
        let ended = 'scan: loop {
            // `done`: segments seen done, with their leases as seen then, not read again (an
            // ended lease stays as it ended: see `Swept::Done`).
            let (mut running, mut mine, mut done) =
                (FuturesUnordered::new(), BTreeSet::new(), BTreeMap::new());
            while !options.past_deadline() {
                // The resharding as recorded now: moved past this scan by another worker, the
                // scan replaced by a newer one, or its budget changed. Read before the leases, so
                // that a worker never takes the end of a replaced scan for the end of the work.
                let recorded = alongside(&mut running, &mut mine, reshards.records()?.read(&key)).await??;
                let recorded = recorded.ok_or_else(|| not_started(&state.source))?;
                if !wanted.phase_fits(recorded.phase) {
                    break 'scan BTreeMap::new();
                }
                match recorded.scan {
                    Some(newer) if newer.epoch != plan.epoch => {
                        drop(running); // stops this worker's segments of the old scan
                        if !wanted.fits(&newer) {
                            return Err(refuse(&state.source, REPLACED_BY_ANOTHER_KIND));
                        }
                        let wanted = Wanted { again: false, ..wanted };
                        plan = self.plan_for::<E>(&state.source, options, wanted).await?;
                        pieces = self.pieces_of::<E>(&checked, &key, &plan, options).await?;
                        continue 'scan;
                    }
                    Some(recorded) => plan.budget = recorded.budget,
                    None => {}
                }
                let free = options.concurrency.unwrap_or(usize::MAX).saturating_sub(running.len());
                let (who, tracked) = ((&*shards, &*key, &*owner), (&mut running, &mut mine, &mut done));
                let Some((seen, takeable)) = look(who, &plan, store, options, tracked, free).await? else {
                    continue;
                };
                if running.is_empty() && done.len() == plan.segments as usize {
                    break 'scan std::mem::take(&mut done);
                }
                shares.set(plan, held(&segment_keys(&key, &plan), &seen, &mine, takeable.len().min(free)));
                for segment in takeable {
                    if running.len() >= options.concurrency.unwrap_or(usize::MAX) {
                        break;
                    }
                    let lease_key = segment_key(&key, &plan, segment);
                    let Some(working) = shards.work_on(&lease_key) else { continue };
                    let taking = leases.acquire(&lease_key, seen.get(&lease_key), &owner, 0);
                    let Some(lease) = alongside(&mut running, &mut mine, taking).await?? else {
                        continue; // another worker took it first
                    };
                    tracing::debug!(target: "dynashard::reshard", segment, epoch = plan.epoch, owner, "segment leased");
                    mine.insert(segment);
                    let work = Segment {
                        db: self,
                        checked: &checked,
                        key: &key,
                        plan,
                        segment,
                        piece: pieces.get(segment as usize).cloned(),
                        options,
                        freeze,
                        meter: Meter::default(),
                        shares: Arc::clone(&shares),
                    };
                    running.push(async move {
                        let outcome = work.run::<E>(lease).await;
                        drop(working);
                        (segment, outcome)
                    });
                }
                shares.hold(held(&segment_keys(&key, &plan), &seen, &mine, 0));
                next_ended(&mut running, &mut mine, options.poll()).await?;
            }
            stopped(&mut running, &mut mine, options.poll()).await?;
            return Ok(Swept::Stopped);
        };
        Ok(Swept::Done(by_key(&key, &plan, ended)))
    }
}

/// The leases of `done` segments of `plan` by their metadata keys.
fn by_key(key: &str, plan: &ScanPlan, done: BTreeMap<u32, LeaseRecord>) -> HashMap<String, LeaseRecord> {
    done.into_iter().map(|(segment, lease)| (segment_key(key, plan, segment), lease)).collect()
}

/// How a worker's part in a scan ended.
pub(super) enum Swept {
    /// Its deadline came first: it gave its segments up, the scan not done.
    Stopped,
    /// The scan is done, or the resharding moved past it, by whichever worker. With the leases of
    /// the segments it saw done, by their metadata keys: of every segment when it saw them all
    /// done, none when it learnt of the end from the resharding's record. They are the scan's
    /// progress without a second read, since an ended lease never changes: its end removes the
    /// owner and raises the beat, and every later beat or acquisition is conditioned on the owner
    /// or on the fence and beat as seen before the end.
    Done(HashMap<String, LeaseRecord>),
}

impl Swept {
    /// The leases seen ended ([`Swept::Done`]), none if it stopped.
    pub(super) fn ended(self) -> HashMap<String, LeaseRecord> {
        match self {
            Swept::Stopped => HashMap::new(),
            Swept::Done(ended) => ended,
        }
    }
}

/// Who looks at a scan's leases: the shard metadata, the resharding record's key, the worker.
type Who<'a> = (&'a crate::metadata::ShardMetadata, &'a str, &'a str);

/// Reads the leases a worker needs to take segments of `plan`: those of the segments not seen
/// done, in the order it tries them, a few more than it may take (`free`) at first and twice as
/// many at each read after, until they hold as many as it may take; all of them when a budget
/// is shared among the segments being worked on, which it counts. Reading every segment's lease
/// at every look would read workers × segments leases a poll. Returns the leases read and the segments it may take, in
/// order; segments seen done join `done`. `None` when it may take none and has no budget to
/// share: it read nothing, and waited for one of its segments to end (or a poll).
async fn look<Fut>(
    who: Who<'_>,
    plan: &ScanPlan,
    (leases, shares): (&Leases<'_>, &Shares),
    options: &Backfill,
    (running, mine, done): (&mut FuturesUnordered<Fut>, &mut BTreeSet<u32>, &mut BTreeMap<u32, LeaseRecord>),
    free: usize,
) -> Result<Option<(HashMap<String, LeaseRecord>, Vec<u32>)>>
where
    Fut: Future<Output = (u32, Result<()>)>,
{
    let every = plan.budget.write_units.is_some() || plan.budget.read_units.is_some();
    if free == 0 && !every {
        shares.set(*plan, shares.held.load(std::sync::atomic::Ordering::Relaxed));
        next_ended(running, mine, options.poll()).await?;
        return Ok(None);
    }
    let key = who.1;
    let order = order(who, plan, (mine, done));
    let first = if every { order.len() } else { free.saturating_add(SPARE_LEASES) };
    let (mut seen, mut takeable) = (HashMap::new(), Vec::new());
    for range in reads(first, order.len()) {
        let chunk = &order[range];
        let chunk_keys: Vec<String> = chunk.iter().map(|segment| segment_key(key, plan, *segment)).collect();
        seen.extend(alongside(running, mine, leases.read(&chunk_keys)).await??);
        for (segment, lease_key) in chunk.iter().zip(&chunk_keys) {
            match seen.get(lease_key) {
                Some(lease) if lease.ended => _ = done.insert(*segment, lease.clone()),
                _ if may_take(who, plan, &seen, *segment, options) => takeable.push(*segment),
                _ => {}
            }
        }
        if takeable.len() >= free && !every {
            break;
        }
    }
    Ok(Some((seen, takeable)))
}

/// The reads of a look at `len` leases, as ranges of them in order: `first` at first, then twice
/// as many as the read before, so that near the scan's end, when every segment left is held by
/// another worker, a worker reads them all in a few round trips (1,000 in 6 from 25), not in
/// `len / first`.
fn reads(first: usize, len: usize) -> impl Iterator<Item = std::ops::Range<usize>> {
    let mut next: (usize, usize) = (0, first.max(1));
    std::iter::from_fn(move || {
        let (start, size) = next;
        let end = start.saturating_add(size).min(len);
        next = (end, size.saturating_mul(2));
        (start < len).then_some(start..end)
    })
}

/// The segments of `plan` this worker may try to lease, in the order to try them: not seen
/// done, not its own, not being worked on in this process, from a place of its own, so that workers that
/// start together try different segments first, rather than all but one losing the race for
/// the lowest free one, then for the next.
fn order(
    (shards, key, owner): Who<'_>,
    plan: &ScanPlan,
    (mine, done): (&BTreeSet<u32>, &BTreeMap<u32, LeaseRecord>),
) -> Vec<u32> {
    let mut order: Vec<u32> = (0..plan.segments)
        .filter(|segment| {
            !mine.contains(segment)
                && !done.contains_key(segment)
                && !shards.working_on(&segment_key(key, plan, *segment))
        })
        .collect();
    let first = crate::shard::hash_shard(owner, plan.segments);
    let start = order.partition_point(|segment| *segment < first);
    order.rotate_left(start);
    order
}

/// Whether this worker may lease `segment` as its lease was `seen`: free (never leased, or
/// given up), left by a worker of this process that stopped, or held by a worker silent for
/// the lease time (by what this process watched of it); not done.
fn may_take(
    (shards, key, owner): Who<'_>,
    plan: &ScanPlan,
    seen: &HashMap<String, LeaseRecord>,
    segment: u32,
    options: &Backfill,
) -> bool {
    let lease_key = segment_key(key, plan, segment);
    match seen.get(&lease_key) {
        None => true,
        Some(lease) if lease.ended => false,
        Some(lease) if lease.owner.is_none() => true,
        // Left by a worker of this process that stopped: under the process's own name
        // only, never under a name several processes may share.
        Some(lease) if lease.owner.as_deref() == Some(owner) && owner == shards.worker() => true,
        Some(lease) => shards.lease_expired(&lease_key, Some(lease), options.lease),
    }
}

/// Leases a worker reads beyond the segments it may take at the first read of a look: others'
/// segments among them are passed over.
const SPARE_LEASES: usize = 24;

/// The segments being worked on, by this worker (`mine`) or another (an unfinished lease with a
/// holder, as `seen` last): the budget is shared among them, not among every unfinished segment,
/// so that workers that hold fewer segments than a scan has (`.concurrency(n)`) still spend the
/// whole budget. A segment another worker took since `seen` was read is counted at the next
/// look, one poll later: until then this worker spends up to its old share. The `taking`
/// segments this worker is about to lease count from their first page: a segment started before
/// the count included it would spend the share of fewer.
fn held(keys: &[String], seen: &HashMap<String, LeaseRecord>, mine: &BTreeSet<u32>, taking: usize) -> u32 {
    let held = keys.iter().enumerate().filter(|(segment, key)| {
        u32::try_from(*segment).is_ok_and(|segment| mine.contains(&segment))
            || seen.get(*key).is_some_and(|lease| !lease.ended && lease.owner.is_some())
    });
    u32::try_from(held.count().saturating_add(taking)).unwrap_or(u32::MAX)
}

/// Awaits `work` while the segments in `running` go on: their pages and beats never wait for this
/// worker's reading of leases and records. A segment that ends meanwhile leaves `mine`; its
/// error is this worker's.
async fn alongside<Fut, F>(
    running: &mut FuturesUnordered<Fut>,
    mine: &mut BTreeSet<u32>,
    work: F,
) -> Result<F::Output>
where
    Fut: Future<Output = (u32, Result<()>)>,
    F: Future,
{
    let mut work = std::pin::pin!(work);
    loop {
        tokio::select! {
            output = &mut work => return Ok(output),
            Some((segment, outcome)) = running.next(), if !running.is_empty() => {
                mine.remove(&segment);
                outcome?;
            }
        }
    }
}

/// After the worker's deadline: waits for its segments, which give themselves up after their
/// page under way.
async fn stopped<Fut>(
    running: &mut FuturesUnordered<Fut>,
    mine: &mut BTreeSet<u32>,
    poll: Duration,
) -> Result<()>
where
    Fut: Future<Output = (u32, Result<()>)>,
{
    while !running.is_empty() {
        next_ended(running, mine, poll).await?;
    }
    Ok(())
}

/// Waits up to `poll` for one segment of `running` to end (just `poll` when none runs). A segment
/// that ends leaves `mine`; its error is this worker's.
async fn next_ended<Fut>(
    running: &mut FuturesUnordered<Fut>,
    mine: &mut BTreeSet<u32>,
    poll: Duration,
) -> Result<()>
where
    Fut: Future<Output = (u32, Result<()>)>,
{
    if running.is_empty() {
        tokio::time::sleep(poll).await;
        return Ok(());
    }
    tokio::select! {
        Some((segment, outcome)) = running.next() => {
            mine.remove(&segment);
            outcome?;
        }
        _ = tokio::time::sleep(poll) => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lease(owner: Option<&str>, ended: bool) -> LeaseRecord {
        LeaseRecord { owner: owner.map(str::to_owned), ended, ..LeaseRecord::default() }
    }

    #[test]
    fn a_look_reads_twice_as_many_leases_each_read() {
        let ranges = |first, len| reads(first, len).collect::<Vec<_>>();
        assert_eq!(ranges(25, 1_000), [0..25, 25..75, 75..175, 175..375, 375..775, 775..1_000]);
        assert_eq!(ranges(25, 10), vec![0..10], "fewer than the first read");
        assert_eq!(
            ranges(1_000, 1_000),
            vec![0..1_000],
            "every lease at once, to count the budget's holders"
        );
        assert_eq!(ranges(0, 3), [0..1, 1..3], "at least one a read");
        assert!(ranges(25, 0).is_empty());
        assert_eq!(ranges(usize::MAX, 5), vec![0..5]);
        let covered: usize = reads(1, 100_000).map(|range| range.len()).sum();
        assert_eq!((covered, reads(1, 100_000).count()), (100_000, 17));
    }

    #[test]
    fn the_budget_is_shared_among_the_segments_being_worked_on() {
        let keys: Vec<String> = (0..64).map(|segment| format!("scan/{segment}")).collect();
        // This worker holds 8 segments (4 of them not in the leases it read yet); another worker
        // holds 2; 3 are done, 1 is free, and the rest were never leased.
        let mine: BTreeSet<u32> = (0..8).collect();
        let mut seen = HashMap::new();
        for key in &keys[0..4] {
            seen.insert(key.clone(), lease(Some("this"), false));
        }
        seen.insert(keys[10].clone(), lease(Some("other"), false));
        seen.insert(keys[11].clone(), lease(Some("other"), false));
        for key in &keys[20..23] {
            seen.insert(key.clone(), lease(Some("other"), true));
        }
        seen.insert(keys[30].clone(), lease(None, false));
        assert_eq!(held(&keys, &seen, &mine, 0), 10, "8 of this worker's and 2 of the other's");
        assert_eq!(held(&keys, &seen, &mine, 3), 13, "and 3 it is about to lease");
        assert_eq!(held(&keys, &HashMap::new(), &BTreeSet::new(), 0), 0);
    }
}
