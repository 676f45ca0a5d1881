//! Running a query as a stream, with the next page requested while the current one drains.

use super::request::{fetch, prepare, sort_key_of, RawPage};
use super::{FromItem, Query, QueryPlan};
use crate::db::Db;
use crate::error::{Error, Item, Result};
use futures::stream::{self, BoxStream, StreamExt};
use std::collections::VecDeque;
use std::sync::Arc;
use tokio::task::JoinHandle;

impl Db {
    /// Runs `query`, yielding its items in sort-key order (or reverse, when descending).
    ///
    /// Pages are fetched on demand; while one page drains, the next is already requested, so a
    /// long listing costs about one round trip per page. Nothing is sent before the stream is
    /// first polled.
    pub fn stream<E: FromItem, F>(&self, query: Query<E, F>) -> BoxStream<'static, Result<E>> {
        let state = State {
            db: self.clone(),
            plan: Arc::new(query.plan),
            buffer: VecDeque::new(),
            in_flight: None,
            started: false,
            remaining: None,
        };
        stream::unfold(state, |mut state| async move {
            let next = state.next().await;
            next.map(|item| (item, state))
        })
        .boxed()
    }
}

struct State {
    db: Db,
    plan: Arc<QueryPlan>,
    buffer: VecDeque<Item>,
    in_flight: Option<JoinHandle<Result<RawPage>>>,
    started: bool,
    remaining: Option<usize>,
}

impl State {
    async fn next<E: FromItem>(&mut self) -> Option<Result<E>> {
        if !self.started {
            self.started = true;
            self.remaining = self.plan.limit;
            match prepare(&self.db, &self.plan, None) {
                Ok(_) if self.plan.range.is_empty() => return None,
                Ok(start) => self.request(start),
                Err(error) => return Some(Err(error)),
            }
        }
        loop {
            if self.remaining == Some(0) {
                self.cancel();
                return None;
            }
            if let Some(item) = self.buffer.pop_front() {
                if self.plan.range.excludes(sort_key_of(&self.plan, &item)) {
                    continue;
                }
                match E::from_item(item, self.plan.skip_other_types) {
                    Ok(None) => continue,
                    Ok(Some(entity)) => {
                        if let Some(remaining) = &mut self.remaining {
                            *remaining -= 1;
                        }
                        return Some(Ok(entity));
                    }
                    Err(error) => return Some(Err(self.fail(error))),
                }
            }
            let handle = self.in_flight.take()?;
            let page = match handle.await {
                Ok(Ok(page)) => page,
                Ok(Err(error)) => return Some(Err(self.fail(error))),
                Err(join) => return Some(Err(self.fail(Error::Background { message: join.to_string() }))),
            };
            self.buffer.extend(page.items);
            if let Some(next) = page.last_evaluated_key {
                let enough = self.remaining.is_some_and(|remaining| self.buffer.len() >= remaining);
                if !enough {
                    self.request(Some(next));
                }
            }
        }
    }

    /// Starts the request for the page after `start` in the background.
    fn request(&mut self, start: Option<Item>) {
        let (db, plan) = (self.db.clone(), Arc::clone(&self.plan));
        let limit = self.request_limit();
        self.in_flight = Some(tokio::spawn(async move { fetch(&db, &plan, start, limit).await }));
    }

    fn request_limit(&self) -> Option<usize> {
        let wanted = self.remaining.map(|remaining| {
            let missing = remaining.saturating_sub(self.buffer.len()).max(1);
            missing + usize::from(self.plan.range.excludes_any())
        });
        match (self.plan.page_size, wanted) {
            (Some(size), Some(wanted)) => Some(size.min(wanted)),
            (size, wanted) => size.or(wanted),
        }
    }

    fn fail(&mut self, error: Error) -> Error {
        self.cancel();
        self.buffer.clear();
        self.remaining = Some(0);
        error
    }

    fn cancel(&mut self) {
        if let Some(handle) = self.in_flight.take() {
            handle.abort();
        }
    }
}

impl Drop for State {
    fn drop(&mut self) {
        self.cancel();
    }
}
