//! Hydration: a query on an index that holds only some of an entity's attributes (keys only,
//! say) yields the base table's full items under the keys it reads, in the index's order, one
//! `BatchGetItem` per up to 100 items.

use super::sharded::resume::Start;
use super::{Query, QueryStats};
use crate::batch::{KeyRead, MAX_GET_KEYS};
use crate::db::Db;
use crate::entity::Entity;
use crate::error::{Error, Item, Result};
use crate::projection::Projected;
use std::collections::VecDeque;
use std::sync::Arc;

impl<E: Entity, I, F> Query<Projected<E, I>, F> {
    /// Reads the full entities: each item the index query reads is replaced by the base table's
    /// item under its key, fetched with `BatchGetItem` (up to 100 keys a request, retried as
    /// [`crate::Db::batch_get`] retries), in the index's order, for sharded and paged reads
    /// too. A page of 100 costs its index queries and one `BatchGetItem`
    /// ([`hydration_requests`](super::StatsSnapshot::hydration_requests)).
    ///
    /// An item deleted between the index read and the fetch, or whose index key changed (the
    /// index is eventually consistent), is left out; a page then holds fewer items, and its
    /// cursor still resumes after the last index item read. Items of
    /// other entity types are told apart on the full items
    /// ([`skip_other_types`](Query::skip_other_types) applies to them).
    ///
    /// ```no_run
    /// # use dynashard::{Db, Entity, Table};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Table)]
    /// # #[table(name = "Shop", pk = "pk", sk = "sk")]
    /// # #[gsi(byCustomer(pk = "gsi1pk", sk = "gsi1sk", projection = "keys_only"))]
    /// # struct Shop;
    /// # #[derive(Entity, Serialize, Deserialize)]
    /// # #[entity(table = Shop, pk = "order#{id}", sk = "order")]
    /// # #[gsi(byCustomer(pk = "{customer}", sk = "{id}"))]
    /// # struct Order { id: String, customer: String, total: u64 }
    /// # async fn example(db: Db) -> dynashard::Result<()> {
    /// // The index holds keys only; the page holds whole orders.
    /// let page = db.page(&Order::query_by_customer("ada").hydrate(), None).await?;
    /// let spent: u64 = page.items.iter().map(|order| order.total).sum();
    /// # Ok(()) }
    /// ```
    pub fn hydrate(mut self) -> Query<E, F> {
        self.plan.hydrate = true;
        self.yielding()
    }
}

/// Full items fetched for index items already read, waiting to be yielded.
#[derive(Default)]
pub(crate) struct Hydration {
    waiting: VecDeque<Fetched>,
    /// Where a read resuming right after the last item taken from `waiting` starts.
    taken: Option<Arc<Start>>,
}

/// The full item under one index item's key (`None`: deleted since), and where a read resuming
/// after it starts.
struct Fetched {
    item: Option<Item>,
    position: Option<Arc<Start>>,
}

impl Hydration {
    /// The next fetched item (`Some(None)`: deleted since the index was read); `None` when none
    /// is waiting.
    pub(crate) fn take(&mut self) -> Option<Option<Item>> {
        let fetched = self.waiting.pop_front()?;
        self.taken = fetched.position;
        Some(fetched.item)
    }

    /// While fetched items wait: where a read resuming after the last item taken starts
    /// (`None` inside: nothing is left after it).
    pub(crate) fn position(&self) -> Option<Option<&Arc<Start>>> {
        (!self.waiting.is_empty()).then_some(self.taken.as_ref())
    }

    /// How many index items to read for the next fetch: up to one request's worth, and no more
    /// than are still wanted, so that every item fetched can be yielded. The reader counts them
    /// as yielded as it reads them, so the merge asks for no more, and counts back those that
    /// are not (deleted since, or of another type).
    pub(crate) fn batch(remaining: Option<usize>) -> usize {
        remaining.unwrap_or(MAX_GET_KEYS).clamp(1, MAX_GET_KEYS)
    }

    /// Fetches the full items of `read` (index items, each with the position after it), waiting
    /// before anything else; `start` is the position before the first.
    pub(crate) async fn fetch(
        &mut self,
        db: &Db,
        plan: &super::QueryPlan,
        stats: &QueryStats,
        start: Option<Arc<Start>>,
        read: Vec<(Item, Option<Arc<Start>>)>,
    ) -> Result<()> {
        let table = plan.table;
        let mut keys = Vec::with_capacity(read.len());
        for (item, _) in &read {
            let key = crate::batch::key_of(table, item).ok_or_else(|| Error::InvalidQuery {
                reason: format!("an item of index `{}` lacks the table's string keys", index_name(plan)),
            })?;
            keys.push(key);
        }
        let record = |capacity| stats.record_hydration(capacity);
        let fetch = KeyRead {
            db,
            table,
            keys,
            // A consistent query of a local index hydrates from consistent reads too.
            consistent: plan.consistent,
            concurrency: 1,
            retry: db.retry_policy(),
            on_request: Some(&record),
            entities: std::slice::from_ref(&plan.type_name),
        };
        let items = fetch.run().await?;
        self.taken = start;
        let fetched = items.into_iter().zip(read).map(|(item, (index_item, position))| {
            // An item whose index key changed since the index was read no longer belongs where
            // the index put it (or in this query at all): left out, as a deleted one is.
            let item = item.filter(|item| same_index_key(plan, &index_item, item));
            Fetched { item, position }
        });
        self.waiting.extend(fetched);
        Ok(())
    }
}

/// Whether the full item `item` still has the index key `index_item` was read under.
fn same_index_key(plan: &super::QueryPlan, index_item: &Item, item: &Item) -> bool {
    let keys = plan.index.into_iter().flat_map(|index| index.partition_key.iter().chain(index.sort_key));
    keys.map(|attribute| attribute.name).all(|name| index_item.get(name) == item.get(name))
}

fn index_name(plan: &super::QueryPlan) -> &'static str {
    plan.index.map_or("(table)", |index| index.name)
}
