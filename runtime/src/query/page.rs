//! Reading a query a page at a time, with opaque cursors.

use super::request::{fetch, prepare, resume_key, sort_key_of};
use super::{cursor, FromItem, Query};
use crate::db::Db;
use crate::error::Result;

/// The default number of items in a page.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// One page of query results.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<E> {
    /// The items, in the query's order.
    pub items: Vec<E>,
    /// Where the next page starts; `None` when the query has no more items.
    pub cursor: Option<String>,
}

impl Db {
    /// Reads one page of `query` (its [`page_size`](Query::page_size), default 100), starting
    /// after `cursor` when given.
    ///
    /// The returned cursor resumes exactly after the last item of the page: no item is skipped or
    /// repeated. A cursor from another query, index or table, or an edited one, is rejected with
    /// [`crate::Error::InvalidCursor`].
    pub async fn page<E: FromItem, F>(&self, query: &Query<E, F>, cursor: Option<&str>) -> Result<Page<E>> {
        let plan = &query.plan;
        let mut start = prepare(self, plan, cursor)?;
        let size = plan.page_size.unwrap_or(DEFAULT_PAGE_SIZE);
        let mut items = Vec::with_capacity(size);
        let mut last_key = None;
        if plan.range.is_empty() {
            return Ok(Page { items, cursor: None });
        }
        loop {
            let wanted = size - items.len();
            let raw = fetch(self, plan, start.take(), Some(wanted + usize::from(plan.range.excludes_any())))
                .await?;
            let mut rest = raw.items.into_iter();
            for item in rest.by_ref() {
                if plan.range.excludes(sort_key_of(plan, &item)) {
                    continue;
                }
                let key = resume_key(plan, &item);
                if let Some(entity) = E::from_item(item, plan.skip_other_types)? {
                    items.push(entity);
                }
                last_key = Some(key);
                if items.len() == size {
                    break;
                }
            }
            let more_here = rest.next().is_some();
            if items.len() == size {
                let more = more_here || raw.last_evaluated_key.is_some();
                let cursor = match (more, last_key) {
                    (true, Some(key)) => {
                        Some(cursor::encode(&cursor::fingerprint(plan), &key, self.cursor_key()))
                    }
                    _ => None,
                };
                return Ok(Page { items, cursor });
            }
            match raw.last_evaluated_key {
                Some(next) => start = Some(next),
                None => return Ok(Page { items, cursor: None }),
            }
        }
    }
}
