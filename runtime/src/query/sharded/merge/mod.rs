//! Reading a query's partitions as one ordered result: the merge of [`super::heap`] fed by at
//! most `concurrency` requests at a time.
//!
//! The merge decides which partitions to read and how much to ask of each
//! ([`super::sizing`]); this reader sends those requests, hands their pages back (minus the
//! items a resumed page end drops), learns the size of the items, and remembers the last item
//! it emitted, which is where a cursor resumes. Reaching the limit, or dropping the reader,
//! cancels the requests in flight.

use super::heap::{Continuation, Merger, Step};
use super::lanes::Lanes;
use super::resume::{finish_passed_lanes, identity, Horizon, PageEnd, Resumed, Start, Ties};
use super::sizing::{self, LaneSizes};
use super::{bounded_range, request_limit};
use crate::consumption::carry;
use crate::db::Db;
use crate::error::{Error, Item, Result};
use crate::item_size::item_size;
use crate::query::request::{fetch, resume_key, sort_key_of, RawPage, Request};
use crate::query::SortRange;
use crate::query::{QueryPlan, QueryStats};
use std::collections::BTreeMap;
use std::sync::Arc;
use tokio::task::{JoinError, JoinSet};

mod listing;

type Joined = std::result::Result<(usize, Result<RawPage>), JoinError>;

/// The merging reader: raw items of every partition, in the read's order.
pub(crate) struct Merge {
    db: Db,
    plan: Arc<QueryPlan>,
    stats: QueryStats,
    lanes: Lanes,
    merger: Merger<Item, Item>,
    resumed: Option<Resumed>,
    sizes: LaneSizes,
    tasks: JoinSet<(usize, Result<RawPage>)>,
    /// The sort key each lane's request in flight reads up to, when bounded: its answer ends
    /// there, not at the end of the partition.
    until: BTreeMap<usize, String>,
    /// Right after the last item emitted, else where the read began; shared, so a stream can
    /// hold on to it while the next item is read.
    end: Arc<Start>,
    /// Items still wanted, when the read has a limit.
    pub(crate) remaining: Option<usize>,
    /// The ties a page end from another layout carried, while the items emitted share its sort
    /// key: the cursors of those items carry them on.
    ties: Option<(String, Ties)>,
    /// Whether a request for a part of the bucket directory is in flight.
    listing: bool,
    /// For a window merged as one whose index keeps a bucket directory: the lanes its parts
    /// read so far list, and where the next part starts (`None`: at the window's start).
    window_listing: Option<(Vec<usize>, Option<String>)>,
    /// What the page before held, from the page end the read resumed at: the end right after
    /// the first item emitted carries it, for a previous page from there.
    back: Option<Arc<Horizon>>,
    /// The sort key and lane of the first item emitted, and the items emitted of each lane
    /// (by natural number): what a page end of this read tells the page after it of this one.
    emitted: Option<(String, u64, BTreeMap<u64, usize>)>,
    /// Whether the read began at the beginning of the query.
    from_beginning: bool,
    /// Whether no item size is known for the index yet: one lane is asked alone first, and the
    /// others once its answer says how large the items are (see [`sizing::probes`]).
    probe: bool,
    /// For a previous page's read, whether its cursor says it is the query's first page (the
    /// page it reads again began at the beginning); `None` for other reads.
    first_page: Option<bool>,
}

/// The lane number a bucket directory's request answers under.
const DIRECTORY: usize = usize::MAX;

impl Merge {
    /// A reader starting at `start`, with items of about `item_bytes` when known; it can report
    /// where it stopped.
    pub(crate) fn new(
        db: Db,
        plan: Arc<QueryPlan>,
        stats: QueryStats,
        start: Start,
        item_bytes: Option<u64>,
        remaining: Option<usize>,
    ) -> Self {
        let item_bytes = item_bytes.or_else(|| db.item_sizes.recall(plan.table.name, index_name(&plan)));
        let lanes = Lanes::of(&plan);
        let groups = lanes.groups();
        let resumption = match &start {
            Start::Beginning => None,
            Start::After(end) => {
                let at = match end.lane {
                    Some(natural) => lanes.lane(natural).map(|lane| {
                        let (group, place) = lanes.split(lane);
                        (group, Some(place))
                    }),
                    None => Some((0, None)),
                };
                at.map(|at| {
                    let sort_key = sort_key_of(&plan, &end.key);
                    let (range, width, descending) = (&plan.range, groups.width, plan.descending);
                    Resumed::at(range, at, width, sort_key, end.clone(), descending)
                })
            }
        };
        let ties = resumption.as_ref().and_then(|(resumed, _)| {
            let sort_key = resumed.sort_key.clone()?;
            (!resumed.ties.is_empty()).then(|| (sort_key, Arc::clone(&resumed.ties)))
        });
        let back = match &start {
            Start::After(end) => end.back.clone(),
            Start::Beginning => None,
        };
        let from_beginning = matches!(start, Start::Beginning);
        let first_page = match &start {
            Start::After(PageEnd { horizon: Some(horizon), .. }) if horizon.first.is_some() => {
                Some(horizon.beginning)
            }
            _ => None,
        };
        let told = match &start {
            Start::After(end) => end.told(&lanes),
            Start::Beginning => Vec::new(),
        };
        let (merger, resumed) = match resumption {
            Some((resumed, mut starts)) => {
                if !plan.lane_ranges.is_empty() {
                    finish_passed_lanes(&plan, &lanes, &resumed, &mut starts);
                }
                let merger = Merger::new(plan.descending, groups, resumed.group, starts).told(told);
                (merger, Some(resumed))
            }
            None => (Merger::new(plan.descending, groups, 0, Vec::<Continuation<Item>>::new()), None),
        };
        let window_listing = lanes.window_span().map(|_| (Vec::new(), None));
        let listed = lanes.directory_span(0).is_some() || window_listing.is_some();
        let merger = if listed { merger.listed() } else { merger };
        let probe = sizing::probes(item_bytes, remaining, plan.sizing);
        Merge {
            db,
            plan,
            stats,
            lanes,
            merger,
            resumed,
            sizes: LaneSizes::starting_at(item_bytes),
            tasks: JoinSet::new(),
            until: BTreeMap::new(),
            end: Arc::new(start),
            remaining,
            ties,
            listing: false,
            window_listing,
            back,
            emitted: None,
            from_beginning,
            first_page,
            probe,
        }
    }

    /// Whether more items are known to follow the last one emitted, without reading more:
    /// when a lane holds some already, or for a previous page, whether its cursor says a page
    /// came before it (the page it reads again did not begin at the beginning); `None` when
    /// only reading on can tell.
    pub(crate) fn more_known(&self) -> Option<bool> {
        if self.merger.buffers_any() {
            return Some(true);
        }
        self.first_page.map(|first| !first)
    }

    /// The next raw item in the read's order; `None` at the end.
    pub(crate) async fn next_raw(&mut self) -> Option<Result<Item>> {
        loop {
            while let Some(joined) = self.tasks.try_join_next() {
                if let Err(error) = self.accept(joined) {
                    return Some(Err(error));
                }
            }
            self.dispatch();
            match self.merger.pop() {
                Step::Item(lane, item) => {
                    let key = resume_key(&self.plan, &item);
                    let sort_key = sort_key_of(&self.plan, &item);
                    if self.ties.as_ref().is_some_and(|(tied, _)| Some(tied.as_str()) != sort_key) {
                        self.ties = None;
                    }
                    let ties = self.ties.as_ref().map(|(_, ties)| Arc::clone(ties)).unwrap_or_default();
                    let natural = self.lanes.natural(lane);
                    // Only the end right after the first item follows the page the read resumed after.
                    let back = if self.emitted.is_none() { self.back.take() } else { None };
                    let first = || (sort_key.unwrap_or_default().to_owned(), natural, BTreeMap::new());
                    let (_, _, lanes) = self.emitted.get_or_insert_with(first);
                    *lanes.entry(natural).or_default() += 1;
                    let lane = Some(natural);
                    self.end = Arc::new(Start::After(PageEnd { lane, key, ties, horizon: None, back }));
                    return Some(Ok(item));
                }
                Step::Done => return None,
                Step::Blocked => {}
            }
            let Some(joined) = self.tasks.join_next().await else {
                let message = "the merge of shards is blocked with no request in flight".into();
                return Some(Err(Error::Background { message }));
            };
            if let Err(error) = self.accept(joined) {
                return Some(Err(error));
            }
        }
    }

    /// Hands a finished request's page to the merge.
    fn accept(&mut self, joined: Joined) -> Result<()> {
        let (lane, page) = joined.map_err(|join| Error::Background { message: join.to_string() })?;
        if lane == DIRECTORY {
            self.accept_listing(&page?);
            return Ok(());
        }
        self.probe = false;
        let page = page?;
        if self.remaining.is_some() && !page.items.is_empty() {
            let sizes: Vec<u64> = page.items.iter().map(|item| item_size(item) as u64).collect();
            // A unit is 4 KB, charged half when eventually consistent; with a filter, the units
            // paid for items that were not returned too.
            let per_unit = if self.plan.consistent { 1.0 } else { 0.5 };
            let units = ((self.plan.filter.is_none() && !self.plan.unexpired) && page.capacity_units > 0.0)
                .then(|| (page.capacity_units / per_unit).round() as u64);
            self.sizes.record(lane, &sizes, units);
            if let Some(mean) = self.sizes.mean() {
                self.db.item_sizes.remember(self.plan.table.name, index_name(&self.plan), mean);
            }
        }
        let plan = &self.plan;
        let (group, place) = self.lanes.split(lane);
        let resumed = self.resumed.as_ref().filter(|resumed| resumed.covers(group));
        // A merge's lane drops what its own range excludes; other reads, what the plan's does
        // (resumed here, else by the reader).
        let own = (!plan.lane_ranges.is_empty()).then(|| self.lane_range(lane, group)).flatten();
        let kept = |item: &Item| {
            let sort_key = sort_key_of(plan, item);
            let dropped = resumed.is_some_and(|resumed| {
                resumed.drops(place, sort_key, || identity(plan.table, item))
                    || (own.is_none() && resumed.range.excludes(sort_key))
            });
            !dropped && !own.as_ref().is_some_and(|range| range.excludes(sort_key))
        };
        let sort_key = |item: &Item| sort_key_of(plan, item).unwrap_or_default().as_bytes().to_vec();
        let floor = page
            .last_evaluated_key
            .as_ref()
            .and_then(|key| sort_key_of(plan, key))
            .map(|key| key.as_bytes().to_vec());
        // A bounded request read everything of the lane up to its bound, unless it stopped at
        // its limit: it goes on after its last item.
        let bound = self.until.remove(&lane);
        let bounded = bound.is_some();
        let (floor, more) = match (page.last_evaluated_key, bound) {
            (Some(key), _) => (floor, Some(key)),
            (None, Some(bound)) => {
                (Some(bound.into_bytes()), page.items.last().map(|item| resume_key(plan, item)))
            }
            (None, None) => (floor.or_else(|| page.items.last().map(sort_key)), None),
        };
        let entries = page.items.into_iter().filter(kept).map(|item| (sort_key(&item), item)).collect();
        self.merger.fill(lane, entries, more, floor, bounded);
        Ok(())
    }

    /// Sends the requests the merge wants, up to the concurrency cap.
    fn dispatch(&mut self) {
        self.dispatch_lanes();
        self.dispatch_listing();
    }

    /// Sends the lane requests the merge wants, up to the concurrency cap.
    fn dispatch_lanes(&mut self) {
        let mut slots = self.plan.concurrency.saturating_sub(self.tasks.len());
        if self.probe {
            // The lane asked first answers before any other is asked.
            let lanes_in_flight = self.tasks.len() > usize::from(self.listing);
            slots = if lanes_in_flight { 0 } else { slots.min(1) };
        }
        if slots == 0 {
            return;
        }
        let cap = request_limit(&self.plan, self.remaining);
        let wanted =
            self.remaining.map(|remaining| remaining.saturating_add(usize::from(self.plan.excludes_any())));
        let (sizes, mode) = (&self.sizes, self.plan.sizing);
        let requests = self
            .merger
            .requests(wanted, slots, |lane, demand| sizing::limit(demand, sizes.of(lane), cap, mode));
        for request in requests {
            let (group, _) = self.lanes.split(request.lane);
            let mut range = self.lane_range(request.lane, group);
            let lane = request.lane;
            let until = request.until.filter(|_| sizing::worth_bounding(request.limit, self.sizes.of(lane)));
            if let Some((key, part)) =
                until.and_then(|until| bounded_range(&self.plan, range.as_ref(), &request.start, until))
            {
                range = Some(part);
                self.until.insert(lane, key);
            }
            let request = Request {
                partition: self.lanes.partition(&self.plan, lane),
                shard: self.lanes.shard(lane),
                range,
                start: request.start,
                limit: request.limit,
            };
            let (db, plan, stats) = (self.db.clone(), Arc::clone(&self.plan), self.stats.clone());
            self.tasks.spawn(carry(async move { (lane, fetch(&db, &plan, request, &stats).await) }));
        }
    }

    /// Where a read resuming right after the last item emitted starts; `None` when nothing is
    /// left to read.
    pub(crate) fn position(&self) -> Option<&Arc<Start>> {
        (!self.merger.is_exhausted()).then_some(&self.end)
    }

    /// The range a request of lane `lane` (of group `group`) reads, when not the plan's own:
    /// the resumed range, or a merge's lane's own range (resumed at the page end).
    fn lane_range(&self, lane: usize, group: u64) -> Option<SortRange> {
        let resumed = self.resumed.as_ref().filter(|resumed| resumed.covers(group));
        if self.plan.lane_ranges.is_empty() {
            return resumed.map(|resumed| resumed.range.clone());
        }
        let own = self.plan.range_of(self.lanes.natural(lane));
        match resumed.and_then(|resumed| resumed.sort_key.as_deref()) {
            // A lane whose range lies before the page end was finished when the read began.
            Some(key) => own.part_from(key, self.plan.descending),
            None => Some(own.clone()),
        }
    }

    /// Right after the last item emitted, else where the read began, whether or not anything is
    /// left after it.
    pub(crate) fn last_end(&self) -> &Arc<Start> {
        &self.end
    }

    /// [`Merge::position`] at the end of a page, with the page end's horizon for a next page of
    /// `items` (see `heap::horizon`), when the merge knows one.
    pub(crate) fn page_end(&self, items: usize) -> Option<Arc<Start>> {
        let start = self.position()?;
        let Start::After(end) = start.as_ref() else { return Some(Arc::clone(start)) };
        // Horizons name lanes of one merged group (see `parked`).
        if end.lane.is_none() || self.lanes.groups().count != 1 {
            return Some(Arc::clone(start));
        }
        let ahead = self.merger.horizon(items);
        let horizon = ahead.and_then(|(bands, held)| Horizon::ahead(bands, &held, &self.lanes)).map(Arc::new);
        // Parking no more than half the lanes saves no more than half a previous page's
        // requests: the cursor says nothing of a page whose items came from more.
        let width = self.lanes.groups().width;
        let few = |(_, _, held): &&(String, u64, BTreeMap<u64, usize>)| 2 * held.len() <= width;
        let back = self.emitted.as_ref().filter(few).map(|(key, first, held)| {
            Arc::new(Horizon::back(key.clone(), held.clone(), *first, self.from_beginning))
        });
        Some(Arc::new(Start::After(PageEnd { horizon, back, ..end.clone() })))
    }

    /// The size the next page's requests take items to have, if any were measured: the largest
    /// mean of a lane (see [`LaneSizes::fitting`]).
    pub(crate) fn item_bytes(&self) -> Option<u64> {
        self.sizes.fitting()
    }

    /// Cancels every request in flight, keeping the position.
    pub(crate) fn stop(&mut self) {
        self.tasks.abort_all();
    }
}

/// The index a plan reads, `""` for the table itself.
fn index_name(plan: &QueryPlan) -> &'static str {
    plan.index.map_or("", |index| index.name)
}
