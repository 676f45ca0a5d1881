//! One ordered read over several partition keys: [`Query::merge`].
//!
//! A merged query is one query over every partition its queries read (each key's partition, or
//! each key's shards), merged on the sort key like the shards of one sharded query: one stream,
//! one page API, one cursor. Its partitions are kept sorted by key, so the same set of keys in
//! any order is the same query, and its cursors are bound to that set.

use super::conditions::Done;
use super::SortRange;
use super::{Query, QueryError, QueryPlan, QueryTarget};
use crate::expression::Placeholders;
use crate::shard::{Layout, ShardMode, Shards};

/// The partition keys a merged query reads at most unless told otherwise
/// ([`Query::max_keys`]). A first page asks every key, so it costs at least a request (half a
/// read unit) a key: 1,000 keys is 1,000 requests and 500 read units, about as far as a read at
/// request time should go; past it, a feed written ahead (one item per reader) costs less.
pub const DEFAULT_MAX_KEYS: usize = 1_000;

impl<E> Query<E, Done> {
    /// One query over the partition keys of `queries`, yielding their items as one sequence in
    /// sort-key order (descending when they are), paged with one cursor: the posts of the
    /// accounts a user follows, newest first; the open orders of a set of warehouses by due
    /// date.
    ///
    /// The queries are queries of one index (sharded or not) in one direction, with the same
    /// filter, projection and consistency; otherwise the merged query fails with
    /// [`Error::InvalidQuery`](crate::Error::InvalidQuery) when it runs. Each may have a sort-key
    /// condition of its own ([`Query::is_in`] is such a merge); two of one partition whose
    /// conditions can hold a key in common are refused, as an item would be read twice. A key given twice is read once, and the order of the keys does not matter
    /// (a cursor of the same keys in another order resumes). Items with equal sort keys come key
    /// by key, in the keys' text order. Set the limit, page size, concurrency and cursor on the
    /// merged query; those of the queries are not used. More than
    /// [`max_keys`](Query::max_keys) keys (default [`DEFAULT_MAX_KEYS`]) fail with
    /// [`Error::TooManyKeys`](crate::Error::TooManyKeys); a merge of none fails with
    /// `InvalidQuery` (it has no index to read: skip the read when there are no keys). A merge
    /// of time-bucketed or dynamic-sharded queries is not supported (an `InvalidQuery`).
    ///
    /// Each key is first asked for its share of a page, filled to whole read units, and asked
    /// again only when the merge runs out of its items before the page is full. A page's cursor
    /// remembers where every key's next item lies, in bands of about a page's worth of keys
    /// (about a byte per key), so later pages ask only the keys whose band they reach, and
    /// each key they ask for the items it is known to hold of them and one more.
    ///
    /// ```no_run
    /// # use dynashard::{Db, Entity, Query, Table};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Table)] #[table(name = "Social", pk = "pk", sk = "sk")] struct Social;
    /// #[derive(Entity, Serialize, Deserialize)]
    /// #[entity(table = Social, pk = "author#{author}", sk = "post#{at}")]
    /// struct Post { author: String, at: u64, text: String }
    ///
    /// # async fn example(db: Db, following: Vec<String>, cursor: Option<String>) -> dynashard::Result<()> {
    /// // The newest posts of every account followed, 20 a page.
    /// let feed = Query::merge(following.iter().map(|author| Post::query(author.as_str()).descending()));
    /// let page = db.page(&feed.page_size(20), cursor.as_deref()).await?;
    /// for post in &page.items {
    ///     println!("{} {}: {}", post.at, post.author, post.text);
    /// }
    /// let next = page.cursor; // `None` after the last page
    /// # drop(next);
    /// # Ok(()) }
    /// ```
    pub fn merge<F>(queries: impl IntoIterator<Item = Query<E, F>>) -> Self {
        let mut plans = queries.into_iter().map(|query| query.plan);
        let Some(first) = plans.next() else { return nothing() };
        let mut merged = first;
        let mut parts = vec![Part::of(&merged)];
        let mut error = merged.error.take().or_else(|| unmergeable(&merged));
        for plan in plans {
            if error.is_none() {
                error = plan.error.clone().or_else(|| unmergeable(&plan)).or_else(|| differs(&merged, &plan));
            }
            parts.push(Part::of(&plan));
        }
        parts.sort_by(|a, b| a.order.cmp(&b.order));
        parts.dedup_by(|a, b| a.order == b.order);
        // A query whose range is empty reads nothing; when all are, the merge reads nothing.
        parts.retain(|part| !part.range.is_empty());
        error = error.or_else(|| overlapping(&parts));
        let Some(head) = parts.first() else {
            merged.error = error;
            return Query { plan: merged, marker: std::marker::PhantomData };
        };
        let layout = merged.shards.as_ref().map_or(Layout::Unsharded, |shards| shards.layout.clone());
        merged.partition_value = head.key.clone();
        let uniform = parts.iter().all(|part| part.range == head.range);
        // Ranges one after another, a partition each (`is_in` on a hash shard's field): read in
        // order, as range shards are, rather than merged.
        let in_order = !uniform && parts.iter().all(|part| part.partitions.len() == 1) && disjoint(&parts);
        if in_order {
            parts.sort_by(|a, b| a.range.start_cmp(&b.range));
        }
        let head = &parts[0];
        if uniform {
            merged.range = head.range.clone();
        } else {
            // Each lane reads its own range: the plan's own selects every key, so that nothing
            // is dropped by it.
            merged.range = SortRange::all();
            merged.key_ranges = parts.iter().map(|part| part.range.clone()).collect();
            merged.lane_ranges =
                parts.iter().flat_map(|part| part.partitions.iter().map(|_| part.range.clone())).collect();
        }
        merged.shards = Some(Shards {
            partitions: parts.iter().flat_map(|part| part.partitions.iter().cloned()).collect(),
            window: None,
            mode: if in_order { ShardMode::InOrder } else { ShardMode::Merge },
            layout,
            target: None,
            directory: false,
        });
        merged.keys = parts.into_iter().map(|part| part.key).collect();
        merged.error = error;
        merged.start_after = None;
        merged.routing = None;
        Query { plan: merged, marker: std::marker::PhantomData }
    }
}

/// One query of a merge: its partition key, sort-key range and partitions.
struct Part {
    key: String,
    range: SortRange,
    partitions: Vec<String>,
    /// Orders parts by key, then range, whatever order they were given in.
    order: (String, String),
}

impl Part {
    fn of(plan: &QueryPlan) -> Self {
        let range = plan.range.clone();
        // A derived record of the range: the same range always writes the same text.
        let text = serde_json::to_string(&range).unwrap_or_default();
        let partitions = partitions_of(plan);
        Part {
            key: plan.partition_value.clone(),
            order: (plan.partition_value.clone(), text),
            range,
            partitions,
        }
    }
}

/// Whether no two parts' ranges may hold a key in common: ordered by where they start, each
/// must end before the next starts (n log n, where comparing every pair of 1,000 would take half
/// a million comparisons).
fn disjoint(parts: &[Part]) -> bool {
    SortRange::disjoint(parts.iter().map(|part| &part.range))
}

/// Why the parts cannot be read together, if two of them may read one item: the same partition
/// with ranges that can hold a key in common.
fn overlapping(parts: &[Part]) -> Option<QueryError> {
    for (at, part) in parts.iter().enumerate() {
        for other in parts[at + 1..].iter().take_while(|other| other.key == part.key) {
            let shared = part.partitions.iter().any(|partition| other.partitions.contains(partition));
            if shared && part.range.may_overlap(&other.range) {
                let reason = "two queries of a merge read overlapping sort-key ranges of one partition: \
                              an item would be read twice";
                return Some(QueryError::Other(reason.to_owned()));
            }
        }
    }
    None
}

impl<E, F> Query<E, F> {
    /// Reads at most `keys` partition keys in a [`merge`](Query::merge) (default
    /// [`DEFAULT_MAX_KEYS`]); a merge of more fails with
    /// [`Error::TooManyKeys`](crate::Error::TooManyKeys) before anything is sent.
    pub fn max_keys(mut self, keys: usize) -> Self {
        self.plan.max_keys = keys;
        self
    }
}

impl QueryPlan {
    /// The sort-key range lane `natural` reads (a merge's lanes may each have their own).
    pub(crate) fn range_of(&self, natural: u64) -> &SortRange {
        usize::try_from(natural).ok().and_then(|lane| self.lane_ranges.get(lane)).unwrap_or(&self.range)
    }

    /// Whether a lane's range may drop a stored sort key client-side.
    pub(crate) fn excludes_any(&self) -> bool {
        self.range.excludes_any() || self.lane_ranges.iter().any(SortRange::excludes_any)
    }

    /// Whether `sort_key` is one the plan selects, in some lane.
    pub(crate) fn selects(&self, sort_key: &str) -> bool {
        match self.lane_ranges.is_empty() {
            true => self.range.contains(sort_key),
            false => self.lane_ranges.iter().any(|range| range.contains(sort_key)),
        }
    }

    /// The partition keys the plan reads: those of a merge, else its own.
    pub(crate) fn keys(&self) -> &[String] {
        if self.keys.is_empty() {
            std::slice::from_ref(&self.partition_value)
        } else {
            &self.keys
        }
    }
}

/// The merge of no queries: it has no index to read, and fails when it runs.
fn nothing<E>() -> Query<E, Done> {
    use crate::table::Table;
    let target = QueryTarget {
        table: crate::__private_v1::FallbackTable::DEFINITION_REF,
        index: None,
        type_name: "",
        partition_attribute: "",
        sort_attribute: None,
        sort_template: None,
    };
    let reason = "a merge of no queries has no index to read; skip the read when there are no keys";
    Query::new(target, Err(crate::error::Error::InvalidQuery { reason: reason.to_owned() }))
}

/// The partitions one query reads: its shards, or its own partition.
fn partitions_of(plan: &QueryPlan) -> Vec<String> {
    match &plan.shards {
        Some(shards) => shards.partitions.clone(),
        None => vec![plan.partition_value.clone()],
    }
}

/// Why `plan` cannot be merged, if it cannot.
fn unmergeable(plan: &QueryPlan) -> Option<QueryError> {
    let reason = if !plan.native_partition.is_empty() {
        "a query on a multi-attribute index key cannot be merged with others"
    } else if plan.shards.as_ref().is_some_and(|shards| shards.window.is_some()) {
        "a merge of time-bucketed queries is not supported; read each key's window on its own"
    } else if plan.shards.as_ref().is_some_and(|shards| shards.layout.dynamic_max().is_some()) {
        "a merge of queries of a dynamic-sharded index is not supported"
    } else if !plan.keys.is_empty() {
        "a merged query cannot be merged again; merge the queries it was made of"
    } else {
        return None;
    };
    Some(QueryError::Other(reason.to_owned()))
}

/// How `other` reads differently from `first`, besides its partition key, if it does.
fn differs(first: &QueryPlan, other: &QueryPlan) -> Option<QueryError> {
    let what = if first.table.name != other.table.name {
        "table"
    } else if first.queried_index.map(|index| index.name) != other.queried_index.map(|index| index.name) {
        "index"
    } else if first.type_name != other.type_name {
        "entity type"
    } else if first.native_sort != other.native_sort
        || first.native_range.is_some()
        || other.native_range.is_some()
    {
        "multi-attribute sort-key condition"
    } else if first.descending != other.descending {
        "direction"
    } else if first.consistent != other.consistent {
        "consistency"
    } else if first.projection != other.projection || first.hydrate != other.hydrate {
        "projection"
    } else if first.skip_other_types != other.skip_other_types || first.unexpired != other.unexpired {
        "item selection (skip_other_types, unexpired)"
    } else if rendered(first) != rendered(other) {
        "filter"
    } else if first.shards.as_ref().map(|shards| &shards.layout)
        != other.shards.as_ref().map(|shards| &shards.layout)
    {
        "shard layout"
    } else {
        return None;
    };
    Some(QueryError::Other(format!(
        "the queries of a merge may differ in their partition key and sort-key condition alone, but two differ in their {what}"
    )))
}

/// A plan's filter as it is sent, for comparing two: its text, names and values.
fn rendered(plan: &QueryPlan) -> Option<(String, Option<Placeholders>)> {
    let filter = plan.filter.as_ref()?;
    let mut placeholders = Placeholders::default();
    let text = filter.render(&mut placeholders).unwrap_or_default();
    Some((text, Some(placeholders)))
}
